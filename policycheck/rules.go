package policycheck

import (
	"fmt"
	"strings"

	"github.com/oceancode/oceancode/internal/glob"
)

// ToolKey returns the permission key of a tool name as the permission engine
// computes it: lowercased, with write, apply_patch, hashline and multiedit
// mapped to edit.
func ToolKey(tool string) string {
	k := strings.ToLower(strings.TrimSpace(tool))
	switch k {
	case "write", "apply_patch", "hashline", "multiedit":
		return "edit"
	}
	return k
}

// fileKey reports whether a key's patterns are file-path globs.
func fileKey(key string) bool {
	switch key {
	case "edit", "read", "grep", "glob", "list", "external_directory":
		return true
	}
	return false
}

// RuleSyntax checks one permission rule (tool name and pattern) exactly as
// the permission engine does when it compiles the rule: a tool name of
// letters, digits, _ - . (or a lone *), and for file tools a pattern
// internal/glob.CompilePath accepts, as the engine's compile does. A rule it
// accepts compiles in every oceancode; cmd/clitest checks the two agree.
func RuleSyntax(tool, pattern string) error {
	if tool == "" {
		return fmt.Errorf("empty tool name")
	}
	if tool != "*" {
		for i := 0; i < len(tool); i++ {
			c := tool[i]
			switch {
			case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '-', c == '.':
			default:
				return fmt.Errorf("tool name %q: character %q not allowed (letters, digits, _ - . or a lone *)", tool, c)
			}
		}
	}
	key := ToolKey(tool)
	if pattern == "" || pattern == "*" || !fileKey(key) {
		return nil
	}
	_, err := glob.CompilePath(pattern)
	return err
}

// SplitRule splits a Tool(pattern) rule as the permission engine does:
// "Bash(git push:*)" is ("Bash", "git push:*"), "Read" alone is ("Read", "*").
// ok is false for unbalanced parentheses.
func SplitRule(s string) (tool, pattern string, err error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return "", "", fmt.Errorf("empty rule")
	}
	tool, pattern = t, "*"
	if i := strings.IndexByte(t, '('); i >= 0 {
		if !strings.HasSuffix(t, ")") {
			return "", "", fmt.Errorf("missing closing parenthesis")
		}
		tool = strings.TrimSpace(t[:i])
		pattern = strings.TrimSpace(t[i+1 : len(t)-1])
		if pattern == "" {
			pattern = "*"
		}
	} else if strings.IndexByte(t, ')') >= 0 {
		return "", "", fmt.Errorf("closing parenthesis without an opening one")
	}
	return tool, pattern, nil
}

// ParseRule checks a Tool(pattern) rule string as the engine parses it.
func ParseRule(s string) (tool, pattern string, err error) {
	tool, pattern, err = SplitRule(s)
	if err == nil {
		err = RuleSyntax(tool, pattern)
	}
	return tool, pattern, err
}
