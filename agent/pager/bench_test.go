package pager

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/message"
	"github.com/oceancode/oceancode/agent/runner"
	"github.com/oceancode/oceancode/agent/session"
)

// Figures (docs/pager.md): go test -run '^$' -bench . -benchtime=20x ./agent/pager/

// BenchmarkFirstFrame: from Run's start to the first frame (the status
// line) written to Out. Target ≤ 50 ms.
func BenchmarkFirstFrame(b *testing.B) {
	f := newFixture(b)
	_, eng := f.start("")
	var total time.Duration
	for b.Loop() {
		start := time.Now()
		p := startProgramB(b, eng)
		p.out.waitFor(b, "0 tokens")
		total += time.Since(start)
		p.stop(b)
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/first-frame")
}

// pacedEngine is a real engine whose events reach the pager at a fixed
// rate of text deltas (the scripted model streams as fast as it can).
type pacedEngine struct {
	Engine
	every time.Duration
}

func (p pacedEngine) Subscribe(ctx context.Context, after int64) (Stream, error) {
	st, err := p.Engine.Subscribe(ctx, after)
	if err != nil {
		return nil, err
	}
	out := &pacedStream{Stream: st, c: make(chan runner.Event)}
	go func() {
		defer close(out.c)
		t := time.NewTicker(p.every)
		defer t.Stop()
		for ev := range st.Events() {
			if ev.Event.Type == agent.EventText {
				<-t.C
			}
			select {
			case out.c <- ev:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, nil
}

type pacedStream struct {
	Stream
	c chan runner.Event
}

func (p *pacedStream) Events() <-chan runner.Event { return p.c }

// longAnswer is n words in paragraphs of 40.
func longAnswer(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "word%d", i)
		switch {
		case i == n:
		case i%40 == 0:
			b.WriteString("\n\n")
		default:
			b.WriteString(" ")
		}
	}
	return b.String()
}

type benchProgram struct {
	*program
	cancel context.CancelFunc
}

func startProgramB(b *testing.B, eng Engine) *benchProgram {
	ctx, cancel := context.WithCancel(context.Background())
	inR, inW := io.Pipe()
	p := &program{in: inW, out: newSyncBuffer(), done: make(chan error, 1)}
	go func() {
		p.done <- Run(ctx, Options{Engine: eng, In: inR, Out: p.out, Width: 100, Height: 30, Dark: true})
	}()
	return &benchProgram{program: p, cancel: cancel}
}

func (p *benchProgram) stop(b *testing.B) {
	p.cancel()
	p.in.Close()
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		b.Fatal("Run did not end")
	}
}

// BenchmarkStreaming: an answer streamed at 200 tokens/s. Reported: the
// keypress → frame p99 (Shift+Tab pressed about every 100 ms, cycling
// default → acceptEdits → plan → default; the frame is the first write to
// Out showing the new mode; target ≤ 16 ms), and the bytes written to Out
// per streamed token, overall and over the answer's last quarter (equal
// when repaints do not grow with the answer).
func BenchmarkStreaming(b *testing.B) {
	const words = 1200
	shows := []string{"auto (acceptEdits) · ", "plan · ", "default · "} // what the cell diff writes of the status line
	var lat []time.Duration
	var bytesAll, bytesLate, tokAll, tokLate float64
	for b.Loop() {
		f := newFixture(b, answer(longAnswer(words)))
		s, eng := f.start("")
		p := startProgramB(b, pacedEngine{Engine: eng, every: 5 * time.Millisecond})
		p.out.waitFor(b, "0 tokens")
		base := p.out.Len()
		if err := s.Send("go"); err != nil {
			b.Fatal(err)
		}
		p.out.waitFor(b, "word10 ")
		for i := 0; !strings.Contains(plain(p.out.String()), "end_turn"); i++ {
			p.out.mu.Lock()
			from := len(p.out.writes)
			p.out.mu.Unlock()
			t0 := time.Now()
			io.WriteString(p.in, "\x1b[Z") // Shift+Tab
			d, ok := p.out.firstWriteWith(from, shows[i%3], 5*time.Second)
			if !ok {
				b.Fatalf("no frame showed %q after Shift+Tab", shows[i%3])
			}
			lat = append(lat, d.Sub(t0))
			time.Sleep(100 * time.Millisecond)
		}
		out := p.out.String()
		n := len(out)
		bytesAll += float64(n - base)
		tokAll += words
		if at := strings.Index(out, fmt.Sprintf("word%d ", words*3/4)); at > 0 {
			bytesLate += float64(n - at)
			tokLate += words / 4
		}
		p.stop(b)
	}
	slices.Sort(lat)
	if len(lat) > 0 {
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "ms-p99/keypress")
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "ms-p50/keypress")
		b.ReportMetric(float64(len(lat)), "keypresses")
	}
	b.ReportMetric(bytesAll/tokAll, "bytes/token")
	if tokLate > 0 {
		b.ReportMetric(bytesLate/tokLate, "bytes/token-last-quarter")
	}
}

