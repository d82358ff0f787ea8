package session

import (
	"encoding/json"
	"testing"
)

// BenchmarkEncodeMessage: the stored form of a typical assistant message
// written by appendMessage, against encoding/json's message.Message JSON
// (docs/startup.md; the stored form is lossless where encoding/json's is
// not: raw tool input bytes, strings that are not UTF-8).
func BenchmarkEncodeMessage(b *testing.B) {
	m := childMessage(1)
	b.Run("hand", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			buf = appendMessage(buf[:0], m)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(m); err != nil {
				b.Fatal(err)
			}
		}
	})
}
