package runner_test

import (
	"context"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/provider/providertest"
	"github.com/oceancode/oceancode/agent/runner"
)

// BenchmarkEmitToSubscriber: the time from the turn loop emitting an event
// (its Time stamp) to a subscriber receiving it, over the text deltas of
// streamed answers from the loopback model; p50 and p99 in µs, with a
// second subscriber attached and the session recorded in SQLite.
func BenchmarkEmitToSubscriber(b *testing.B) {
	b.Run("recorded", func(b *testing.B) { benchEmit(b, true) })
	b.Run("unrecorded", func(b *testing.B) { benchEmit(b, false) })
	b.Run("one-at-a-time", benchHop)
}

// benchHop: one event at a time (a live mode switch's mode_change), so the
// figure is the hop itself, without a backlog of streamed deltas.
func benchHop(b *testing.B) {
	f := newFixture(b)
	s, err := runner.Start(context.Background(), f.options())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	u, err := s.Subscribe(0)
	if err != nil {
		b.Fatal(err)
	}
	modes := []permission.Mode{permission.AcceptEdits, permission.Default}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.SetMode(modes[i%2]); err != nil {
			b.Fatal(err)
		}
		ev := <-u.C()
		lat = append(lat, time.Since(ev.Event.Time))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1e3, "p99-µs")
}

func benchEmit(b *testing.B, recorded bool) {
	const words = 200
	f := newFixture(b)
	o := f.options()
	if !recorded {
		o.Store = nil
	}
	s, err := runner.Start(context.Background(), o)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	other, _ := s.Subscribe(0)
	go func() {
		for range other.C() {
		}
	}()
	u, err := s.Subscribe(s.LastSeq())
	if err != nil {
		b.Fatal(err)
	}
	var lat []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f.srv.Add(providertest.Text(strings.Repeat("word ", words)))
		if err := s.Send("go"); err != nil {
			b.Fatal(err)
		}
		for {
			ev := <-u.C()
			if ev.Event.Type == agent.EventText {
				lat = append(lat, time.Since(ev.Event.Time))
			}
			if ev.Event.Type == agent.EventDone {
				break
			}
		}
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1e3, "p99-µs")
}

// BenchmarkSessionMemory: the heap and the goroutines one idle recorded
// session holds after one turn (its history, ring of events, buffers), over
// 50 sessions sharing one model client and one store.
func BenchmarkSessionMemory(b *testing.B) {
	const n = 50
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		f := newFixture(b)
		for j := 0; j < n; j++ {
			f.srv.Add(providertest.Text(strings.Repeat("word ", 50)))
		}
		o := f.options()
		warm, _ := runner.Start(context.Background(), o) // the model client's connection, the store's statements
		f.srv.Add(providertest.Text("warm"))
		warm.Run(context.Background(), "go")
		warm.Close()
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		g0 := runtime.NumGoroutine()
		b.StartTimer()
		var ss []*runner.Session
		for j := 0; j < n; j++ {
			s, err := runner.Start(context.Background(), o)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := s.Run(context.Background(), "go"); err != nil {
				b.Fatal(err)
			}
			ss = append(ss, s)
		}
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n/1024, "KiB/session")
		b.ReportMetric(float64(runtime.NumGoroutine()-g0)/n, "goroutines/session")
		for _, s := range ss {
			s.Close()
		}
	}
}
