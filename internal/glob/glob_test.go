package glob

import (
	"errors"
	"path"
	"regexp"
	"strings"
	"testing"
)

func TestWild(t *testing.T) {
	one, fold := Wild{One: true}, Wild{One: true, Fold: true}
	for _, c := range []struct {
		w          Wild
		pattern, s string
		want       bool
	}{
		{Wild{}, "", "", true},
		{Wild{}, "", "a", false},
		{Wild{}, "*", "", true},
		{Wild{}, "**", "x", true},
		{Wild{}, "abc", "abc", true},
		{Wild{}, "abc", "ab", false},
		{Wild{}, "a*", "a", true},
		{Wild{}, "a*b", "axxb", true},
		{Wild{}, "a*b", "axxbx", false},
		{Wild{}, "a*b*c", "aXbYbZc", true},
		{Wild{}, "a*b*c", "abc", true},
		{Wild{}, "a*b*c", "acb", false},
		{Wild{}, "ab*ba", "aba", false}, // prefix and suffix may not overlap
		{Wild{}, "corp/*", "corp/qwen/qwen3", true},
		{Wild{}, "git * main", "git push origin main", true},
		{Wild{}, "git * main", "git main", false},
		{Wild{}, "a?", "a?", true}, // '?' literal by default
		{Wild{}, "a?", "ab", false},
		{one, "A?C", "ABC", true},
		{one, "A?C", "AC", false},
		{one, "*?", "", false},
		{one, "*_?D", "AWS_ID", true},
		{one, "??*??", "abcd", true},
		{one, "??*??", "abc", false},
		{one, "aws_*", "AWS_X", false},
		{fold, "aws_*", "AWS_X", true},
		{fold, "AWS_*", "aws_x", true},
		{fold, "a?c", "ABC", true},
	} {
		if got := c.w.Match(c.pattern, c.s); got != c.want {
			t.Errorf("%+v.Match(%q, %q) = %v, want %v", c.w, c.pattern, c.s, got, c.want)
		}
	}
}

func TestPath(t *testing.T) {
	for _, c := range []struct {
		pattern, name string
		want, any     bool // Match; MatchAnySegment
	}{
		{"**/*.go", "main.go", true, true},
		{"**/*.go", "a/b/c.go", true, true},
		{"a/**/c.go", "a/c.go", true, true},
		{"a/**/c.go", "a/x/y/c.go", true, true},
		{"a/**/c.go", "b/x/c.go", false, false},
		{"a/**", "a", true, true}, // the directory itself
		{"a/**", "a/b/c", true, true},
		{"**", "a/b/c", true, true},
		{"**", "", true, true},
		{"a/*/c", "a/b/c", true, true},
		{"a/*/c", "a/b/d/c", false, false},
		{"src/**/test/*.go", "src/test/a.go", true, true},
		{"src/**/test/*.go", "src/x/a.go", false, false},
		{"**/a/**/b", "x/a/y/a/z/b", true, true},
		{"./src/*.ts", "src/x.ts", true, true},
		{"./src/**", "./src/a.go", true, true},
		{"/tmp/**", "/tmp/x/y", true, true},
		{"/tmp/**", "/var/tmp/x", false, false},
		{"src/", "src", true, true},
		{"src/", "src/a", false, false},
		{"*.md", "README.md", true, true},
		{"*.md", "docs/guide.md", false, true},
		{"*.md", "README.mdx", false, false},
		{"secrets", "config/secrets/key.pem", false, true},
		{"[ab]?.go", "b1.go", true, true},
		{`\*.go`, "*.go", true, true},
		{`\*.go`, "x.go", false, false},
		{"a**b", "axyb", true, true}, // in a name pattern, two '*'
	} {
		p, err := CompilePath(c.pattern)
		if err != nil {
			t.Fatalf("CompilePath(%q): %v", c.pattern, err)
		}
		if got := p.Match(c.name); got != c.want {
			t.Errorf("%q.Match(%q) = %v, want %v", c.pattern, c.name, got, c.want)
		}
		if got := p.MatchAnySegment(c.name); got != c.any {
			t.Errorf("%q.MatchAnySegment(%q) = %v, want %v", c.pattern, c.name, got, c.any)
		}
	}
}

