package tools

import (
	"fmt"
	"path"
	"strings"

	"github.com/oceancode/oceancode/internal/glob"
)

// skipDir reports whether a directory is never searched or listed.
func skipDir(name string) bool {
	switch name {
	case ".git", "node_modules", ".hg", ".svn":
		return true
	}
	return false
}

// globMatcher matches slash-separated paths against a path glob
// (internal/glob): "**" is any number of directories (zero included) and
// every other segment is a path.Match pattern.
type globMatcher struct {
	p glob.Path
}

func compileGlob(pattern string) (globMatcher, error) {
	pattern = strings.TrimPrefix(path.Clean(strings.ReplaceAll(pattern, "\\", "/")), "./")
	if pattern == "" || pattern == "." {
		return globMatcher{}, fmt.Errorf("empty pattern")
	}
	p, err := glob.CompilePath(strings.Trim(pattern, "/"))
	return globMatcher{p: p}, err
}

// match reports whether the slash-separated relative path name matches.
func (g globMatcher) match(name string) bool { return g.p.Match(name) }

// baseOnly reports whether the pattern has one segment: grep's glob filter
// then matches the file's name, wherever it is.
func (g globMatcher) baseOnly() bool { return g.p.Name() }
