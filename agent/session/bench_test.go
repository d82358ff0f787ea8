package session

import (
	"context"
	"path/filepath"
	"testing"
)

// BenchmarkAppendMessage: one committed append of a typical assistant
// message (text and a tool call).
func BenchmarkAppendMessage(b *testing.B) {
	s := openStore(b)
	ctx := context.Background()
	ss := newSession(b, s)
	m := childMessage(1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.AppendMessage(ctx, ss.ID, m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpen: opening an existing, migrated database with a few
// sessions, as every command does on start.
func BenchmarkOpen(b *testing.B) {
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "sessions.db")
	s, err := Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		ss := newSession(b, s)
		for j := 1; j <= 10; j++ {
			s.AppendMessage(ctx, ss.ID, childMessage(j))
		}
	}
	s.Close()
	b.ReportAllocs()
	for b.Loop() {
		s, err := Open(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer() // closing happens at exit, off the start path
		s.Close()
		b.StartTimer()
	}
}

// BenchmarkMessages: reading back a 50-message session, as a resume does.
func BenchmarkMessages(b *testing.B) {
	s := openStore(b)
	ctx := context.Background()
	ss := newSession(b, s)
	for j := 1; j <= 50; j++ {
		s.AppendMessage(ctx, ss.ID, childMessage(j))
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Messages(ctx, ss.ID); err != nil {
			b.Fatal(err)
		}
	}
}
