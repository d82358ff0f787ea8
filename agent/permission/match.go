package permission

import (
	"strings"

	"github.com/oceancode/oceancode/internal/glob"
)

// matchKind is how a compiled pattern matches.
type matchKind uint8

const (
	matchAll    matchKind = iota // "*": everything
	matchExact                   // the pattern itself
	matchPrefix                  // bash "prefix:*": argv equals prefix or starts with prefix+" "
	matchWild                    // glob.Match: "*" matches any run of characters, "/" and " " included
	matchPath                    // file glob with a "/": glob.Path, "**" across segments
	matchName                    // file glob without a "/": any one path segment matches (gitignore-like)
)

// matcher is a pattern compiled once in New.
type matcher struct {
	kind matchKind
	s    string
	path glob.Path
}

// compile compiles pattern for rules under key. Bash patterns are
// whitespace-normalised; file patterns are path globs; other keys use
// matchWild.
func compile(key, pattern string) (matcher, error) {
	if pattern == "" || pattern == "*" {
		return matcher{kind: matchAll}, nil
	}
	switch {
	case key == "bash":
		return compileBash(pattern), nil
	case fileKey(key):
		if p := strings.TrimPrefix(pattern, "./"); p == "**" || p == "" {
			return matcher{kind: matchAll}, nil
		}
		p, err := glob.CompilePath(pattern)
		if err != nil {
			return matcher{}, err
		}
		if p.Name() {
			return matcher{kind: matchName, path: p}, nil
		}
		return matcher{kind: matchPath, path: p}, nil
	}
	if strings.IndexByte(pattern, '*') >= 0 {
		return matcher{kind: matchWild, s: pattern}, nil
	}
	return matcher{kind: matchExact, s: pattern}, nil
}

// compileBash compiles a bash rule's pattern: "prefix:*", a glob, or the
// exact command, with runs of whitespace as one space.
func compileBash(pattern string) matcher {
	p := strings.Join(strings.Fields(pattern), " ")
	if pre, ok := strings.CutSuffix(p, ":*"); ok {
		pre = strings.TrimSpace(pre)
		if pre == "" {
			return matcher{kind: matchAll}
		}
		return matcher{kind: matchPrefix, s: pre}
	}
	if p == "" {
		return matcher{kind: matchAll}
	}
	if strings.IndexByte(p, '*') >= 0 {
		return matcher{kind: matchWild, s: p}
	}
	return matcher{kind: matchExact, s: p}
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
		return glob.Match(m.s, subject)
	case matchPath:
		return m.path.Match(subject)
	case matchName:
		return m.path.MatchAnySegment(subject)
	}
	return false
}
