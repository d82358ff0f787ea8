package client

import (
	"bytes"
	"context"
	"testing"

	"github.com/oceancode/oceancode/agent/runner"
)

// FuzzRead feeds arbitrary bytes to the SSE reader: it never panics, and
// the events it delivers have increasing ids (a resync notice excepted).
func FuzzRead(f *testing.F) {
	f.Add([]byte(": stream\n\nid: 1\ndata: {\"type\":\"text\",\"text\":\"a\"}\n\nid: 2\ndata: {\"type\":\"done\"}\n\n"))
	f.Add([]byte("id: 3\ndata: {\"type\":\"resync\",\"last_seq\":3,\"text\":\"x\"}\n\ndata: {\"type\":\"lagged\",\"last_seq\":3,\"text\":\"y\"}\n\n"))
	f.Add([]byte("id:7\r\ndata:{\"type\":\"text\",\r\ndata:\"text\":\"b\"}\r\n\r\n"))
	f.Add([]byte("id: 2\ndata: {\"type\":\"text\"}\n\nid: 1\ndata: {\"type\":\"text\"}\n\nid: x\ndata: {}\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := &Stream{ch: make(chan runner.Event)}
		done := make(chan struct{})
		go func() {
			defer close(done)
			last := int64(0)
			for ev := range s.ch {
				if ev.Event.Type != EventResync && ev.Seq <= last {
					t.Errorf("seq %d after %d", ev.Seq, last)
				}
				last = ev.Seq
			}
		}()
		_, _ = s.read(context.Background(), bytes.NewReader(data), 0)
		close(s.ch)
		<-done
	})
}
