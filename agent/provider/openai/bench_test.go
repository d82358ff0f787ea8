package openai_test

import (
	"context"
	"testing"

	"github.com/oceancode/oceancode/agent/message"
	"github.com/oceancode/oceancode/agent/provider"
	"github.com/oceancode/oceancode/agent/provider/providertest"
)

// BenchmarkOpenAITurn is one streamed turn with one tool call against the
// loopback server: request build, SSE decode, tool input assembly.
func BenchmarkOpenAITurn(b *testing.B) {
	srv := providertest.NewScript(b, providertest.Script{Loop: true, Turns: []providertest.Turn{{
		Text:      "I'll run that for you.",
		ToolCalls: []providertest.ToolCall{{Name: "bash", Input: []byte(`{"command":"echo hello > out.txt && cat out.txt"}`)}},
	}}})
	c := newClient(b, provider.Config{BaseURL: srv.OpenAIURL(), Stream: true})
	req := provider.Request{
		Model:    "qwen3-coder",
		System:   "You are a coding agent.",
		Messages: []message.Message{message.UserText("Run the shell command: echo hello > out.txt && cat out.txt")},
		Tools:    []provider.ToolDef{{Name: "bash", Description: "Run a shell command.", InputSchema: []byte(`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`)}},
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		resp, err := c.Stream(ctx, req, func(provider.Event) {})
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