// firstWriteWith is when the first write after index from whose text (the
// writes concatenated, styles and cursor moves stripped) contains want.
func (s *syncBuffer) firstWriteWith(from int, want string, limit time.Duration) (time.Time, bool) {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		s.mu.Lock()
		all := s.b.Bytes()
		off := 0
		for _, n := range s.sizes[:from] {
			off += n
		}
		acc := ""
		for i := from; i < len(s.writes); i++ {
			acc += string(all[off : off+s.sizes[i]])
			off += s.sizes[i]
			if strings.Contains(plain(acc), want) {
				at := s.writes[i]
				s.mu.Unlock()
				return at, true
			}
		}
		s.mu.Unlock()
		time.Sleep(time.Millisecond)
	}
	return time.Time{}, false
}

// BenchmarkSession2000: heap in use after a resumed 2,000-message session
// replayed into the pager (target ≤ 40 MiB).
func BenchmarkSession2000(b *testing.B) {
	f := newFixture(b)
	ctx := context.Background()
	rec, err := f.store.Create(ctx, session.Meta{Agent: "build", Model: "claude-test", Mode: "default", Cwd: f.dir})
	if err != nil {
		b.Fatal(err)
	}
	var evs []session.Event
	add := func(e agent.Event) {
		data, err := json.Marshal(e)
		if err != nil {
			b.Fatal(err)
		}
		evs = append(evs, session.Event{Seq: int64(len(evs) + 1), Type: string(e.Type), Data: data})
	}
	reply := strings.Repeat("A reply of a typical length, with `code` and **bold** words. ", 4)
	for i := 0; i < 1000; i++ {
		prompt := fmt.Sprintf("prompt %d: please change the handler", i)
		if _, err := f.store.AppendMessage(ctx, rec.ID, message.Message{Role: message.User, Parts: []message.Part{{Type: message.Text, Text: prompt}}}); err != nil {
			b.Fatal(err)
		}
		if _, err := f.store.AppendMessage(ctx, rec.ID, message.Message{Role: message.Assistant, Parts: []message.Part{{Type: message.Text, Text: reply}}}); err != nil {
			b.Fatal(err)
		}
		add(agent.Event{Type: agent.EventStart, Text: prompt})
		add(agent.Event{Type: agent.EventText, Text: reply})
		add(agent.Event{Type: agent.EventUsage, Usage: &message.Usage{InputTokens: 1000, OutputTokens: 60}})
		add(agent.Event{Type: agent.EventDone, StopReason: "end_turn", Usage: &message.Usage{InputTokens: 1000, OutputTokens: 60}})
	}
	if err := f.store.AppendEvents(ctx, rec.ID, evs); err != nil {
		b.Fatal(err)
	}
	if err := f.store.CloseSession(ctx, rec.ID, session.Completed); err != nil {
		b.Fatal(err)
	}
	var mib float64
	for b.Loop() {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		s, eng := f.start(rec.ID)
		p := startProgramB(b, eng)
		p.out.waitFor(b, "prompt 999: please")
		p.out.waitFor(b, "1.1M tokens") // the usage events replayed
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		mib = float64(after.HeapInuse) / (1 << 20)
		p.stop(b)
		s.Close()
	}
	b.ReportMetric(mib, "MiB-heap-inuse")
}
