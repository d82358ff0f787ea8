package providertest_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/agent/message"
	"github.com/oceancode/oceancode/agent/provider"
	"github.com/oceancode/oceancode/agent/provider/openai"
	"github.com/oceancode/oceancode/agent/provider/providertest"
)

const exampleScript = `{
  "turns": [
    {"status": 429, "retry_after": "10ms"},
    {"text": "Writing the file.", "tool_calls": [{"name": "write", "input": {"path": "hello.txt", "content": "hi\n"}}]},
    {"text": "Done.", "usage": {"input_tokens": 1200, "output_tokens": 3, "cache_read_tokens": 1000}}
  ]
}`

func TestParseScript(t *testing.T) {
	s, err := providertest.ParseScript([]byte(exampleScript))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Turns) != 3 || s.Turns[0].Status != 429 || s.Turns[1].ToolCalls[0].Name != "write" || s.Turns[2].Usage.CacheReadTokens != 1000 {
		t.Errorf("script %+v", s)
	}
	// Round trip.
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := providertest.ParseScript(b)
	if err != nil {
		t.Fatalf("round trip: %v\n%s", err, b)
	}
	if s2.Turns[0].RetryAfter != s.Turns[0].RetryAfter {
		t.Errorf("retry_after did not survive: %s", b)
	}
	for _, bad := range []string{
		`{"turns": []}`,
		`{"turns": [{"txt": "typo"}]}`,
		`{"turns": [{"status": 200}]}`,
		`{"turns": [{"tool_calls": [{"input": {}}]}]}`,
		`{"turns": [{"delay": "soon"}]}`,
	} {
		if _, err := providertest.ParseScript([]byte(bad)); err == nil {
			t.Errorf("ParseScript(%s) accepted", bad)
		}
	}
	path := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(path, []byte(exampleScript), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := providertest.LoadScript(path); err != nil {
		t.Error(err)
	}
}

func TestListenLoopbackOnly(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "192.0.2.1:0", "example.com:80"} {
		if l, err := providertest.Listen(addr); err == nil {
			l.Close()
			t.Errorf("Listen(%q) accepted a non-loopback address", addr)
		}
	}
	l, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	s, _ := providertest.ParseScript([]byte(exampleScript))
	if err := providertest.Serve(context.Background(), l, s); err == nil {
		t.Error("Serve accepted a listener on every interface")
	}
}

// TestServe runs a JSON script as the standalone mock does and drives it
// with the real OpenAI client, then reads the request log over HTTP.
func TestServe(t *testing.T) {
	s, err := providertest.ParseScript([]byte(exampleScript))
	if err != nil {
		t.Fatal(err)
	}
	l, err := providertest.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- providertest.Serve(ctx, l, s) }()
	base := "http://" + l.Addr().String()

	c, err := openai.New(provider.Config{BaseURL: base + "/v1", APIKey: providertest.APIKey, Stream: true})
	if err != nil {
		t.Fatal(err)
	}
	req := provider.Request{Model: "local", Messages: []message.Message{message.UserText("write hello.txt")}}
	var retries int
	resp, err := c.Stream(context.Background(), req, func(ev provider.Event) {
		if ev.Type == provider.Retry {
			retries++
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	calls := resp.Message.ToolCalls()
	if retries != 1 || len(calls) != 1 || calls[0].Name != "write" {
		t.Fatalf("retries %d calls %+v", retries, calls)
	}
	req.Messages = append(req.Messages, resp.Message, message.Message{Role: message.User, Parts: []message.Part{
		{Type: message.ToolOutput, ToolResult: &message.ToolResult{CallID: calls[0].ID, Content: "wrote 3 bytes"}}}})
	resp, err = c.Stream(context.Background(), req, nil)
	if err != nil || resp.Message.TextOf() != "Done." || resp.Usage.CacheReadTokens != 1000 {
		t.Fatalf("second turn: %+v %v", resp, err)
	}

	res, err := http.Get(base + providertest.RequestsPath)
	if err != nil {
		t.Fatal(err)
	}
	var log []map[string]any
	if err := json.NewDecoder(res.Body).Decode(&log); err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if len(log) != 3 {
		t.Fatalf("request log has %d entries, want 3", len(log))
	}
	b, _ := json.Marshal(log)
	if strings.Contains(string(b), providertest.APIKey) {
		t.Error("request log shows the API key")
	}
	if !strings.Contains(string(b), `"tool_call_id"`) {
		t.Error("request log lacks the tool result")
	}

	cancel()
	if err := <-done; err != nil {
		t.Errorf("Serve: %v", err)
	}
}

func TestExhaustedAndLoop(t *testing.T) {
	srv := providertest.New(nil, providertest.Text("only"))
	defer srv.Close()
	c, _ := openai.New(provider.Config{BaseURL: srv.OpenAIURL(), APIKey: providertest.APIKey, MaxRetries: -1})
	req := provider.Request{Model: "m", Messages: []message.Message{message.UserText("hi")}}
	if _, err := c.Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	_, err := c.Stream(context.Background(), req, nil)
	var ae *provider.APIError
	if !errors.As(err, &ae) || ae.StatusCode != 400 || !strings.Contains(err.Error(), "no scripted turn left") {
		t.Errorf("past the script: %v", err)
	}
	if r := srv.Requests(); len(r) != 2 || r[1].Turn != -1 {
		t.Errorf("requests %v", r)
	}

	loop := providertest.NewScript(t, providertest.Script{Loop: true, Turns: []providertest.Turn{providertest.Text("a"), providertest.Text("b")}})
	c, _ = openai.New(provider.Config{BaseURL: loop.OpenAIURL(), APIKey: providertest.APIKey})
	var got string
	for range 5 {
		resp, err := c.Stream(context.Background(), req, nil)
		if err != nil {
			t.Fatal(err)
		}
		got += resp.Message.TextOf()
	}
	if got != "ababa" {
		t.Errorf("looped answers %q", got)
	}
}

func TestRejectsMalformedRequests(t *testing.T) {
	srv := providertest.New(nil, providertest.Text("x"))
	defer srv.Close()
	for _, tc := range []struct{ path, body string }{
		{"/v1/messages", `{"model":"m","messages":[]}`},                                                                     // no max_tokens
		{"/v1/messages", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"text","text":""}]}]}`}, // empty text
		{"/v1/chat/completions", `{"model":"m","messages":[{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"user","content":"x"}]}`},
		{"/v1/chat/completions", `not json`},
	} {
		res, err := http.Post(srv.URL()+tc.path, "application/json", strings.NewReader(tc.body))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 400 {
			t.Errorf("%s %s: status %d, want 400", tc.path, tc.body, res.StatusCode)
		}
	}
}
