package shellguard

import (
	"fmt"
	"strings"

	"github.com/oceancode/oceancode/internal/glob"
)

type patKind uint8

const (
	patAll    patKind = iota // "" or "*"
	patExact                 // "npm test"
	patPrefix                // "git push:*"
	patGlob                  // "git * --force": glob.Match
)

// pattern is a compiled Bash(...) rule pattern.
type pattern struct {
	rule *Rule
	kind patKind
	text string // exact text, prefix or glob
}

func compileRules(list string, rules []Rule) ([]pattern, error) {
	if len(rules) == 0 {
		return nil, nil
	}
	out := make([]pattern, 0, len(rules))
	for i := range rules {
		r := rules[i] // copy: callers get a stable pointer
		p, err := compilePattern(r.Pattern)
		if err != nil {
			return nil, fmt.Errorf("shellguard: compile %s rule %q: %w", list, r.Pattern, err)
		}
		p.rule = &r
		out = append(out, p)
	}
	return out, nil
}

func compilePattern(s string) (pattern, error) {
	if strings.ContainsAny(s, "\x00\n\r") {
		return pattern{}, fmt.Errorf("%w: control character in pattern", ErrBadPattern)
	}
	t := strings.Join(strings.Fields(s), " ")
	if t == "" || t == "*" {
		return pattern{kind: patAll}, nil
	}
	if strings.HasSuffix(t, ":*") {
		pre := strings.TrimSpace(strings.TrimSuffix(t, ":*"))
		if pre == "" {
			return pattern{kind: patAll}, nil
		}
		if strings.Contains(pre, ":*") {
			return pattern{}, fmt.Errorf(`%w: ":*" may appear only at the end`, ErrBadPattern)
		}
		if !strings.Contains(pre, "*") {
			return pattern{kind: patPrefix, text: pre}, nil
		}
		// "git *:*" — a glob whose last word may be followed by anything.
		return pattern{kind: patGlob, text: pre + "*"}, nil
	}
	if strings.Contains(t, ":*") {
		return pattern{}, fmt.Errorf(`%w: ":*" may appear only at the end`, ErrBadPattern)
	}
	if strings.Contains(t, "*") {
		return pattern{kind: patGlob, text: t}, nil
	}
	return pattern{kind: patExact, text: t}, nil
}

// matchWords matches the segment's words joined by single spaces, without
// joining them for exact and prefix patterns.
func (p *pattern) matchWords(t *lazyText) bool {
	switch p.kind {
	case patAll:
		return true
	case patExact, patPrefix:
		s := p.text
		for i, a := range t.argv {
			if i > 0 {
				if s == "" {
					return p.kind == patPrefix
				}
				if s[0] != ' ' {
					return false
				}
				s = s[1:]
			}
			if !strings.HasPrefix(s, a.text) {
				// the pattern may end inside this word only for exact mismatch
				return false
			}
			s = s[len(a.text):]
		}
		return s == ""
	}
	return p.match(t.get())
}

func (p *pattern) match(s string) bool {
	switch p.kind {
	case patAll:
		return true
	case patExact:
		return s == p.text
	case patPrefix:
		return s == p.text || (len(s) > len(p.text) && s[len(p.text)] == ' ' && strings.HasPrefix(s, p.text))
	case patGlob:
		return glob.Match(p.text, s)
	}
	return false
}
