package permission

import (
	"fmt"
	"path"
	"strings"
)

// matchKind is how a compiled pattern matches.
type matchKind uint8

const (
	matchAll    matchKind = iota // "*": everything
	matchExact                   // the pattern itself
	matchPrefix                  // bash "prefix:*": argv equals prefix or starts with prefix+" "
	matchWild                    // "*" matches any run of characters, "/" and " " included
	matchPath                    // file glob with a "/": per-segment path.Match, "**" across segments
	matchName                    // file glob without a "/": any one path segment matches (gitignore-like)
)

// matcher is a pattern compiled once in New.
type matcher struct {
	kind matchKind
	s    string
	segs []string
}

// segMatch matches one path segment against one glob segment: patterns
// with only '*' use wildMatch (linear in practice), the rest path.Match.
func segMatch(pattern, seg string) bool {
	if strings.ContainsAny(pattern, "?[\\") {
		ok, _ := path.Match(pattern, seg)
		return ok
	}
	return wildMatch(pattern, seg)
}

// compile compiles pattern for rules under key. Bash patterns are
// whitespace-normalised; file patterns are globs; other keys use matchWild.
func compile(key, pattern string) (matcher, error) {
	if pattern == "" || pattern == "*" {
		return matcher{kind: matchAll}, nil
	}
	switch {
	case key == "bash":
		p := strings.Join(strings.Fields(pattern), " ")
		if pre, ok := strings.CutSuffix(p, ":*"); ok {
			pre = strings.TrimSpace(pre)
			if pre == "" {
				return matcher{kind: matchAll}, nil
			}
			return matcher{kind: matchPrefix, s: pre}, nil
		}
		if p == "" {
			return matcher{kind: matchAll}, nil
		}
		if strings.IndexByte(p, '*') >= 0 {
			return matcher{kind: matchWild, s: p}, nil
		}
		return matcher{kind: matchExact, s: p}, nil
	case fileKey(key):
		p := strings.TrimPrefix(pattern, "./")
		if p == "**" || p == "" {
			return matcher{kind: matchAll}, nil
		}
		if strings.IndexByte(p, '/') < 0 {
			if _, err := path.Match(p, ""); err != nil {
				return matcher{}, fmt.Errorf("pattern %q: %w", pattern, err)
			}
			return matcher{kind: matchName, s: p}, nil
		}
		segs := strings.Split(strings.TrimSuffix(p, "/"), "/")
		for _, s := range segs {
			if s == "**" {
				continue
			}
			if strings.Contains(s, "**") {
				return matcher{}, fmt.Errorf("pattern %q: ** must be a whole path segment", pattern)
			}
			if _, err := path.Match(s, ""); err != nil {
				return matcher{}, fmt.Errorf("pattern %q: %w", pattern, err)
			}
		}
		return matcher{kind: matchPath, segs: segs}, nil
	}
	if strings.IndexByte(pattern, '*') >= 0 {
		return matcher{kind: matchWild, s: pattern}, nil
	}
	return matcher{kind: matchExact, s: pattern}, nil
}

// match reports whether subject matches. It does not allocate.
func (m *matcher) match(subject string) bool {
	switch m.kind {
	case matchAll:
		return true
	case matchExact:
		return subject == m.s
	case matchPrefix:
		return subject == m.s || (len(subject) > len(m.s) && subject[len(m.s)] == ' ' && subject[:len(m.s)] == m.s)
	case matchWild:
		return wildMatch(m.s, subject)
	case matchPath:
		return pathMatch(m.segs, strings.TrimPrefix(subject, "./"))
	case matchName:
		s := strings.TrimPrefix(subject, "./")
		for {
			i := strings.IndexByte(s, '/')
			seg := s
			if i >= 0 {
				seg = s[:i]
			}
			if segMatch(m.s, seg) {
				return true
			}
			if i < 0 {
				return false
			}
			s = s[i+1:]
		}
	}
	return false
}

// wildMatch matches pattern, where '*' is any run of characters (possibly
// empty) and every other byte is literal, against s.
func wildMatch(pattern, s string) bool {
	px, sx := 0, 0
	starP, starS := -1, 0
	for sx < len(s) {
		switch {
		case px < len(pattern) && pattern[px] == '*':
			starP, starS = px, sx
			px++
		case px < len(pattern) && pattern[px] == s[sx]:
			px++
			sx++
		case starP >= 0:
			starS++
			px, sx = starP+1, starS
		default:
			return false
		}
	}
	for px < len(pattern) && pattern[px] == '*' {
		px++
	}
	return px == len(pattern)
}

// pathMatch matches the slash path p against the pattern segments segs:
// each segment with path.Match, "**" across zero or more segments. A pattern
// ending in "/**" also matches the directory itself.
func pathMatch(segs []string, p string) bool {
	for i, s := range segs {
		if s == "**" {
			rest := segs[i+1:]
			if len(rest) == 0 {
				return true
			}
			for {
				if pathMatch(rest, p) {
					return true
				}
				j := strings.IndexByte(p, '/')
				if j < 0 {
					return false
				}
				p = p[j+1:]
			}
		}
		head, tail, more := p, "", false
		if j := strings.IndexByte(p, '/'); j >= 0 {
			head, tail, more = p[:j], p[j+1:], true
		}
		if !segMatch(s, head) {
			return false
		}
		if !more {
			for _, r := range segs[i+1:] {
				if r != "**" {
					return false
				}
			}
			return true
		}
		p = tail
	}
	return false
}
