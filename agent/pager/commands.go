package pager

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Command is one slash command.
type Command struct {
	Name string // without the slash
	Args string // argument synopsis ("[MODE]")
	Help string
}

// Commands are the slash commands, in the order /help shows them.
var Commands = []Command{
	{Name: "auto", Help: "switch to auto (acceptEdits): edits run without asking"},
	{Name: "always-approve", Help: "switch to always-approve (bypassPermissions), unless it is locked"},
	{Name: "mode", Args: "[MODE]", Help: "show the permission modes, or switch to MODE"},
	{Name: "model", Args: "[NAME]", Help: "show the model, or switch to NAME for the next turn"},
	{Name: "agent", Args: "[NAME]", Help: "show the agent, or switch to NAME"},
	{Name: "permissions", Help: "the effective rules with their provenance, and the recently denied calls"},
	{Name: "inspect", Args: "KEY", Help: "the effective value of KEY and where it came from"},
	{Name: "mcp", Args: "[add NAME -- CMD…|add NAME URL]", Help: "list the MCP servers, or add one (it asks; the allow-list applies)"},
	{Name: "sessions", Args: "[ID]", Help: "list the stored sessions, or resume ID"},
	{Name: "undo", Args: "[N] [--force]", Help: "restore the files the last turn changed (or back to checkpoint N); never over your own later changes without --force"},
	{Name: "redo", Args: "[--force]", Help: "put back what the last /undo replaced"},
	{Name: "checkpoints", Help: "the undo list: each turn that changed files"},
	{Name: "sandbox", Help: "the sandbox mode in effect and what it allows"},
	{Name: "compact", Args: "[FOCUS]", Help: "compact the conversation now: prune old tool outputs, summarise older turns (keeping FOCUS)"},
	{Name: "cost", Help: "tokens in and out, cache reads and writes, and the cost of this session"},
	{Name: "instructions", Help: "the instruction files (AGENTS.md, CLAUDE.md) in the prompt, their bytes and what was cut"},
	{Name: "clear", Help: "start a fresh session"},
	{Name: "help", Help: "the keys and the commands"},
	{Name: "exit", Help: "leave the pager"},
}

// LookupCommand returns the command called name. (Additive to the contract.)
func LookupCommand(name string) (Command, bool) {
	for _, c := range Commands {
		if c.Name == name {
			return c, true
		}
	}
	return Command{}, false
}

// ParseCommand splits "/name arg…" into its name and arguments; ok is false
// for a line that is not a slash command. Arguments are split as a shell
// would (quotes and backslashes group and are removed) but nothing is
// expanded: $VAR, ~ and $(…) stay as written. A line whose quoting does not
// parse is split at blanks instead.
func ParseCommand(line string) (name string, args []string, ok bool) {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "/") {
		return "", nil, false
	}
	rest := line[1:]
	end := strings.IndexFunc(rest, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' })
	if end < 0 {
		end = len(rest)
	}
	name = rest[:end]
	if !validCommandName(name) {
		return "", nil, false // "/usr/bin/x", "/", "/ foo": a prompt, not a command
	}
	args, err := shellWords(rest[end:])
	if err != nil {
		args = strings.Fields(rest[end:])
	}
	return name, args, true
}

// validCommandName reports whether s can name a command: a letter, then
// letters, digits, - and _ (and : for a custom command's namespaces,
// /frontend:component).
func validCommandName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case i > 0 && (r >= '0' && r <= '9' || r == '-' || r == '_' || r == ':'):
		default:
			return false
		}
	}
	return true
}

// shellWords splits s into words with the shell's quoting, without any
// expansion.
func shellWords(s string) ([]string, error) {
	args := []string{}
	p := syntax.NewParser()
	for w, err := range p.WordsSeq(strings.NewReader(s)) {
		if err != nil {
			return nil, err
		}
		var b strings.Builder
		literal(&b, s, w.Parts, false)
		args = append(args, b.String())
	}
	return args, nil
}

// literal writes the parts with quotes removed; anything that would expand
// is written as it appears in src.
func literal(b *strings.Builder, src string, parts []syntax.WordPart, quoted bool) {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(p.Value, quoted))
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			literal(b, src, p.Parts, true)
		default:
			from, to := int(p.Pos().Offset()), int(p.End().Offset())
			if from >= 0 && to <= len(src) && from <= to {
				b.WriteString(src[from:to])
			}
		}
	}
}

// unescape removes the shell's backslashes: every one outside quotes,
// only those before $ ` " \ and a newline inside double quotes.
func unescape(s string, quoted bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		n := s[i+1]
		switch {
		case n == '\n':
			i++
		case !quoted || strings.IndexByte("$`\"\\", n) >= 0:
			b.WriteByte(n)
			i++
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
