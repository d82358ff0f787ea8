package runner_test

// These tests need the real Jev advisor (h-jevcore's agent/jev): against
// the contract's stubs Eligible refuses everything. See the report.

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/jev"
	"github.com/oceancode/oceancode/agent/provider"
	"github.com/oceancode/oceancode/agent/provider/anthropic"
	"github.com/oceancode/oceancode/agent/provider/providertest"
	"github.com/oceancode/oceancode/agent/runner"
	"github.com/oceancode/oceancode/agent/server"
	"github.com/oceancode/oceancode/agent/server/servertest"
	"github.com/oceancode/oceancode/agent/session"
)

const (
	safeScores   = `{"destructive":0,"network_egress":0,"easily_undone":95,"blast_radius":"project"}`
	unsafeScores = `{"destructive":90,"network_egress":0,"easily_undone":10,"blast_radius":"project"}`
)

func bashCall(id, cmd string) providertest.Turn {
	in, _ := json.Marshal(map[string]string{"command": cmd})
	return providertest.Turn{ToolCalls: []providertest.ToolCall{{ID: id, Name: "bash", Input: in}}}
}

// advisor is an advisor of mode m over its own scripted model.
func advisor(t *testing.T, m jev.Mode, turns ...providertest.Turn) *jev.Advisor {
	t.Helper()
	srv := providertest.New(t, turns...)
	p, err := anthropic.New(provider.Config{Type: "anthropic", BaseURL: srv.AnthropicURL(), APIKey: providertest.APIKey, Stream: true, RetryBackoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	a, err := jev.New(jev.Config{Mode: m, Deadline: 10 * time.Second, Provider: p, Model: "jev-model"})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// runAnswering runs prompt on s, answering each pending ask with
// answer(ask, events so far) once it says ok (it is asked again after each
// event until then).
func runAnswering(t *testing.T, s *runner.Session, prompt string, answer func(runner.PendingAsk, []runner.Event) (runner.Reply, bool)) []runner.Event {
	t.Helper()
	u, err := s.Subscribe(s.LastSeq())
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	done := make(chan error, 1)
	go func() { _, err := s.Run(context.Background(), prompt); done <- err }()
	var seen []runner.Event
	var waiting []runner.PendingAsk
	for {
		ev := next(t, u)
		seen = append(seen, ev)
		if ev.Event.Type == agent.EventAsk {
			waiting = append(waiting, *ev.Event.Ask)
		}
		var still []runner.PendingAsk
		for _, a := range waiting {
			r, ok := answer(a, seen)
			if !ok {
				still = append(still, a)
				continue
			}
			if err := s.Answer(a.ID, r); err != nil {
				t.Fatal(err)
			}
		}
		waiting = still
		if ev.Event.Type == agent.EventDone {
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			return seen
		}
	}
}

// TestAdviceLabels: every advice is recorded in the store with the user's
// answer to the advised ask as its label — whether the answer came before
// a shadow advice or after it — an act advice that approved is labelled
// "jev", and jev export's records carry the stable fields.
func TestAdviceLabels(t *testing.T) {
	t.Parallel()
	t.Run("act", func(t *testing.T) {
		f := newFixture(t, bashCall("call_1", "touch a.txt"), bashCall("call_2", "sed -i d a.txt"), providertest.Text("ok"))
		o := f.options()
		o.Turn.Advisor = advisor(t, jev.Act, providertest.Text(safeScores), providertest.Text(unsafeScores))
		s := f.start(o)
		var asked []runner.PendingAsk
		seen := runAnswering(t, s, "tidy up", func(a runner.PendingAsk, _ []runner.Event) (runner.Reply, bool) {
			asked = append(asked, a)
			return runner.Reply{Answer: agent.Deny, Feedback: "keep a.txt"}, true
		})
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		checkSchema(t, seen)
		if len(asked) != 1 || asked[0].CallID != "call_2" || asked[0].Advice == nil || asked[0].Advice.Status != jev.StatusUnsafe {
			t.Fatalf("asks %+v", asked)
		}
		list, err := f.store.Advices(context.Background(), s.ID(), false)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 2 {
			t.Fatalf("advice rows %+v", list)
		}
		if a := list[0]; a.CallID != "call_1" || a.Command != "touch a.txt" || a.Status != "safe" || a.Mode != "act" || !a.Acted || a.Label != "jev" || a.Key == "" {
			t.Errorf("row 1 %+v", a)
		}
		if a := list[1]; a.CallID != "call_2" || a.Status != "unsafe" || a.Acted || a.Label != "deny" || a.Feedback != "keep a.txt" ||
			!strings.Contains(string(a.Scores), `"destructive":90`) || len(a.Reasons) == 0 {
			t.Errorf("row 2 %+v", a)
		}
		var buf bytes.Buffer
		if err := f.store.ExportLabels(context.Background(), "", &buf); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
		if len(lines) != 2 {
			t.Fatalf("export:\n%s", buf.String())
		}
		var rec map[string]any
		if err := json.Unmarshal([]byte(lines[1]), &rec); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"version", "session", "seq", "call_id", "key", "command", "status", "mode", "scores", "reasons", "injection", "cached", "latency_ms", "tokens", "acted", "label", "feedback", "at"} {
			if _, ok := rec[k]; !ok {
				t.Errorf("export record lacks %q: %s", k, lines[1])
			}
		}
		if rec["version"] != float64(session.LabelsVersion) || rec["session"] != s.ID() || rec["label"] != "deny" {
			t.Errorf("export record %s", lines[1])
		}
	})
	t.Run("shadow", func(t *testing.T) {
		f := newFixture(t, bashCall("call_1", "touch a.txt"), bashCall("call_2", "touch b.txt"), providertest.Text("ok"))
		o := f.options()
		o.Turn.Advisor = advisor(t, jev.Shadow,
			providertest.Turn{Text: safeScores, Delay: providertest.Duration(200 * time.Millisecond)}, providertest.Text(unsafeScores))
		s := f.start(o)
		seen := runAnswering(t, s, "make files", func(a runner.PendingAsk, seen []runner.Event) (runner.Reply, bool) {
			if a.CallID == "call_1" {
				return runner.Reply{Answer: agent.Once}, true // before its advice arrives
			}
			// call_2: answered once both advice events arrived.
			n := 0
			for _, e := range seen {
				if e.Event.Type == agent.EventAdvice {
					n++
				}
			}
			return runner.Reply{Answer: agent.Always, Feedback: "fine"}, n == 2
		})
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		checkSchema(t, seen)
		list, err := f.store.Advices(context.Background(), s.ID(), true)
		if err != nil {
			t.Fatal(err)
		}
		byCall := map[string]session.Advice{}
		for _, a := range list {
			byCall[a.CallID] = a
		}
		if a := byCall["call_1"]; a.Label != "once" || a.Status != "safe" || a.Mode != "shadow" || a.Acted {
			t.Errorf("call_1 %+v", a)
		}
		if a := byCall["call_2"]; a.Label != "always" || a.Feedback != "fine" || a.Status != "unsafe" {
			t.Errorf("call_2 %+v", a)
		}
	})
}

// checkSchema checks each event (the advice events, the asks carrying
// advice) against the API's documented Event schema.
func checkSchema(t *testing.T, evs []runner.Event) {
	t.Helper()
	sch, err := servertest.NewSchemas(server.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range evs {
		if e.Event.Type == agent.EventAdvice {
			n++
		}
		sch.Check(t, "Event", e.Data)
	}
	if n == 0 {
		t.Error("no advice event to check")
	}
}
