package anthropic_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/oceancode/oceancode/agent/message"
	"github.com/oceancode/oceancode/agent/provider"
	"github.com/oceancode/oceancode/agent/provider/anthropic"
	"github.com/oceancode/oceancode/agent/provider/providertest"
)

func newClient(t testing.TB, cfg provider.Config) *anthropic.Client {
	t.Helper()
	if cfg.APIKey == "" {
		cfg.APIKey = providertest.APIKey
	}
	if cfg.RetryBackoff == 0 {
		cfg.RetryBackoff = time.Millisecond
	}
	c, err := anthropic.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestConformance(t *testing.T) {
	providertest.RunConformance(t, func(baseURL string, stream bool) provider.Provider {
		return newClient(t, provider.Config{Type: "anthropic", BaseURL: baseURL, Stream: stream})
	})
}

func TestRequestShape(t *testing.T) {
	for _, stream := range []bool{true, false} {
		srv := providertest.New(t, providertest.Text("ok"))
		t.Setenv("ANTHROPIC_API_KEY", "sk-from-env-must-not-be-used")
		t.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1")
		c := newClient(t, provider.Config{BaseURL: srv.AnthropicURL(), Stream: stream,
			Headers: map[string]string{"X-Team": "blue"}})
		req := provider.Request{
			Model:  "claude-test",
			System: "sys",
			Messages: []message.Message{
				message.UserText("first"),
				{Role: message.Assistant, Parts: []message.Part{
					{Type: message.Text, Text: ""}, // dropped: the API refuses empty text
					{Type: message.ToolUse, ToolCall: &message.ToolCall{ID: "t1", Name: "read", Input: json.RawMessage(`{"path":"a"}`)}},
				}},
				{Role: message.User, Parts: []message.Part{
					{Type: message.ToolOutput, ToolResult: &message.ToolResult{CallID: "t1", Content: "boom", IsError: true}},
					{Type: message.Text, Text: "and then?"},
				}},
			},
			Tools: []provider.ToolDef{{Name: "read", Description: "Read a file.",
				InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"additionalProperties":false}`)}},
		}
		if _, err := c.Stream(context.Background(), req, nil); err != nil {
			t.Fatal(err)
		}
		r := srv.Requests()[0]
		if r.MaxTokens != anthropic.DefaultMaxTokens {
			t.Errorf("max_tokens %d, want the default %d", r.MaxTokens, anthropic.DefaultMaxTokens)
		}
		if r.APIKey != providertest.APIKey {
			t.Errorf("key %q: the environment won over the config", r.APIKey)
		}
		if r.Header.Get("X-Team") != "blue" {
			t.Errorf("extra header not sent")
		}
		body := string(r.Body)
		for _, want := range []string{`"additionalProperties":false`, `"is_error":true`, `"cache_control":{"type":"ephemeral"}`} {
			if !strings.Contains(body, want) {
				t.Errorf("body lacks %s: %s", want, body)
			}
		}
		if len(r.Messages) != 3 || len(r.Messages[1].Parts) != 1 || len(r.Messages[2].Parts) != 2 {
			t.Errorf("messages = %+v", r.Messages)
		}
	}
}

func TestRetriesExhausted(t *testing.T) {
	srv := providertest.New(t, providertest.Turn{Status: 503}, providertest.Turn{Status: 503}, providertest.Turn{Status: 503})
	c := newClient(t, provider.Config{BaseURL: srv.URL(), Stream: true, MaxRetries: 2})
	var retries int
	_, err := c.Stream(context.Background(), provider.Request{Model: "m", Messages: []message.Message{message.UserText("hi")}},
		func(ev provider.Event) {
			if ev.Type == provider.Retry {
				retries++
			}
		})
	if err == nil || !strings.HasPrefix(err.Error(), "anthropic: stream message: 503") {
		t.Fatalf("error %v", err)
	}
	if retries != 2 || len(srv.Requests()) != 3 {
		t.Errorf("retries %d requests %d, want 2 and 3", retries, len(srv.Requests()))
	}
}

func TestRetryAfterBeyondBudget(t *testing.T) {
	srv := providertest.New(t, providertest.Turn{Status: 429, RetryAfter: providertest.Duration(time.Hour)})
	c := newClient(t, provider.Config{BaseURL: srv.URL(), RetryMaxWait: time.Minute})
	_, err := c.Stream(context.Background(), provider.Request{Model: "m", Messages: []message.Message{message.UserText("hi")}}, nil)
	if err == nil || len(srv.Requests()) != 1 {
		t.Fatalf("err %v after %d requests; want the 429 returned at once", err, len(srv.Requests()))
	}
}

func TestWrongType(t *testing.T) {
	if _, err := anthropic.New(provider.Config{Type: "openai"}); err == nil {
		t.Fatal("no error for type openai")
	}
}
