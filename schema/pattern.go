package schema

import (
	"regexp"
	"sync"
)

// lazyRegexp is a pattern of the schemas (pattern, patternProperties), compiled on first use: a validation
// meets few of the patterns. A pattern that does not compile matches nothing (so the value or key is
// reported, failing closed); checkPatterns, which the tests run, refuses such a schema.
//
// Patterns mean what they mean to Go's regexp (RE2 syntax, not ECMA-262), as they do to the reference
// library, whose default engine is regexp.Compile; TestPatternMatchesRegexp and FuzzPatternMatch hold
// this type to regexp. A hand-written matcher used to run the programs here; it saved about 0.1 ms per
// start-up and was dropped (docs/startup.md).
type lazyRegexp struct {
	src  string
	once sync.Once
	re   *regexp.Regexp
	err  error
}

func (l *lazyRegexp) compile() error {
	l.once.Do(func() { l.re, l.err = regexp.Compile(l.src) })
	return l.err
}

// MatchString reports whether s contains a match of the pattern (patterns are not anchored).
func (l *lazyRegexp) MatchString(s string) bool { return l.compile() == nil && l.re.MatchString(s) }

func (l *lazyRegexp) String() string { return l.src }
