package client_test

import (
	"context"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/provider/providertest"
	"github.com/oceancode/oceancode/agent/server/client"
	"github.com/oceancode/oceancode/agent/server/servertest"
)

// BenchmarkStream: one turn of a 500-word streamed answer (one event per
// word) sent through the real server and read back through the client's
// SSE stream; ns/op is per turn, events/op what it carried.
func BenchmarkStream(b *testing.B) {
	words := strings.TrimSpace(strings.Repeat("word ", 500))
	turns := make([]providertest.Turn, b.N)
	for i := range turns {
		turns[i] = providertest.Text(words)
	}
	l := servertest.NewLive(b, servertest.LiveOptions{Turns: turns})
	c, err := client.New(l.URL, l.Token)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	st, err := c.Create(ctx, client.CreateRequest{})
	if err != nil {
		b.Fatal(err)
	}
	s, err := c.Events(ctx, st.ID, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	events := 0
	b.ResetTimer()
	for range b.N {
		if _, err := c.Send(ctx, st.ID, "go"); err != nil {
			b.Fatal(err)
		}
		events += len(servertest.Until(b, s.Events(), s.Err, agent.EventDone))
	}
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
}
