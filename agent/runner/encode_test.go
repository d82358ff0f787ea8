package runner

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/message"
)

// TestEncode: an event's data is its stream-json line ("<" and "&" kept),
// its text redacted; a tool call input that is not JSON (a stored history
// keeps it as the model sent it) is carried as a JSON string, so the data
// is always valid JSON.
func TestEncode(t *testing.T) {
	t.Parallel()
	s := &Session{}
	s.cfg.Redact = func(x string) string { return strings.ReplaceAll(x, "key", "[REDACTED]") }
	for _, tc := range []struct {
		name string
		e    agent.Event
		want string
	}{
		{"text", agent.Event{Type: agent.EventText, Text: "key"}, `{"type":"text","time":"0001-01-01T00:00:00Z","text":"[REDACTED]"}`},
		{"call", agent.Event{Type: agent.EventToolCall, ToolCall: &message.ToolCall{ID: "c", Name: "bash", Input: json.RawMessage(`{"command":"a<b && c"}`)}},
			`{"type":"tool_call","time":"0001-01-01T00:00:00Z","tool_call":{"id":"c","name":"bash","input":{"command":"a<b && c"}}}`},
		{"invalid input", agent.Event{Type: agent.EventToolCall, ToolCall: &message.ToolCall{ID: "c", Name: "read", Input: json.RawMessage(`{"path": `)}},
			`{"type":"tool_call","time":"0001-01-01T00:00:00Z","tool_call":{"id":"c","name":"read","input":"{\"path\": "}}`},
		{"invalid ask input", agent.Event{Type: agent.EventAsk, Ask: &agent.PendingAsk{ID: "a", Input: json.RawMessage(`nope`), Choices: []string{}}},
			`{"type":"ask","time":"0001-01-01T00:00:00Z","ask":{"id":"a","kind":"","tool":"","input":"nope","input_digest":"","call_id":"","created_at":"0001-01-01T00:00:00Z","choices":[]}}`},
	} {
		got := s.encode(tc.e)
		if string(got) != tc.want || !json.Valid(got) {
			t.Errorf("%s: %s\nwant %s", tc.name, got, tc.want)
		}
	}
}
