package commands

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/provenance"
)

// Expansion is a prompt that named a command, ready to send.
type Expansion struct {
	Command *Command
	Args    string // what followed the name
	Text    string // the prompt the model gets
	// Tools are the permission keys the turn may be offered (nil: every
	// tool the session has): the command's allowed-tools, narrowed.
	Tools []string
	// Model is the model the turn runs on ("" the session's).
	Model string
	// Notices say what of the command was not honoured, and why.
	Notices []string
}

// shellLine is Claude Code's !`command` syntax.
var shellLine = regexp.MustCompile("!`[^`\n]+`")

// placeholder is $ARGUMENTS or one of $1 … $9.
var placeholder = regexp.MustCompile(`\$ARGUMENTS|\$[1-9]`)

// Parse splits "/name args" into the name and the arguments; ok is false
// when prompt does not start with a slash and a valid command name.
func Parse(prompt string) (name, args string, ok bool) {
	p := strings.TrimLeft(prompt, " \t\r\n")
	if !strings.HasPrefix(p, "/") {
		return "", "", false
	}
	rest := p[1:]
	end := strings.IndexAny(rest, " \t\r\n")
	if end < 0 {
		end = len(rest)
	}
	name = rest[:end]
	if !ValidName(name) {
		return "", "", false
	}
	return name, strings.TrimSpace(rest[end:]), true
}

// Expand expands a prompt that starts with "/name" for a command of the
// set; ok is false for any other prompt (which is sent as it is).
func (s *Set) Expand(prompt string) (e Expansion, ok bool) {
	name, args, ok := Parse(prompt)
	if !ok {
		return e, false
	}
	c, ok := s.Lookup(name)
	if !ok {
		return e, false
	}
	e = Expansion{Command: c, Args: args, Text: Substitute(c.Body, args)}
	if shellLine.MatchString(c.Body) {
		e.Notices = append(e.Notices, fmt.Sprintf("/%s: its !`…` shell lines were not run: a command file never runs code (docs/commands.md); they reach the model as written", name))
	}
	e.Tools, e.Notices = narrow(c, e.Notices)
	e.Model, e.Notices = s.model(c, e.Notices)
	return e, true
}

// Substitute puts args into body: $ARGUMENTS is all of them, $1…$9 each
// blank-separated one ("" past the last). A body that uses neither gets
// the arguments appended on a line "ARGUMENTS: …", as Claude Code does.
func Substitute(body, args string) string {
	uses := placeholder.MatchString(body)
	fields := strings.Fields(args)
	// One pass, so an argument that reads "$1" stays as written.
	out := placeholder.ReplaceAllStringFunc(body, func(m string) string {
		if m == "$ARGUMENTS" {
			return args
		}
		i, _ := strconv.Atoi(m[1:])
		if i <= len(fields) {
			return fields[i-1]
		}
		return ""
	})
	if !uses && args != "" {
		out += "\n\nARGUMENTS: " + args
	}
	return out
}

// claudeKeys maps Claude Code's tool names to OceanCode's permission keys.
var claudeKeys = map[string]string{
	"bash": "bash", "read": "read", "write": "edit", "edit": "edit", "multiedit": "edit",
	"notebookedit": "edit", "glob": "glob", "grep": "grep", "ls": "list", "webfetch": "webfetch",
	"todowrite": "todo", "todoread": "todo", "task": "task", "skill": "skill",
}

// narrow turns allowed-tools into the permission keys the command's turn
// is offered. The patterns in parentheses narrow to the tool only: they
// approve nothing (the session's rules decide every call).
func narrow(c *Command, notices []string) ([]string, []string) {
	if len(c.AllowedTools) == 0 {
		return nil, notices
	}
	keys := []string{}
	patterns := false
	for _, t := range c.AllowedTools {
		name, _, hasPat := strings.Cut(t, "(")
		patterns = patterns || hasPat
		k := strings.ToLower(strings.TrimSpace(name))
		if strings.HasPrefix(k, "mcp__") {
			k = "mcp"
		} else if ck, ok := claudeKeys[k]; ok {
			k = ck
		} else {
			k = permission.Key(k)
		}
		keys = append(keys, k)
	}
	if patterns {
		notices = append(notices, fmt.Sprintf("/%s: allowed-tools narrows this turn to %s; its patterns approve nothing: the rules still decide each call", c.Name, strings.Join(keys, ", ")))
	}
	return keys, notices
}

// Keeps reports whether a tool (its name) may be offered in the turn.
func (e Expansion) Keeps(tool string) bool {
	if e.Tools == nil {
		return true
	}
	k := permission.Key(tool)
	for _, t := range e.Tools {
		if t == k || t == strings.ToLower(tool) {
			return true
		}
	}
	return false
}

// model is the model a command's turn runs on, or "" with a notice when
// its model may not apply.
func (s *Set) model(c *Command, notices []string) (string, []string) {
	if c.Model == "" {
		return "", notices
	}
	if c.Layer == provenance.Project && !s.opts.TrustedProject {
		return "", append(notices, fmt.Sprintf("/%s: model %q ignored: a project command switches the model only in a trusted workspace (docs/trust.md)", c.Name, c.Model))
	}
	if s.opts.ModelCheck == nil {
		return c.Model, notices
	}
	m, err := s.opts.ModelCheck(c.Model)
	if err != nil {
		return "", append(notices, fmt.Sprintf("/%s: model %q ignored: %v", c.Name, c.Model, err))
	}
	return m, notices
}
