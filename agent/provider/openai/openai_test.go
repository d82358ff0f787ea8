package openai_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/oceancode/oceancode/agent/message"
	"github.com/oceancode/oceancode/agent/provider"
	"github.com/oceancode/oceancode/agent/provider/openai"
	"github.com/oceancode/oceancode/agent/provider/providertest"
)

func newClient(t testing.TB, cfg provider.Config) *openai.Client {
	t.Helper()
	if cfg.APIKey == "" {
		cfg.APIKey = providertest.APIKey
	}
	if cfg.RetryBackoff == 0 {
		cfg.RetryBackoff = time.Millisecond
	}
	c, err := openai.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestConformance(t *testing.T) {
	providertest.RunConformance(t, func(baseURL string, stream bool) provider.Provider {
		return newClient(t, provider.Config{Type: "openai", BaseURL: baseURL + "/v1", Stream: stream})
	})
}

func TestRequestShape(t *testing.T) {
	for _, stream := range []bool{true, false} {
		srv := providertest.New(t, providertest.Text("ok"))
		t.Setenv("OPENAI_API_KEY", "sk-from-env-must-not-be-used")
		t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
		t.Setenv("OPENAI_ORG_ID", "org-env")
		c := newClient(t, provider.Config{BaseURL: srv.OpenAIURL(), Stream: stream,
			Headers: map[string]string{"X-Team": "blue"}})
		req := provider.Request{
			Model:     "qwen3-coder",
			System:    "sys",
			MaxTokens: 1000,
			Messages: []message.Message{
				message.UserText("first"),
				{Role: message.Assistant, Parts: []message.Part{
					{Type: message.Text, Text: "Reading both."},
					{Type: message.ToolUse, ToolCall: &message.ToolCall{ID: "c1", Name: "read", Input: json.RawMessage(`{"path":"a"}`)}},
					{Type: message.ToolUse, ToolCall: &message.ToolCall{ID: "c2", Name: "read", Input: json.RawMessage(`{"path":"b"}`)}},
				}},
				{Role: message.User, Parts: []message.Part{
					{Type: message.ToolOutput, ToolResult: &message.ToolResult{CallID: "c1", Content: "A"}},
					{Type: message.ToolOutput, ToolResult: &message.ToolResult{CallID: "c2", Content: "no such file", IsError: true}},
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
		if r.APIKey != providertest.APIKey || r.Header.Get("OpenAI-Organization") != "" {
			t.Errorf("the environment leaked into the request: key %q org %q", r.APIKey, r.Header.Get("OpenAI-Organization"))
		}
		if r.Header.Get("X-Team") != "blue" {
			t.Errorf("extra header not sent")
		}
		body := string(r.Body)
		for _, want := range []string{`"max_tokens":1000`, `"additionalProperties":false`, `"role":"tool"`, `"content":"error: no such file"`} {
			if !strings.Contains(body, want) {
				t.Errorf("body lacks %s: %s", want, body)
			}
		}
		if stream != strings.Contains(body, `"include_usage":true`) {
			t.Errorf("stream_options.include_usage wrong for stream=%t: %s", stream, body)
		}
		// user, assistant (2 calls), user (2 results + text): the tool messages
		// come straight after the assistant, then the user's text.
		if len(r.Messages) != 4 || len(r.Messages[2].Parts) != 2 || r.Messages[3].TextOf() != "and then?" {
			t.Errorf("messages = %+v", r.Messages)
		}
	}
}

func TestWrongType(t *testing.T) {
	if _, err := openai.New(provider.Config{Type: "anthropic"}); err == nil {
		t.Fatal("no error for type anthropic")
	}
}
