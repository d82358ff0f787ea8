// Package glob is the module's one wildcard matcher, in two syntaxes:
//
//   - Text globs (Match, Wild): '*' matches any run of bytes, "/" and spaces
//     included; every other byte is literal, unless Wild.One makes '?' match
//     any one byte. Command rules (Bash(git * --force)), allowed_models,
//     MCP tool and URL rules, child_env variable names.
//   - Path globs (CompilePath): slash-separated segments; within a segment
//     '*', '?', [classes] and '\' escapes as path.Match has them, so '*'
//     stops at '/'; a "**" segment matches zero or more whole segments.
//     File rules (Read(src/**)), the glob and grep tools' patterns.
//
// Both are linear in practice (one backtrack point, never exponential) and
// Match does not allocate. Pure, standard library only.
package glob

import (
	"errors"
	"fmt"
	"path"
	"strings"
)

// Match reports whether s matches the text glob pattern: '*' matches any
// run of bytes (possibly empty, "/" and spaces included) and every other
// byte is literal.
func Match(pattern, s string) bool { return Wild{}.Match(pattern, s) }

// Wild is a text-glob syntax: '*' matches any run of bytes and every other
// byte is literal, with these options.
type Wild struct {
	// One makes '?' match any one byte.
	One bool
	// Fold compares strings.ToUpper of pattern and subject, so letters
	// match either case (child_env's strip list errs wide).
	Fold bool
}

// Match reports whether s matches pattern in syntax w.
func (w Wild) Match(pattern, s string) bool {
	if w.Fold {
		pattern, s = strings.ToUpper(pattern), strings.ToUpper(s)
	}
	// pattern is chunk0 * chunk1 * … * chunkN: chunk0 is a prefix, chunkN a
	// suffix, and the middle chunks are taken leftmost, which finds a match
	// whenever one exists (each chunk has a fixed length).
	first, rest, star := strings.Cut(pattern, "*")
	if !star {
		return len(s) == len(pattern) && w.equal(pattern, s)
	}
	if len(s) < len(first) || !w.equal(first, s[:len(first)]) {
		return false
	}
	s = s[len(first):]
	for {
		chunk, more, star := strings.Cut(rest, "*")
		if !star {
			return len(s) >= len(chunk) && w.equal(chunk, s[len(s)-len(chunk):])
		}
		i := w.index(s, chunk)
		if i < 0 {
			return false
		}
		s, rest = s[i+len(chunk):], more
	}
}

// equal reports whether chunk (no '*') matches s of the same length.
func (w Wild) equal(chunk, s string) bool {
	if !w.One || strings.IndexByte(chunk, '?') < 0 {
		return chunk == s
	}
	for i := 0; i < len(chunk); i++ {
		if chunk[i] != '?' && chunk[i] != s[i] {
			return false
		}
	}
	return true
}

// index returns the first offset in s where chunk (no '*') matches, or -1.
func (w Wild) index(s, chunk string) int {
	if !w.One || strings.IndexByte(chunk, '?') < 0 {
		return strings.Index(s, chunk)
	}
	for i := 0; i+len(chunk) <= len(s); i++ {
		if w.equal(chunk, s[i:i+len(chunk)]) {
			return i
		}
	}
	return -1
}

// ErrDoubleStar is wrapped by CompilePath for a "**" that is not a whole
// segment of a pattern with a "/" ("src/a**/b"): it would match one level
// only, as one '*' does, which a deny rule must not do silently.
var ErrDoubleStar = errors.New("** must be a whole path segment")

// Path is a compiled path glob.
type Path struct {
	segs []string
	name bool // no "/" in the pattern
}

// CompilePath compiles a path glob. A leading "./" and a trailing "/" are
// dropped. Each segment must be valid for path.Match (else the error wraps
// path.ErrBadPattern), and in a pattern with a "/", "**" must be a whole
// segment (ErrDoubleStar); in a name pattern (no "/") it is two '*'.
func CompilePath(pattern string) (Path, error) {
	p := strings.TrimPrefix(pattern, "./")
	name := strings.IndexByte(p, '/') < 0
	segs := strings.Split(strings.TrimSuffix(p, "/"), "/")
	for _, s := range segs {
		if s == "**" {
			continue
		}
		if !name && strings.Contains(s, "**") {
			return Path{}, fmt.Errorf("pattern %q: %w", pattern, ErrDoubleStar)
		}
		if _, err := path.Match(s, ""); err != nil {
			return Path{}, fmt.Errorf("pattern %q: %w", pattern, err)
		}
	}
	return Path{segs: segs, name: name && p != "**"}, nil
}

// Name reports whether the pattern has no "/" and is not "**": a pattern
// for a name rather than a path (see MatchAnySegment).
func (p Path) Name() bool { return p.name }

// Match reports whether the slash path name (a leading "./" dropped)
// matches: each segment by its pattern segment, "**" across zero or more
// segments, so "a/**" matches "a" itself too.
func (p Path) Match(name string) bool {
	name = strings.TrimPrefix(name, "./")
	// Segments play the part bytes play in Wild.Match and "**" the part of
	// '*': one backtrack point, at the last "**" seen.
	si, off := 0, 0 // next pattern segment; start of the next name segment (len+1: none left)
	starSi, starOff := -1, 0
	for off <= len(name) {
		seg, next := segmentAt(name, off)
		switch {
		case si < len(p.segs) && p.segs[si] == "**":
			if si == len(p.segs)-1 {
				return true // a last "**" matches whatever is left
			}
			starSi, starOff = si, off
			si++
		case si < len(p.segs) && matchSegment(p.segs[si], seg):
			si, off = si+1, next
		case starSi >= 0:
			_, starOff = segmentAt(name, starOff)
			si, off = starSi+1, starOff
		default:
			return false
		}
	}
	for si < len(p.segs) && p.segs[si] == "**" {
		si++
	}
	return si == len(p.segs)
}

// MatchAnySegment reports whether one segment of the slash path name
// matches the one-segment pattern p: how a pattern without a "/" applies to
// a path in gitignore, "*.md" matching "docs/guide.md" and "secrets"
// matching config/secrets/key.pem. For a pattern that is not a Name it is
// Match.
func (p Path) MatchAnySegment(name string) bool {
	if !p.name {
		return p.Match(name)
	}
	name = strings.TrimPrefix(name, "./")
	for off := 0; off <= len(name); {
		seg, next := segmentAt(name, off)
		if matchSegment(p.segs[0], seg) {
			return true
		}
		off = next
	}
	return false
}

// segmentAt returns the segment of name starting at off and the offset of
// the next one (len(name)+1 when it is the last).
func segmentAt(name string, off int) (seg string, next int) {
	if i := strings.IndexByte(name[off:], '/'); i >= 0 {
		return name[off : off+i], off + i + 1
	}
	return name[off:], len(name) + 1
}

// matchSegment matches one segment (no '/') by path.Match, through Match
// when the pattern has no '?', class or escape (the same answer, faster).
func matchSegment(pattern, seg string) bool {
	for i := 0; i < len(pattern); i++ { // not strings.ContainsAny: it builds its set on every call
		if c := pattern[i]; c == '?' || c == '[' || c == '\\' {
			ok, _ := path.Match(pattern, seg)
			return ok
		}
	}
	return Match(pattern, seg)
}
