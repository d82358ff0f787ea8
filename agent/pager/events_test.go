package pager

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/jev"
	"github.com/oceancode/oceancode/agent/mcp"
	"github.com/oceancode/oceancode/agent/message"
	"github.com/oceancode/oceancode/agent/runner"
)

// feed hands the model events as its subscription would.
func (h *harness) feed(evs ...agent.Event) {
	for _, e := range evs {
		h.seq++
		h.m.event(runner.Event{Seq: h.seq, Event: e})
	}
	h.run(h.m.flush())
	h.settle()
}

// TestEventLines: each kind of event as the scrollback shows it.
func TestEventLines(t *testing.T) {
	f := newFixture(t)
	_, eng := f.start("")
	call := &message.ToolCall{ID: "c1", Name: "bash", Input: json.RawMessage(`{"command":"git status"}`)}
	long := strings.Repeat("line\n", 10)
	tests := []struct {
		name string
		ev   agent.Event
		want string
	}{
		{"tool call", agent.Event{Type: agent.EventToolCall, ToolCall: call}, "● bash  git status"},
		{"read target", agent.Event{Type: agent.EventToolCall, ToolCall: &message.ToolCall{Name: "read", Input: json.RawMessage(`{"path":"src/main.go"}`)}}, "● read  src/main.go"},
		{"unknown tool", agent.Event{Type: agent.EventToolCall, ToolCall: &message.ToolCall{Name: "github/search", Input: json.RawMessage(`{"q": "x"}`)}}, `● github/search  {"q":"x"}`},
		{"allowed", agent.Event{Type: agent.EventPermission, ToolCall: call, Decision: &agent.Decision{Action: "allow", Rule: `bash "git status"`, Layer: "project", Source: ".oceancode/oceancode.json", Line: 4}},
			`✓ allowed by rule bash "git status" (project .oceancode/oceancode.json:4)`},
		{"floor", agent.Event{Type: agent.EventPermission, ToolCall: call, Decision: &agent.Decision{Action: "deny", Floor: true, Reason: "rm -rf / is never run"}}, "✗ denied by the safety floor: rm -rf / is never run"},
		{"denied", agent.Event{Type: agent.EventPermission, ToolCall: call, Decision: &agent.Decision{Action: "deny", Rule: "bash curl:*", Layer: "requirements", Source: "/etc/oceancode/requirements.json", Reason: "network"}},
			"✗ denied by rule bash curl:* (requirements /etc/oceancode/requirements.json): network"},
		{"always", agent.Event{Type: agent.EventPermission, ToolCall: call, Decision: &agent.Decision{Action: "allow", Answer: "user:always", Rule: "bash *", Layer: "user"}}, "✓ approved by you (always) — asked by rule bash * (user)"},
		{"auto", agent.Event{Type: agent.EventPermission, ToolCall: call, Decision: &agent.Decision{Action: "allow", Answer: "auto", Rule: "bash *"}}, "✓ approved by --auto"},
		{"result", agent.Event{Type: agent.EventToolResult, Result: &message.ToolResult{CallID: "c1", Content: long}}, "… 6 more lines"},
		{"error result", agent.Event{Type: agent.EventToolResult, Result: &message.ToolResult{Content: "exit 1", IsError: true}}, "⎿ exit 1"},
		{"downgrade", agent.Event{Type: agent.EventModeChange, Key: "sandbox.mode", Requested: "danger-full-access", Mode: "workspace-write", Text: "min_sandbox_mode"},
			"sandbox.mode: danger-full-access not used, workspace-write in effect: min_sandbox_mode"},
		{"mode", agent.Event{Type: agent.EventModeChange, Key: "permission_mode", Requested: "plan", Mode: "plan"}, "mode → plan"},
		{"mcp", agent.Event{Type: agent.EventMCP, Key: "github", Mode: "failed", Text: "exec: not found"}, "mcp github: failed — exec: not found"},
		{"retry", agent.Event{Type: agent.EventRetry, Text: "429, in 2s"}, "retrying: 429, in 2s"},
		{"error", agent.Event{Type: agent.EventError, Text: "provider: 500"}, "error: provider: 500"},
		{"advice", agent.Event{Type: agent.EventAdvice, ToolCall: call, Advice: &jev.Advice{Status: "safe", Acted: true}}, "jev: safe (approved by jev)"},
		{"done", agent.Event{Type: agent.EventDone, StopReason: "max_turns", Usage: &message.Usage{InputTokens: 15000, OutputTokens: 2000000}}, "─ max_turns · 15k in · 2.0M out"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, eng, 120, 24, true)
			h.feed(tt.ev)
			if out := h.printed(); !strings.Contains(out, tt.want) {
				t.Errorf("scrollback lacks %q:\n%s", tt.want, out)
			}
		})
	}
}

