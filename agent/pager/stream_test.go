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
		i++
	}
}
