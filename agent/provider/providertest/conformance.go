package providertest

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/oceancode/oceancode/agent/message"
	"github.com/oceancode/oceancode/agent/provider"
)

// RunConformance is the suite every provider passes, once streaming and once
// not. newProvider gets the server's root URL (routing is by path suffix, so
// an OpenAI client may append /v1) and must configure the provider with an
// API key (APIKey will do) and a short RetryBackoff, so the retry cases stay
// quick. The suite learns which wire format the provider speaks from its
// first request.
func RunConformance(t *testing.T, newProvider func(baseURL string, stream bool) provider.Provider) {
	for _, mode := range []struct {
		name   string
		stream bool
	}{{"stream", true}, {"nonstream", false}} {
		t.Run(mode.name, func(t *testing.T) {
			for _, c := range conformanceCases {
				t.Run(c.name, func(t *testing.T) {
					c.run(t, func(srv *Server) provider.Provider { return newProvider(srv.URL(), mode.stream) }, mode.stream)
				})
			}
		})
	}
}

type conformanceCase struct {
	name string
	run  func(t *testing.T, mk func(*Server) provider.Provider, stream bool)
}

// recorder collects the events of one call.
type recorder struct {
	mu     sync.Mutex
	events []provider.Event
}

func (r *recorder) on(ev provider.Event) {
	r.mu.Lock()
	r.events = append(r.events, ev)
	r.mu.Unlock()
}

func (r *recorder) text() string {
	var b strings.Builder
	for _, ev := range r.events {
		if ev.Type == provider.TextDelta {
			b.WriteString(ev.Text)
		}
	}
	return b.String()
}

func (r *recorder) of(typ provider.EventType) []provider.Event {
	var out []provider.Event
	for _, ev := range r.events {
		if ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}

var bashTool = provider.ToolDef{
	Name:        "bash",
	Description: "Run a shell command.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`),
}

func baseRequest(prompt string) provider.Request {
	return provider.Request{
		Model:    "test-model",
		System:   "You are a test.",
		Messages: []message.Message{message.UserText(prompt)},
		Tools:    []provider.ToolDef{bashTool},
	}
}

// sameJSON reports whether a and b are the same JSON value.
func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

func call(t *testing.T, p provider.Provider, req provider.Request) (provider.Response, *recorder, error) {
	t.Helper()
	rec := &recorder{}
	resp, err := p.Stream(context.Background(), req, rec.on)
	return resp, rec, err
}

func mustCall(t *testing.T, p provider.Provider, req provider.Request) (provider.Response, *recorder) {
	t.Helper()
	resp, rec, err := call(t, p, req)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	return resp, rec
}

func checkCalls(t *testing.T, got []message.ToolCall, want []ToolCall) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d tool calls, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i].ID != want[i].ID || got[i].Name != want[i].Name || !sameJSON(got[i].Input, want[i].Input) {
			t.Errorf("tool call %d = {%s %s %s}, want {%s %s %s}", i, got[i].ID, got[i].Name, got[i].Input,
				want[i].ID, want[i].Name, want[i].Input)
		}
	}
}

func eventCalls(rec *recorder) []message.ToolCall {
	var out []message.ToolCall
	for _, ev := range rec.of(provider.ToolCall) {
		if ev.ToolCall != nil {
			out = append(out, *ev.ToolCall)
		}
	}
	return out
}

