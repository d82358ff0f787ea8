package pager

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is Out for a test: what the program wrote, safe to read while
// it writes; each write is timestamped (the benchmarks measure with it).
type syncBuffer struct {
	mu     sync.Mutex
	b      bytes.Buffer
	writes []time.Time
	sizes  []int
	notify chan struct{}
}

func newSyncBuffer() *syncBuffer { return &syncBuffer{notify: make(chan struct{}, 1)} }

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	s.b.Write(p)
	s.writes = append(s.writes, time.Now())
	s.sizes = append(s.sizes, len(p))
	s.mu.Unlock()
	select {
	case s.notify <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func (s *syncBuffer) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Len()
}

// waitFor waits until the output, without styles, contains want.
func (s *syncBuffer) waitFor(t testing.TB, want string) {
	t.Helper()
	deadline := time.After(2 * time.Minute) // a hang guard
	// Only the output not yet searched (and a margin for a match across
	// the boundary) is searched again: a replayed session writes
	// megabytes, and stripping all of it every 20 ms would be quadratic.
	from := 0
	for {
		out := s.String()
		start := max(0, from-4096-len(want))
		if strings.Contains(plain(out[start:]), want) {
			return
		}
		from = len(out)
		select {
		case <-s.notify:
		case <-time.After(20 * time.Millisecond):
		case <-deadline:
			out := plain(s.String())
			t.Fatalf("the terminal never showed %q; it has (the last 4 KB):\n%s", want, out[max(0, len(out)-4096):])
		}
	}
}

// program is Run on pipes at a fixed size.
type program struct {
	in   *io.PipeWriter
	out  *syncBuffer
	done chan error
}

func startProgram(t testing.TB, eng Engine, w, h int) *program {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	inR, inW := io.Pipe()
	p := &program{in: inW, out: newSyncBuffer(), done: make(chan error, 1)}
	go func() { p.done <- Run(ctx, Options{Engine: eng, In: inR, Out: p.out, Width: w, Height: h, Dark: true}) }()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		select {
		case <-p.done:
		case <-time.After(2 * time.Minute): // a hang guard
			t.Error("Run did not return after its context ended")
		}
	})
	return p
}

// TestRun drives the whole program through pipes: the first frame, a
// prompt whose streamed answer lands in Out, Shift+Tab and Ctrl+O (as a
// terminal sends them) through the engine, and Ctrl+D to exit.
func TestRun(t *testing.T) {
	f := newFixture(t, answer("The streamed answer arrives word by word.\n\nAnd a second paragraph."))
	s, eng := f.start("")
	p := startProgram(t, eng, 80, 24)
	p.out.waitFor(t, "claude-test · build · default")
	io.WriteString(p.in, "tell me\r")
	p.out.waitFor(t, "The streamed answer arrives word by word.")
	p.out.waitFor(t, "And a second paragraph.")
	p.out.waitFor(t, "─ end_turn")
	io.WriteString(p.in, "\x1b[Z") // Shift+Tab
	p.out.waitFor(t, "auto (acceptEdits)")
	if got := s.Mode().Mode; got != "acceptEdits" {
		t.Errorf("engine mode %s", got)
	}
	io.WriteString(p.in, "\x0f") // Ctrl+O
	p.out.waitFor(t, "always-approve (bypassPermissions)")
	if got := s.Mode().Mode; got != "bypassPermissions" {
		t.Errorf("engine mode after Ctrl+O: %s", got)
	}
	io.WriteString(p.in, "\x04") // Ctrl+D
	select {
	case err := <-p.done:
		if err != nil {
			t.Errorf("Run: %v", err)
		}
		p.done <- nil
	case <-time.After(2 * time.Minute): // a hang guard
		t.Fatal("Ctrl+D did not end Run")
	}
	if s.State().Status == "closed" {
		t.Error("Run closed the caller's engine")
	}
	if strings.Contains(p.out.String(), "\x1b[?1049h") {
		t.Error("the pager switched to the alternate screen")
	}
}

// TestRunContextEnd: Run returns nil when its context ends, and says so
// when it has no engine.
func TestRunContextEnd(t *testing.T) {
	f := newFixture(t)
	_, eng := f.start("")
	ctx, cancel := context.WithCancel(context.Background())
	inR, inW := io.Pipe()
	defer inW.Close()
	out := newSyncBuffer()
	done := make(chan error, 1)
	go func() { done <- Run(ctx, Options{Engine: eng, In: inR, Out: out, Width: 80, Height: 24}) }()
	out.waitFor(t, "0 tokens")
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run after its context ended: %v", err)
		}
	case <-time.After(2 * time.Minute): // a hang guard
		t.Fatal("Run did not return")
	}
	if err := Run(context.Background(), Options{}); err == nil || !strings.Contains(err.Error(), "no engine") {
		t.Errorf("Run without an engine: %v", err)
	}
}
