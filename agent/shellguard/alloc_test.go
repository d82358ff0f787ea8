package shellguard

import (
	"strings"
	"testing"
	"unsafe"
)

// minAllocs is the fewest allocations f makes in one run out of several:
// the sync.Pool of parsers may drop its parser (at a GC, or at random under
// the race detector), which costs allocations that are not f's.
func minAllocs(f func()) float64 {
	m := testing.AllocsPerRun(1, f)
	for range 20 {
		m = min(m, testing.AllocsPerRun(1, f))
	}
	return m
}

// TestClassifyAllocs: for a typical command the guard adds at most two
// allocations to the parser's (the walker, which holds the result's
// segments and their words, and the deciding segment's reason, which the
// command's reason shares), so the per-call cost cannot creep up unnoticed.
func TestClassifyAllocs(t *testing.T) {
	const cmd = "git status && go test ./... 2>&1 | tail -n 20"
	parsed := minAllocs(func() { parse(cmd) })
	for _, cfg := range []Config{
		{ProjectRoot: "/home/u/proj", Home: "/home/u"},
		{ProjectRoot: "/home/u/proj", Home: "/home/u", Allow: []Rule{{Pattern: "go test:*"}}, Deny: []Rule{{Pattern: "git push:*"}}},
		{ProjectRoot: "/home/u/proj", Home: "/home/u", Deny: []Rule{{Pattern: "go test:*"}}},
	} {
		c := newTest(t, cfg)
		classified := minAllocs(func() { c.Classify(cmd, "") })
		if own := classified - parsed; own > 2 {
			t.Errorf("with %+v: Classify makes %v allocations, parsing %v: the guard adds %v, want at most 2", cfg, classified, parsed, own)
		}
	}
}

// TestWalkerSize: the walker (one allocation per Classify, holding the
// result's first segments and their words) stays within the runtime's
// 1408-byte size class; a field that pushes it over makes every call zero
// and collect 1536 bytes or more instead (it was 2688 once).
func TestWalkerSize(t *testing.T) {
	if n := unsafe.Sizeof(walker{}); n > 1408 {
		t.Errorf("walker is %d bytes, want at most 1408", n)
	}
}

// TestRuleReasonQuotes: ruleReason quotes the words exactly as quoting
// their joined text would, including where the text is cut.
func TestRuleReasonQuotes(t *testing.T) {
	var cases [][]string
	for n := maxQuoted - 4; n <= maxQuoted+4; n++ {
		cases = append(cases,
			[]string{strings.Repeat("a", n)},
			[]string{strings.Repeat("a", n), "b"},
			[]string{strings.Repeat("a", n-1), "b", "c"},
			[]string{"x", strings.Repeat(`"`, n-2), ""},
			[]string{strings.Repeat("a", n), "", "\n\x01"},
		)
	}
	cases = append(cases, nil, []string{""}, []string{"", ""}, []string{"go", "test", "./..."}, []string{`a"b`, `c\d`, "e\tf"})
	for _, argv := range cases {
		for _, pat := range []string{"", "go test:*", strings.Repeat(`\`, maxQuoted+1)} {
			want := "allow: " + quote(strings.Join(argv, " ")) + " matches shell.allow rule " + quote(pat) + " (segment 2 of 3)"
			if got := ruleReason("allow: ", argv, " matches shell.allow rule ", pat, " (segment 2 of 3)"); got != want {
				t.Errorf("ruleReason(%q, %q)\n got %q\nwant %q", argv, pat, got, want)
			}
		}
	}
}

// TestWordStackCleared: the word stack Classify puts back in the pool holds
// no words (no syntax trees or values kept alive), whether its words were
// popped, left on it, or outgrew it into a larger array.
func TestWordStackCleared(t *testing.T) {
	c := newTest(t, Config{ProjectRoot: "/home/u/proj", Home: "/home/u"})
	for _, cmd := range []string{
		"git status && go test ./... 2>&1 | tail -n 20",
		"echo " + strings.Repeat("word ", 40),
		`bash -c "$(printf '\x72\x6d -rf /')" ; echo cm0gLXJmIC8= | base64 -d | sh`,
		"a=(one two three) ; f() { echo \"$@\" ; } ; f ${a[@]} x y z",
		"if true; then",
	} {
		c.Classify(cmd, "")
		ws := wordStacks.Get().(*wordStack)
		for i := range ws {
			if ws[i] != (word{}) {
				t.Errorf("after Classify(%q): pooled word stack[%d] = %+v, want it cleared", cmd, i, ws[i])
				break
			}
		}
		wordStacks.Put(ws)
	}
}