// TestAskQueue: asks queue behind the dialog (the count is shown); a
// resolved event closes the one shown and the next opens; a replayed ask
// is not queued twice.
func TestAskQueue(t *testing.T) {
	f := newFixture(t)
	_, eng := f.start("")
	h := newHarness(t, eng, 100, 24, true)
	a1 := runner.PendingAsk{ID: "ask_1", Kind: "permission", Tool: "bash", Target: "make", CallID: "c1"}
	a2 := runner.PendingAsk{ID: "ask_2", Kind: "permission", Tool: "edit", Target: "main.go", CallID: "c2"}
	h.feed(agent.Event{Type: agent.EventAsk, Ask: &a1}, agent.Event{Type: agent.EventAsk, Ask: &a2}, agent.Event{Type: agent.EventAsk, Ask: &a1})
	if h.m.dialog == nil || h.m.dialog.Ask.ID != "ask_1" || len(h.m.asks) != 2 {
		t.Fatalf("dialog %v, %d asks", h.m.dialog, len(h.m.asks))
	}
	if v := h.view(); !strings.Contains(v, "2 asks waiting") {
		t.Errorf("view = %q", v)
	}
	h.feed(agent.Event{Type: agent.EventResolved, AskID: "ask_1", Answer: "once", By: "web"})
	if h.m.dialog == nil || h.m.dialog.Ask.ID != "ask_2" {
		t.Fatalf("after the first resolved the dialog is %v", h.m.dialog)
	}
	if v := h.view(); strings.Contains(v, "asks waiting") || !strings.Contains(v, "web answered bash: once") {
		t.Errorf("view = %q", v)
	}
	h.feed(agent.Event{Type: agent.EventResolved, AskID: "ask_2", Answer: "deny", By: "pager"})
	if h.m.dialog != nil || len(h.m.asks) != 0 {
		t.Errorf("dialog %v, %d asks after both resolved", h.m.dialog, len(h.m.asks))
	}
}

// TestUntrustedText: what the model or a tool writes never drives the
// terminal: escape sequences (OSC 52 to the clipboard, a cursor move, a
// hyperlink, colours) and control characters are dropped from every line
// the pager prints, and the answer keeps its tabs and newlines.
func TestUntrustedText(t *testing.T) {
	evil := "ok\x1b]52;c;ZXZpbA==\x07 \x1b[2A\x1b[2Kgone \x1b]8;;http://evil\x07link\x1b]8;;\x07 \x1b[31mred\x1b[0m\x08\x9b"
	e := untrusted(agent.Event{Type: agent.EventText, Text: "a\tb\n" + evil, Feedback: evil,
		Result: &message.ToolResult{Content: evil}})
	for name, got := range map[string]string{"text": e.Text, "feedback": e.Feedback, "result": e.Result.Content,
		"line": oneLine(evil, 200)} {
		if strings.ContainsAny(got, "\x1b\x07\x08\u009b") {
			t.Errorf("%s keeps a control character: %q", name, got)
		}
		if !strings.Contains(got, "gone") || !strings.Contains(got, "link") || !strings.Contains(got, "red") {
			t.Errorf("%s lost the text around the sequences: %q", name, got)
		}
	}
	if !strings.HasPrefix(e.Text, "a\tb\n") {
		t.Errorf("the answer lost its tab or newline: %q", e.Text)
	}
}