var conformanceCases = []conformanceCase{
	{"text", func(t *testing.T, mk func(*Server) provider.Provider, stream bool) {
		const answer = "Hello there, this is a plain answer."
		srv := New(t, Text(answer))
		resp, rec := mustCall(t, mk(srv), baseRequest("say hello"))
		if got := resp.Message.TextOf(); got != answer {
			t.Errorf("response text = %q, want %q", got, answer)
		}
		if got := rec.text(); got != answer {
			t.Errorf("text deltas = %q, want %q", got, answer)
		}
		if stream && len(rec.of(provider.TextDelta)) < 2 {
			t.Errorf("streamed text came in %d deltas, want one per word", len(rec.of(provider.TextDelta)))
		}
		if resp.Message.Role != message.Assistant || resp.StopReason != "end_turn" {
			t.Errorf("role %q stop %q, want assistant end_turn", resp.Message.Role, resp.StopReason)
		}
		reqs := srv.Requests()
		if len(reqs) != 1 {
			t.Fatalf("%d requests, want exactly 1 (no side requests)", len(reqs))
		}
		r := reqs[0]
		if r.Stream != stream || r.Model != "test-model" || r.System != "You are a test." {
			t.Errorf("request stream=%t model=%q system=%q", r.Stream, r.Model, r.System)
		}
		if len(r.Messages) != 1 || r.Messages[0].TextOf() != "say hello" {
			t.Errorf("request messages = %+v", r.Messages)
		}
		if len(r.Tools) != 1 || r.Tools[0] != "bash" {
			t.Errorf("request tools = %v", r.Tools)
		}
		if !strings.Contains(string(r.Body), `"required":["command"]`) {
			t.Errorf("tool schema not sent as given: %s", r.Body)
		}
	}},
	{"tool_call", func(t *testing.T, mk func(*Server) provider.Provider, stream bool) {
		want := []ToolCall{{ID: "toolu_a1", Name: "bash", Input: json.RawMessage(`{"command":"echo hello > out.txt && cat out.txt","note":"ünïcödé ✓"}`)}}
		srv := New(t, Turn{Text: "Running it.", ToolCalls: want})
		resp, rec := mustCall(t, mk(srv), baseRequest("run it"))
		checkCalls(t, resp.Message.ToolCalls(), want)
		checkCalls(t, eventCalls(rec), want)
		if resp.StopReason != "tool_use" {
			t.Errorf("stop reason %q, want tool_use", resp.StopReason)
		}
		if resp.Message.TextOf() != "Running it." {
			t.Errorf("text %q", resp.Message.TextOf())
		}
		// The text comes before the call, in events and parts.
		if len(rec.events) == 0 || rec.events[0].Type != provider.TextDelta || rec.events[len(rec.events)-1].Type != provider.ToolCall {
			t.Errorf("events out of order: %+v", rec.events)
		}
	}},
	{"two_tool_calls", func(t *testing.T, mk func(*Server) provider.Provider, stream bool) {
		want := []ToolCall{
			{ID: "call_one", Name: "bash", Input: json.RawMessage(`{"command":"ls -la"}`)},
			{ID: "call_two", Name: "read", Input: json.RawMessage(`{"path":"go.mod","limit":20}`)},
		}
		srv := New(t, Turn{ToolCalls: want})
		resp, rec := mustCall(t, mk(srv), baseRequest("look around"))
		checkCalls(t, resp.Message.ToolCalls(), want)
		checkCalls(t, eventCalls(rec), want)
		if resp.Message.TextOf() != "" {
			t.Errorf("unexpected text %q", resp.Message.TextOf())
		}
	}},
	{"tool_result_sent_back", func(t *testing.T, mk func(*Server) provider.Provider, stream bool) {
		srv := New(t, Call("bash", map[string]string{"command": "echo hello"}), Text("done"))
		p := mk(srv)
		req := baseRequest("run echo")
		resp, _ := mustCall(t, p, req)
		calls := resp.Message.ToolCalls()
		if len(calls) != 1 {
			t.Fatalf("got %d calls", len(calls))
		}
		req.Messages = append(req.Messages, resp.Message, message.Message{Role: message.User, Parts: []message.Part{
			{Type: message.ToolOutput, ToolResult: &message.ToolResult{CallID: calls[0].ID, Content: "hello\n"}},
		}})
		resp2, _ := mustCall(t, p, req)
		if resp2.Message.TextOf() != "done" {
			t.Errorf("second answer %q", resp2.Message.TextOf())
		}
		reqs := srv.Requests()
		if len(reqs) != 2 {
			t.Fatalf("%d requests, want 2", len(reqs))
		}
		r := reqs[1]
		if len(r.Messages) != 3 {
			t.Fatalf("second request has %d messages, want 3: %+v", len(r.Messages), r.Messages)
		}
		if got := r.Messages[1].ToolCalls(); len(got) != 1 || got[0].ID != calls[0].ID || !sameJSON(got[0].Input, calls[0].Input) {
			t.Errorf("assistant tool call not sent back: %+v", r.Messages[1])
		}
		last := r.Messages[2]
		if last.Role != message.User || len(last.Parts) != 1 || last.Parts[0].ToolResult == nil ||
			last.Parts[0].ToolResult.CallID != calls[0].ID || last.Parts[0].ToolResult.Content != "hello\n" {
			t.Errorf("tool result not sent back: %+v", last)
		}
		body := string(r.Body)
		switch r.Format {
		case FormatAnthropic:
			if !strings.Contains(body, `"type":"tool_result"`) || !strings.Contains(body, `"tool_use_id":"`+calls[0].ID+`"`) {
				t.Errorf("anthropic body lacks a tool_result block: %s", body)
			}
		case FormatOpenAI:
			if !strings.Contains(body, `"role":"tool"`) || !strings.Contains(body, `"tool_call_id":"`+calls[0].ID+`"`) {
				t.Errorf("openai body lacks a tool message: %s", body)
			}
		}
	}},
	{"usage", func(t *testing.T, mk func(*Server) provider.Provider, stream bool) {
		u := message.Usage{InputTokens: 1200, OutputTokens: 34, CacheReadTokens: 800, CacheWriteTokens: 56}
		srv := New(t, Turn{Text: "ok", Usage: &u})
		resp, _ := mustCall(t, mk(srv), baseRequest("count"))
		if resp.Usage != u {
			t.Errorf("usage = %+v, want %+v", resp.Usage, u)
		}
	}},
	{"retry_429", func(t *testing.T, mk func(*Server) provider.Provider, stream bool) {
		srv := New(t, Turn{Status: 429, RetryAfter: Duration(20 * time.Millisecond), Error: "slow down"}, Text("ok"))
		resp, rec := mustCall(t, mk(srv), baseRequest("hi"))
		if resp.Message.TextOf() != "ok" {
			t.Errorf("text %q", resp.Message.TextOf())
		}
		retries := rec.of(provider.Retry)
		if len(retries) != 1 {
			t.Fatalf("%d retry events, want 1", len(retries))
		}
		var ae *provider.APIError
		if !errors.As(retries[0].Err, &ae) || ae.StatusCode != 429 {
			t.Errorf("retry event error %v, want an APIError 429", retries[0].Err)
		}
		if retries[0].Delay != 20*time.Millisecond || retries[0].Attempt != 1 {
			t.Errorf("retry attempt %d delay %v, want 1 and the server's retry-after-ms 20ms", retries[0].Attempt, retries[0].Delay)
		}
		if n := len(srv.Requests()); n != 2 {
			t.Errorf("%d requests, want 2 (one layer of retries)", n)
		}
		if rec.events[0].Type != provider.Retry {
			t.Errorf("first event %s, want retry", rec.events[0].Type)
		}
	}},
	{"retry_500", func(t *testing.T, mk func(*Server) provider.Provider, stream bool) {
		srv := New(t, Turn{Status: 500}, Text("ok"))
		resp, rec := mustCall(t, mk(srv), baseRequest("hi"))
		if resp.Message.TextOf() != "ok" {
			t.Errorf("text %q", resp.Message.TextOf())
		}
		if n := len(rec.of(provider.Retry)); n != 1 {
			t.Errorf("%d retry events, want 1", n)
		}
		if n := len(srv.Requests()); n != 2 {
			t.Errorf("%d requests, want 2", n)
		}
	}},
	{"no_retry_400", func(t *testing.T, mk func(*Server) provider.Provider, stream bool) {
		srv := New(t, Turn{Status: 400, Error: "bad request"}, Text("unreached"))
		_, rec, err := call(t, mk(srv), baseRequest("hi"))
		var ae *provider.APIError
		if !errors.As(err, &ae) || ae.StatusCode != 400 || !strings.Contains(err.Error(), "bad request") {
			t.Errorf("error %v, want an APIError 400 saying why", err)
		}
		if len(rec.of(provider.Retry)) != 0 || len(srv.Requests()) != 1 {
			t.Errorf("a 400 was retried")
		}
	}},
	{"cancel_mid_stream", func(t *testing.T, mk func(*Server) provider.Provider, stream bool) {
		srv := New(t, Turn{Text: "one two three four five", Delay: Duration(time.Hour)})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		rec := &recorder{}
		on := rec.on
		if stream {
			on = func(ev provider.Event) {
				rec.on(ev)
				if ev.Type == provider.TextDelta {
					cancel() // mid-stream: the first word has arrived
				}
			}
		} else {
			go func() {
				select {
				case <-srv.Stalled():
					cancel()
				case <-ctx.Done():
				}
			}()
		}
		_, err := mk(srv).Stream(ctx, baseRequest("hi"), on)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("error %v, want context.Canceled", err)
		}
		if stream && rec.text() != "one " {
			t.Errorf("text before the cancel = %q, want %q", rec.text(), "one ")
		}
		srv.Close() // waits for the handler: it must have seen the client go
		reqs := srv.Requests()
		if len(reqs) != 1 || !reqs[0].Interrupted {
			t.Errorf("server saw %d requests, interrupted=%t; want 1, true", len(reqs), len(reqs) == 1 && reqs[0].Interrupted)
		}
	}},
	{"stream_cut", func(t *testing.T, mk func(*Server) provider.Provider, stream bool) {
		srv := New(t, Turn{Text: "this answer is going to be cut off somewhere in the middle",
			ToolCalls: []ToolCall{{Name: "bash", Input: json.RawMessage(`{"command":"make test"}`)}}, Cut: true}, Text("unreached"))
		resp, _, err := call(t, mk(srv), baseRequest("hi"))
		if err == nil {
			t.Fatalf("a cut answer was taken as complete: %+v", resp)
		}
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("error %v looks like a cancellation", err)
		}
		if len(resp.Message.Parts) != 0 {
			t.Errorf("a failed call returned parts: %+v", resp.Message.Parts)
		}
	}},
	{"stream_truncated", func(t *testing.T, mk func(*Server) provider.Provider, stream bool) {
		srv := New(t, Turn{Text: "this answer ends early without its end marker but the connection closes cleanly",
			ToolCalls: []ToolCall{{Name: "bash", Input: json.RawMessage(`{"command":"make test"}`)}}, Truncate: true}, Text("unreached"))
		resp, _, err := call(t, mk(srv), baseRequest("hi"))
		if err == nil {
			t.Fatalf("a truncated answer was taken as complete: %+v", resp)
		}
		if len(resp.Message.Parts) != 0 {
			t.Errorf("a failed call returned parts: %+v", resp.Message.Parts)
		}
	}},
	{"api_key", func(t *testing.T, mk func(*Server) provider.Provider, stream bool) {
		srv := New(t, Turn{Status: 401, Error: "invalid x-api-key {{api_key}}"})
		_, rec, err := call(t, mk(srv), baseRequest("hi"))
		reqs := srv.Requests()
		if len(reqs) != 1 {
			t.Fatalf("%d requests, want 1 (a 401 is not retried)", len(reqs))
		}
		r := reqs[0]
		if len(r.APIKey) < 8 {
			t.Fatalf("no API key sent (headers: %v)", r.RedactedHeader())
		}
		switch r.Format {
		case FormatAnthropic:
			if r.Header.Get("X-Api-Key") != r.APIKey && r.Header.Get("Authorization") != "Bearer "+r.APIKey {
				t.Errorf("anthropic key not in x-api-key or Authorization: Bearer")
			}
		case FormatOpenAI:
			if r.Header.Get("Authorization") != "Bearer "+r.APIKey {
				t.Errorf("openai key not in Authorization: Bearer")
			}
		}
		if strings.Contains(r.String(), r.APIKey) {
			t.Errorf("Request.String shows the key")
		}
		if b, _ := json.Marshal(r); strings.Contains(string(b), r.APIKey) {
			t.Errorf("Request JSON shows the key")
		}
		var ae *provider.APIError
		if !errors.As(err, &ae) || ae.StatusCode != 401 {
			t.Fatalf("error %v, want an APIError 401", err)
		}
		if strings.Contains(err.Error(), r.APIKey) || strings.Contains(ae.Message, r.APIKey) {
			t.Errorf("error text contains the API key: %v", err)
		}
		if !strings.Contains(err.Error(), "[redacted]") {
			t.Errorf("error %q lost the server's message", err)
		}
		for _, ev := range rec.events {
			if ev.Err != nil && strings.Contains(ev.Err.Error(), r.APIKey) {
				t.Errorf("event error contains the API key")
			}
		}
	}},
}
