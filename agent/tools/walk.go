package tools

import (
	"fmt"
	"path"
	"strings"
)

// skipDir reports whether a directory is never searched or listed.
func skipDir(name string) bool {
	switch name {
	case ".git", "node_modules", ".hg", ".svn":
		return true
	}
	return false
}

// globMatcher matches slash-separated paths against a pattern where "**"
// is any number of directories (zero included) and every other segment is
// a path.Match pattern.
type globMatcher struct {
	segs []string
}

func compileGlob(pattern string) (globMatcher, error) {
	pattern = strings.TrimPrefix(path.Clean(strings.ReplaceAll(pattern, "\\", "/")), "./")
	if pattern == "" || pattern == "." {
		return globMatcher{}, fmt.Errorf("empty pattern")
	}
	segs := strings.Split(strings.Trim(pattern, "/"), "/")
	for _, s := range segs {
		if s == "**" {
			continue
		}
		if _, err := path.Match(s, ""); err != nil {
			return globMatcher{}, fmt.Errorf("bad pattern %q: %w", pattern, err)
		}
	}
	return globMatcher{segs: segs}, nil
}

// match reports whether the slash-separated relative path name matches.
func (g globMatcher) match(name string) bool {
	parts := strings.Split(name, "/")
	// ok[j] is true when segs[:i] matches parts[:j]; rolled over i.
	ok := make([]bool, len(parts)+1)
	ok[0] = true
	for _, s := range g.segs {
		next := make([]bool, len(parts)+1)
		if s == "**" {
			any := false
			for j := range ok {
				any = any || ok[j]
				next[j] = any
			}
		} else {
			for j := 1; j <= len(parts); j++ {
				if ok[j-1] {
					m, _ := path.Match(s, parts[j-1])
					next[j] = m
				}
			}
		}
		ok = next
	}
	return ok[len(parts)]
}

// baseOnly reports whether the pattern has one segment: grep's glob filter
// then matches the file's name, wherever it is.
func (g globMatcher) baseOnly() bool { return len(g.segs) == 1 && g.segs[0] != "**" }
