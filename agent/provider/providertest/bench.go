package providertest

import (
	"context"
	"testing"

	"github.com/oceancode/oceancode/agent/message"
	"github.com/oceancode/oceancode/agent/provider"
)

// BenchTurn measures one streamed turn with one tool call against a
// loopback server (request build, SSE decode, tool input assembly) for the
// provider newProvider builds on the server's root URL. Both vendors'
// benchmarks run it, so their figures compare like for like.
func BenchTurn(b *testing.B, model string, newProvider func(rootURL string) provider.Provider) {
	srv := NewScript(b, Script{Loop: true, Turns: []Turn{{
		Text:      "I'll run that for you.",
		ToolCalls: []ToolCall{{Name: "bash", Input: []byte(`{"command":"echo hello > out.txt && cat out.txt"}`)}},
	}}})
	p := newProvider(srv.URL())
	req := provider.Request{
		Model:    model,
		System:   "You are a coding agent.",
		Messages: []message.Message{message.UserText("Run the shell command: echo hello > out.txt && cat out.txt")},
		Tools:    []provider.ToolDef{{Name: "bash", Description: "Run a shell command.", InputSchema: []byte(`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`)}},
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		resp, err := p.Stream(ctx, req, func(provider.Event) {})
		if err != nil {
			b.Fatal(err)
		}
		if len(resp.Message.ToolCalls()) != 1 {
			b.Fatal("no tool call")
		}
	}
	b.StopTimer()
	reqs := srv.Requests()
	b.ReportMetric(float64(len(reqs[len(reqs)-1].Body)), "req-bytes")
}