// TestUntrustedScrollback: what the scrollback prints of an event carries
// none of the escape sequences put in any of its texts (the class of
// TestUntrustedText: a tool's name, an MCP server's name, a stop reason, a
// mode, an advice's reasons, who answered), and the text around them stays.
func TestUntrustedScrollback(t *testing.T) {
	evil := "x\x1b]52;c;ZXZpbA==\x07\x1b[2A\x08\u009bvisible"
	m := newModel(t.Context(), Options{Width: 200, Height: 24})
	m.addAsk(runner.PendingAsk{ID: "ask_1", CallID: "call_1", Kind: runner.KindQuestion, Tool: "question", Target: "which?"})
	evs := []agent.Event{
		{Type: agent.EventToolCall, ToolCall: &message.ToolCall{ID: "call_0", Name: "bash" + evil, Input: []byte(`{"command":"ls"}`)}},
		{Type: agent.EventMCP, Key: "srv" + evil, Mode: "failed" + evil, Text: evil},
		{Type: agent.EventModeChange, Key: "model", Requested: "m" + evil, Mode: "n" + evil, Text: evil},
		{Type: agent.EventModeChange, Requested: "plan" + evil, Mode: "default" + evil, Text: evil},
		{Type: agent.EventAdvice, Advice: &jev.Advice{Status: jev.StatusUnavailable, Reasons: []string{"model: " + evil}}},
		{Type: agent.EventResolved, AskID: "ask_1", Answer: "yes" + evil, By: "web" + evil},
		{Type: agent.EventDone, StopReason: "end_turn" + evil},
	}
	for i, e := range evs {
		m.event(runner.Event{Seq: int64(i + 1), Event: e})
	}
	out := strings.Join(m.pending, "\n") + "\n" + m.render()
	for _, bad := range []string{"\x1b]52;", "\x1b[2A", "\x07", "\x08", "\u009b"} {
		if strings.Contains(out, bad) {
			t.Errorf("the scrollback or the live region carries %q:\n%q", bad, out)
		}
	}
	if n := strings.Count(plain(out), "visible"); n < len(evs) {
		t.Errorf("%d of the texts are shown, want at least %d:\n%s", n, len(evs), plain(out))
	}
}

// TestUntrustedCommandText: what the slash commands print of a project's
// config, its MCP servers, the stored sessions, and the status line's
// notice, carry no escape sequence either.
func TestUntrustedCommandText(t *testing.T) {
	evil := "x\x1b]52;c;ZXZpbA==\x07\x1b[2A\x08\u009bvisible"
	m := newModel(t.Context(), Options{Width: 400, Height: 24})
	var d inspectDoc
	d.Keys = map[string]inspectKey{
		`permission.bash["ls"]`: {inspectStep: inspectStep{Value: "allow" + evil, Layer: "project", Source: ".oceancode/oceancode.json" + evil, Line: 2},
			Overrides: []inspectStep{{Value: "ask" + evil, Layer: "user", Source: "u.json" + evil}}},
		"permission_mode":   {inspectStep: inspectStep{Value: "default" + evil, Source: "p.json" + evil}},
		"model" + evil:      {inspectStep: inspectStep{Value: "m" + evil}},
		"model.fast" + evil: {inspectStep: inspectStep{Value: "f" + evil}},
	}
	m.notice = "web answered bash: " + evil
	outs := map[string]string{
		"/permissions": m.permissionsText(d),
		"/inspect KEY": inspectText(d, "permission_mode"),
		"/inspect pre": inspectText(d, "model"),
		"/mcp":         mcpText([]mcp.Status{{Name: "srv" + evil, State: "untrusted", Origin: "project" + evil, Source: ".mcp.json" + evil, Reason: "runs " + evil}}),
		"status":       m.statusLine(),
	}
	for name, out := range outs {
		for _, bad := range []string{"\x1b]52;", "\x1b[2A", "\x07", "\x08", "\u009b"} {
			if strings.Contains(out, bad) {
				t.Errorf("%s carries %q:\n%q", name, bad, out)
			}
		}
		if !strings.Contains(out, "visible") {
			t.Errorf("%s lost the text:\n%q", name, out)
		}
	}
}
