package pager

import (
	"strings"
	"testing"
)

// BenchmarkPush: one delta into a paragraph of up to 40 words (the tail
// re-render).
func BenchmarkPush(b *testing.B) {
	s := newMDStream(100, true)
	words := strings.Fields(longAnswer(4000))
	i := 0
	for b.Loop() {
		d := words[i%len(words)] + " "
		if i%40 == 39 {
			d += "\n\n"
		}
		s.Push(d)
		s.View() // shown after each delta
		i++
	}
}

func TestSafeBoundary(t *testing.T) {
	tests := []struct {
		md   string
		want int
	}{
		{"", 0},
		{"one paragraph", 0},
		{"one\n", 0},
		{"one\n\ntwo", 5},
		{"one\n\ntwo\n\nthree", 10},
		{"```\ncode\n\nmore\n", 0},           // a blank line in a fence is not a boundary
		{"```go\ncode\n\n```\n\nafter", 17},  // after the fence closes it is
		{"~~~\na\n\n~~~\n\n", 12},            // tildes too
		{"```\na\n~~~\n\nb", 0},              // a different fence does not close it
		{"text\n   \nnext", 9},               // whitespace-only counts as blank
		{"````\na\n```\n\nb\n````\n\nc", 20}, // a longer fence closes only with as many
	}
	for _, tt := range tests {
		if got := safeBoundary(tt.md); got != tt.want {
			t.Errorf("safeBoundary(%q) = %d, want %d", tt.md, got, tt.want)
		}
	}
}

// TestPushCommitsOnce: every block is committed once, in order, and the
// tail holds only the unfinished block.
func TestPushCommitsOnce(t *testing.T) {
	s := newMDStream(80, false)
	var committed []string
	md := longAnswer(200)
	for _, w := range strings.SplitAfter(md, " ") {
		if c := s.Push(w); c != "" {
			committed = append(committed, plain(c))
		}
		if strings.Count(plain(s.View()), "word") > 41 {
			t.Fatalf("the tail holds more than a block: %q", plain(s.View()))
		}
	}
	committed = append(committed, plain(s.Flush()))
	got := strings.Fields(strings.Join(committed, " "))
	if want := strings.Fields(md); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("committed %d words, want %d", len(got), len(want))
	}
	if s.Active() || s.View() != "" {
		t.Error("Flush left a tail")
	}
}

// FuzzSafeBoundary: the boundary is 0 or just after a newline, and the
// text before it has every fence closed.
func FuzzSafeBoundary(f *testing.F) {
	for _, s := range []string{"a\n\nb", "```\n\n```\n\n", "~~~~\n~~~\n\n", "x\n \n", "\n\n\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, md string) {
		b := safeBoundary(md)
		if b < 0 || b > len(md) || (b > 0 && md[b-1] != '\n') {
			t.Fatalf("boundary %d in %q", b, md)
		}
		if b > 0 && safeBoundary(md[:b]) != b {
			t.Fatalf("the prefix's own boundary differs: %q", md[:b])
		}
	})
}
