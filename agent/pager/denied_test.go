package pager

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/message"
	"github.com/oceancode/oceancode/agent/runner"
)

func permEvent(seq int64, tool, id, input string, d agent.Decision) runner.Event {
	return runner.Event{Seq: seq, Event: agent.Event{Type: agent.EventPermission,
		ToolCall: &message.ToolCall{ID: id, Name: tool, Input: json.RawMessage(input)}, Decision: &d}}
}

func TestDeniedObserve(t *testing.T) {
	d := NewDenied(NewTheme(true))
	evs := []runner.Event{
		permEvent(1, "bash", "c1", `{"command":"ls"}`, agent.Decision{Action: "allow"}),
		permEvent(2, "bash", "c2", `{"command":"rm -rf /"}`, agent.Decision{Action: "deny", Floor: true, Reason: "rm -rf /"}),
		permEvent(3, "edit", "c3", `{"file_path":".env"}`, agent.Decision{Action: "deny", Rule: "edit .env deny", Layer: "user", Source: "/home/u/.config/oceancode/oceancode.json", Line: 4}),
		// An ask answered deny with a note: ask, resolved, permission.
		{Seq: 4, Event: agent.Event{Type: agent.EventAsk, Ask: &agent.PendingAsk{ID: "ask_5", CallID: "c5", Target: "git push origin main"}}},
		{Seq: 5, Event: agent.Event{Type: agent.EventResolved, AskID: "ask_5", Answer: "deny", Feedback: "not yet"}},
		permEvent(6, "bash", "c5", `{"command":"git push origin main"}`, agent.Decision{Action: "ask", Rule: "bash * ask", Layer: "project", Answer: "user:deny"}),
		permEvent(7, "bash", "c6", `{"command":"make"}`, agent.Decision{Action: "ask", Answer: "user:once"}),
		permEvent(8, "webfetch", "c7", `{"url":"https://x.example"}`, agent.Decision{Action: "ask", Rule: "webfetch * ask", Answer: "refused"}),
		{Seq: 9, Event: agent.Event{Type: agent.EventText, Text: "hi"}},
	}
	for _, ev := range evs {
		d.Observe(ev)
	}
	for _, ev := range evs { // a resubscription replays the stream
		d.Observe(ev)
	}
	got := d.Items()
	want := []struct {
		tool, target, by string
		seq              int64
		reason           string
	}{
		{"webfetch", "https://x.example", "rule", 8, "refused: no one could answer the ask of rule webfetch * ask"},
		{"bash", "git push origin main", "you", 6, "denied by you: not yet (asked by rule bash * ask (layer project))"},
		{"edit", ".env", "rule", 3, "rule edit .env deny (layer user, /home/u/.config/oceancode/oceancode.json:4)"},
		{"bash", "rm -rf /", "floor", 2, "the dangerous floor: rm -rf /"},
	}
	if len(got) != len(want) {
		t.Fatalf("items %+v", got)
	}
	for i, w := range want {
		g := got[i]
		if g.Tool != w.tool || g.Target != w.target || g.By != w.by || g.Seq != w.seq || g.Reason != w.reason {
			t.Errorf("item %d = %+v, want %+v", i, g, w)
		}
	}
	if len(d.asks) != 0 || len(d.feedback) != 0 {
		t.Errorf("bookkeeping left: %v %v", d.asks, d.feedback)
	}
	v := ansi.Strip(d.View())
	for _, s := range []string{"Recently denied", "webfetch  https://x.example", "denied by you: not yet", "the dangerous floor", "r or Enter retry"} {
		if !strings.Contains(v, s) {
			t.Errorf("view lacks %q:\n%s", s, v)
		}
	}
}

func TestDeniedBounded(t *testing.T) {
	d := NewDenied(NewTheme(false))
	for i := range 15 {
		d.Observe(permEvent(int64(i+1), "bash", fmt.Sprint("c", i), fmt.Sprintf(`{"command":"cmd %d"}`, i), agent.Decision{Action: "deny", Rule: "bash * deny"}))
	}
	got := d.Items()
	if len(got) != DeniedMax || got[0].Target != "cmd 14" || got[DeniedMax-1].Target != "cmd 5" {
		t.Fatalf("%d items, first %q last %q", len(got), got[0].Target, got[len(got)-1].Target)
	}
	// Asks that never resolve do not grow the bookkeeping without end.
	for i := range 200 {
		d.Observe(runner.Event{Event: agent.Event{Type: agent.EventAsk, Ask: &agent.PendingAsk{ID: fmt.Sprint("a", i), CallID: fmt.Sprint("x", i)}}})
	}
	if len(d.asks) > mapLimit {
		t.Errorf("%d asks kept", len(d.asks))
	}
}

func TestDeniedKeys(t *testing.T) {
	d := NewDenied(NewTheme(true))
	if r, done := d.Update(press("enter")); r != nil || done {
		t.Fatalf("empty list: %v %v", r, done)
	}
	if v := ansi.Strip(d.View()); !strings.Contains(v, "no call was denied") {
		t.Errorf("empty view:\n%s", v)
	}
	for i := range 3 {
		d.Observe(permEvent(int64(i+1), "bash", fmt.Sprint("c", i), fmt.Sprintf(`{"command":"cmd %d"}`, i), agent.Decision{Action: "deny"}))
	}
	steps := []struct {
		key    string
		target string // the retried call's ("" none)
		done   bool
	}{
		{"up", "", false},
		{"enter", "cmd 2", true},
		{"down", "", false},
		{"down", "", false},
		{"down", "", false},
		{"r", "cmd 0", true},
		{"up", "", false},
		{"r", "cmd 1", true},
		{"x", "", false},
		{"esc", "", true},
	}
	for i, s := range steps {
		r, done := d.Update(press(s.key))
		got := ""
		if r != nil {
			got = r.Target
			if r.CallID == "" || len(r.Input) == 0 {
				t.Errorf("step %d: retry lacks the call: %+v", i, r)
			}
		}
		if got != s.target || done != s.done {
			t.Fatalf("step %d (%s): retry %q done %v, want %q %v", i, s.key, got, done, s.target, s.done)
		}
	}
	d.SetWidth(40)
	for _, l := range strings.Split(d.View(), "\n") {
		if ansi.StringWidth(l) > 40 {
			t.Errorf("line wider than 40: %q", ansi.Strip(l))
		}
	}
}

func TestDeniedGolden(t *testing.T) {
	for _, dark := range []bool{true, false} {
		d := NewDenied(NewTheme(dark))
		d.SetWidth(80)
		d.Observe(permEvent(1, "bash", "c1", `{"command":"rm -rf /"}`, agent.Decision{Action: "deny", Floor: true, Reason: "rm -rf / is on the floor"}))
		d.Observe(permEvent(2, "edit", "c2", `{"file_path":".env"}`, agent.Decision{Action: "deny", Rule: "edit .env deny", Layer: "project", Source: ".oceancode/oceancode.json", Line: 7}))
		d.Observe(permEvent(3, "bash", "c3", `{"command":"git push\norigin main"}`, agent.Decision{Action: "ask", Rule: "bash \"git push *\" ask", Layer: "user", Answer: "user:deny"}))
		d.Update(press("down"))
		goldenFrame(t, "denied_80_"+map[bool]string{true: "dark", false: "light"}[dark], d.View())
	}
}
