package permission

import (
	"fmt"
	"strings"

	"github.com/oceancode/oceancode/provenance"
)

// Rule is one permission rule: for tool key Key, a call whose pattern matches
// Pattern gets Action. Key is lowercased ("bash", "edit", "read", "mcp",
// "external_directory", "doom_loop", "webfetch", … or "*" for every key);
// Pattern is "*" when it was empty.
type Rule struct {
	Key     string
	Pattern string
	Action  Action
	// Origin is where the rule was configured (layer, file, line).
	Origin provenance.Origin
	// Source names the tier the rule belongs to, for explanations: "base",
	// "agent:build", "config", "mode:plan", "requirements", "shell.deny", ….
	Source string
}

// String renders the rule as Tool(pattern) followed by its action, e.g.
// "Bash(git push:*) deny".
func (r Rule) String() string {
	if r.Key == "*" {
		// The seed's notation for rules over every tool: "* * allow".
		return "* " + r.Pattern + " " + r.Action.String()
	}
	return r.Spec() + " " + r.Action.String()
}

// Spec renders the rule's Tool(pattern) form, e.g. "Bash(git push:*)".
func (r Rule) Spec() string {
	return displayName(r.Key) + "(" + r.Pattern + ")"
}

// displayNames maps well-known keys to the capitalised spelling the docs use.
var displayNames = map[string]string{
	"bash": "Bash", "edit": "Edit", "read": "Read", "grep": "Grep", "glob": "Glob",
	"list": "List", "webfetch": "WebFetch", "task": "Task", "todo": "Todo", "question": "Question",
}

func displayName(key string) string {
	if n, ok := displayNames[key]; ok {
		return n
	}
	return key
}

// ParseRule parses a Tool(pattern) string — "Bash(git push:*)",
// "Edit(src/**)", "Read(*.md)" or a bare tool name such as "bash" — into a
// Rule with action a and origin o. The tool name is matched
// case-insensitively and mapped to its permission key (write, apply_patch and
// hashline are edit); an empty pattern means "*". The pattern is checked
// with the matcher its key uses, so a malformed glob is an error here rather
// than a rule that never matches.
func ParseRule(s string, a Action, o provenance.Origin) (Rule, error) {
	if !a.Valid() {
		return Rule{}, fmt.Errorf("permission: parse rule %q: invalid action %d", s, int(a))
	}
	t := strings.TrimSpace(s)
	if t == "" {
		return Rule{}, fmt.Errorf("permission: parse rule %q: empty", s)
	}
	name, pattern := t, "*"
	if i := strings.IndexByte(t, '('); i >= 0 {
		if !strings.HasSuffix(t, ")") {
			return Rule{}, fmt.Errorf("permission: parse rule %q: missing closing parenthesis", s)
		}
		name = strings.TrimSpace(t[:i])
		pattern = strings.TrimSpace(t[i+1 : len(t)-1])
		if pattern == "" {
			pattern = "*"
		}
	} else if strings.IndexByte(t, ')') >= 0 {
		return Rule{}, fmt.Errorf("permission: parse rule %q: closing parenthesis without an opening one", s)
	}
	if err := checkName(name); err != nil {
		return Rule{}, fmt.Errorf("permission: parse rule %q: %w", s, err)
	}
	r := Rule{Key: Key(name), Pattern: pattern, Action: a, Origin: o}
	if _, err := compile(r.Key, r.Pattern); err != nil {
		return Rule{}, fmt.Errorf("permission: parse rule %q: %w", s, err)
	}
	return r, nil
}

func checkName(name string) error {
	if name == "" {
		return fmt.Errorf("empty tool name")
	}
	if name == "*" {
		return nil
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '-', c == '.':
		default:
			return fmt.Errorf("tool name %q: character %q not allowed (letters, digits, _ - . or a lone *)", name, c)
		}
	}
	return nil
}

// Key returns the permission key for a tool name: the name lowercased, with
// write, apply_patch, hashline and multiedit mapped to edit. grep, glob and
// list keep their own keys; Evaluate also checks them against read (see
// readAlso).
func Key(tool string) string {
	switch tool { // the common spellings, without allocating
	case "bash", "edit", "read", "mcp", "grep", "glob", "list", "webfetch",
		"external_directory", "doom_loop", "task", "todo", "question", "*":
		return tool
	case "write", "apply_patch", "hashline", "multiedit":
		return "edit"
	}
	k := strings.ToLower(strings.TrimSpace(tool))
	switch k {
	case "write", "apply_patch", "hashline", "multiedit":
		return "edit"
	}
	return k
}

// readAlso reports whether calls under key are also checked against the read
// rules (the stricter decision wins): grep, glob and list read files too.
func readAlso(key string) bool {
	return key == "grep" || key == "glob" || key == "list"
}

// fileKey reports whether key's patterns are file-path globs.
func fileKey(key string) bool {
	switch key {
	case "edit", "read", "grep", "glob", "list", "external_directory":
		return true
	}
	return false
}
