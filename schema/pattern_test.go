package schema

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// schemaPatterns are the patterns of the embedded schemas (pattern and patternProperties).
func schemaPatterns(t testing.TB) []string {
	var out []string
	var rec func(v any)
	rec = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if p, ok := x["pattern"].(string); ok {
				out = append(out, p)
			}
			if pp, ok := x["patternProperties"].(map[string]any); ok {
				for p := range pp {
					out = append(out, p)
				}
			}
			for _, sub := range x {
				rec(sub)
			}
		case []any:
			for _, sub := range x {
				rec(sub)
			}
		}
	}
	c := load()
	for _, k := range Kinds() {
		rec(c.raw[k.ID()])
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) < 10 {
		t.Fatalf("only %d patterns in the schemas", len(out))
	}
	return out
}

// morePatterns use what the schemas do not (yet): classes, anchors, flags, repetition, alternation.
var morePatterns = []string{
	``, `a`, `^`, `$`, `^$`, `a|b`, `(?i)key|secret`, `(?i)^k\x{212A}?$`, `^\p{L}+$`, `[^\x00-\x7f]`, `\d{2,4}`,
	`^a{3}$`, `^(ab)*$`, `(a|ab)(c|bcd)(d*)`, `.`, `^.$`, `(?s)^.$`, `(?m)^b$`, `(?m)a$`, `\bword\b`, `\Bx`,
	`\Aa\z`, `a*?b`, `x+y+z+`, `^[\s\S]{0,3}$`, `[[:alpha:]]+`, `(?U)a+`, `\Q.*\E`, `^(?:[a-z]+\.)+com$`,
	`\x{FFFD}`, `^\x{10FFFF}$`, `ä+`, `(?i)Ä`, `^(permission_mode|permission|shell)([.\[].*)?$`, `a{0}`, `(a|)+b`,
}

var patternInputs = []string{
	"", "a", "b", "ab", "abc", "aaa", "abcd", "key", "KEY", "\u212aey", "k", "K", "\u212a", "secret", "x",
	"word", "a word here", "swordfish", "xy", "xxyyzz", "xyz", "\n", "a\nb", "b\na", "\xff", "a\xffb", "\ufffd",
	"\U0010ffff", "äää", "Ä", "ä", "12", "1234", "12345", "foo.bar.com", "com", "Bash(git push:*)", "Bash",
	"Bash(", "9lives", "GITHUB_TOKEN", "a=b", "http://x", "HTTPS://y", "httpx", "local/qwen3-coder", "/abs",
	"C:\\x", "C:/x", "sandbox.mode", "permission.bash[\"x\"]", "permissions", "shell", "\x00", ".*", "a.*",
	strings.Repeat("a", 70), strings.Repeat("ab", 40) + "c", strings.Repeat("0123456789abcdef", 4),
}

func checkPattern(t *testing.T, pattern, s string) {
	t.Helper()
	re, err := regexp.Compile(pattern)
	l := &lazyRegexp{src: pattern}
	if lerr := l.compile(); (err == nil) != (lerr == nil) || err != nil && err.Error() != lerr.Error() {
		t.Fatalf("compile %q: %v, regexp: %v", pattern, lerr, err)
	}
	if err != nil {
		if l.MatchString(s) {
			t.Fatalf("%q does not compile but matches %q", pattern, s)
		}
		return
	}
	if got, want := l.MatchString(s), re.MatchString(s); got != want {
		t.Fatalf("%q.MatchString(%q) = %v, regexp says %v", pattern, s, got, want)
	}
}

func TestPatternMatchesRegexp(t *testing.T) {
	patterns := append(schemaPatterns(t), morePatterns...)
	inputs := slices.Clone(patternInputs)
	// Strings made of the pieces the patterns care about.
	pieces := []string{"a", "b", "A", "_", "0", "9", "/", ".", "[", "(", ")", "=", ":", "-", " ", "\n", "é", "\xff", "\u212a", "permission", "http", "s", "://", "\"", "*"}
	rng := rand.New(rand.NewPCG(9, 10))
	for range 400 {
		var b strings.Builder
		for range rng.IntN(8) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		inputs = append(inputs, b.String())
	}
	for _, p := range patterns {
		for _, s := range inputs {
			checkPattern(t, p, s)
		}
	}
	for _, p := range []string{`(`, `[`, `a**`, `\8`, `(?P<x>a)(?P<x>b)`, `x{1001}`} {
		checkPattern(t, p, "a")
	}
}

// FuzzPatternMatch holds the pattern matcher to regexp.MatchString.
func FuzzPatternMatch(f *testing.F) {
	for _, p := range append(schemaPatterns(f), morePatterns...) {
		f.Add(p, "Bash(git push:*)")
		f.Add(p, "a\xff\n\u212a")
	}
	f.Fuzz(func(t *testing.T, pattern, s string) {
		if len(pattern) > 200 || len(s) > 1000 {
			return
		}
		checkPattern(t, pattern, s)
	})
}
