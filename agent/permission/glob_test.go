package permission

import "github.com/oceancode/oceancode/internal/glob"

// The names this package's older tests (TestWildMatch, FuzzSegMatch) give
// the matchers that are internal/glob's now.

func wildMatch(pattern, s string) bool { return glob.Match(pattern, s) }

// segMatch matches one path segment as a one-segment file rule does.
func segMatch(pattern, seg string) bool {
	p, err := glob.CompilePath(pattern)
	if err != nil {
		return false // path.Match errs too: FuzzSegMatch skips the input
	}
	return p.MatchAnySegment(seg)
}