func TestCompilePath(t *testing.T) {
	for _, c := range []struct {
		pattern string
		err     error
		name    bool
	}{
		{"*.go", nil, true},
		{"a**", nil, true},
		{"**", nil, false},
		{"src/", nil, false},
		{"src/**", nil, false},
		{"src/a**/b", ErrDoubleStar, false},
		{"a**/", ErrDoubleStar, false},
		{"src/[", path.ErrBadPattern, false},
		{"[", path.ErrBadPattern, false},
	} {
		p, err := CompilePath(c.pattern)
		if !errors.Is(err, c.err) {
			t.Errorf("CompilePath(%q) error %v, want %v", c.pattern, err, c.err)
		}
		if err == nil && p.Name() != c.name {
			t.Errorf("CompilePath(%q).Name() = %v, want %v", c.pattern, p.Name(), c.name)
		}
	}
	if _, err := CompilePath("src/a**/b"); err == nil || err.Error() != `pattern "src/a**/b": ** must be a whole path segment` {
		t.Errorf("error text %v", err)
	}
}

// FuzzMatch checks Wild against the regular expression a pattern means, and
// Path against the definition of a path match (refPath).
func FuzzMatch(f *testing.F) {
	for _, s := range [][2]string{{"a*b*c", "aXbYbZc"}, {"A?C", "abc"}, {"**/*.go", "a/b.go"}, {"a/**/b", "a/b"}, {"*", ""}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, s string) {
		if len(pattern) > 64 || len(s) > 256 || !utf8(pattern) || !utf8(s) {
			return
		}
		for _, w := range []Wild{{}, {One: true}, {One: true, Fold: true}} {
			p, subj := pattern, s
			if w.Fold {
				p, subj = strings.ToUpper(p), strings.ToUpper(subj)
			}
			if !utf8(subj) || w.One && !ascii(subj) { // regexp's '.' is a rune, '?' a byte
				continue
			}
			if got, want := w.Match(pattern, s), wildRegexp(p, w.One).MatchString(subj); got != want {
				t.Errorf("%+v.Match(%q, %q) = %v, regexp says %v", w, pattern, s, got, want)
			}
		}
		cp, err := CompilePath(pattern)
		if err != nil {
			return
		}
		if got, want := cp.Match(s), refPath(pattern, s); got != want {
			t.Errorf("CompilePath(%q).Match(%q) = %v, the definition says %v", pattern, s, got, want)
		}
	})
}

func wildRegexp(pattern string, one bool) *regexp.Regexp {
	parts := strings.Split(pattern, "*")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
		if one {
			parts[i] = strings.ReplaceAll(parts[i], `\?`, ".")
		}
	}
	return regexp.MustCompile(`(?s)\A` + strings.Join(parts, ".*") + `\z`)
}

// refPath is the definition of a path match, by dynamic programming over
// the segments: ok[j] when the pattern so far matches the first j segments.
func refPath(pattern, name string) bool {
	p := strings.TrimPrefix(pattern, "./")
	p = strings.TrimSuffix(p, "/")
	parts := strings.Split(strings.TrimPrefix(name, "./"), "/")
	ok := make([]bool, len(parts)+1)
	ok[0] = true
	for _, s := range strings.Split(p, "/") {
		next := make([]bool, len(parts)+1)
		for j := range next {
			switch {
			case s == "**":
				next[j] = ok[j] || j > 0 && next[j-1]
			case j > 0 && ok[j-1]:
				next[j], _ = path.Match(s, parts[j-1])
			}
		}
		ok = next
	}
	return ok[len(parts)]
}

func utf8(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
