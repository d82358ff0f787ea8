package agent_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/compact"
	"github.com/oceancode/oceancode/agent/message"
	"github.com/oceancode/oceancode/agent/modelinfo"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/provider"
	"github.com/oceancode/oceancode/agent/provider/anthropic"
	"github.com/oceancode/oceancode/agent/provider/providertest"
)

// BenchmarkTurnWithoutCompaction is one turn (a prompt and its answer from
// the loopback model) continuing a 200-message history: "baseline" without
// a window or a price, "accounted" with both (the estimate, the meter and
// the cost run; the request stays under the threshold, so nothing is
// compacted). Both in the same run: the difference is what a turn that
// does not compact pays.
func BenchmarkTurnWithoutCompaction(b *testing.B) {
	var history []message.Message
	for i := range 100 {
		history = append(history, message.UserText(fmt.Sprintf("question %d about the code", i)),
			message.Message{Role: message.Assistant, Parts: []message.Part{{Type: message.Text, Text: "an answer of a few words"}}})
	}
	for _, on := range []bool{false, true} {
		name := "baseline"
		if on {
			name = "accounted"
		}
		b.Run(name, func(b *testing.B) {
			c, _, _ := setup(b, permission.Config{})
			srv := providertest.NewScript(b, providertest.Script{Turns: []providertest.Turn{providertest.Text("ok")}, Loop: true})
			c.Provider = anthropicFor(b, srv)
			if on {
				c.Compaction = compact.Settings{Window: 200_000}
				c.Price = &modelinfo.Price{Input: 3, Output: 15}
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := agent.Run(context.Background(), c, history, "next"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func anthropicFor(b *testing.B, srv *providertest.Server) provider.Provider {
	p, err := anthropic.New(provider.Config{Type: "anthropic", BaseURL: srv.AnthropicURL(), APIKey: providertest.APIKey, Stream: true})
	if err != nil {
		b.Fatal(err)
	}
	return p
}
