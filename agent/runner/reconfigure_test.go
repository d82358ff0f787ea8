package runner_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/provider/providertest"
	"github.com/oceancode/oceancode/agent/runner"
)

// askOf waits for the next ask event.
func askOf(t *testing.T, u *runner.Subscription) *runner.PendingAsk {
	t.Helper()
	evs := until(t, u, agent.EventAsk)
	return evs[len(evs)-1].Event.Ask
}

// TestAskInfo: a bash ask carries its segments (which asked, why) and the
// exact rules "always" adds — the ones the session then stores; a write
// ask carries the diff of the file now against what it would write, none
// for a file reached through a link out of the project, and a long diff
// is cut with a note.
func TestAskInfo(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	big := strings.Repeat("a line of the new file\n", 4000)
	f := newFixture(t,
		bash("true && echo one > one.txt"),
		providertest.Call("write", map[string]string{"path": "a.txt", "content": "old\nnew\n"}),
		providertest.Call("write", map[string]string{"path": "link.txt", "content": "x\n"}),
		providertest.Call("write", map[string]string{"path": "big.txt", "content": big}),
		providertest.Text("done"))
	if err := os.WriteFile(filepath.Join(f.dir, "a.txt"), []byte("old\nmid\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("outside content\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(f.dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	s := f.start(f.options())
	u, _ := s.Subscribe(0)
	s.Send("go")

	a := askOf(t, u)
	var asked []string
	for _, seg := range a.Segments {
		if seg.Asked {
			asked = append(asked, seg.Text)
		}
	}
	if len(a.Segments) != 2 || a.Segments[0].Text != "true" || a.Segments[0].Asked || a.Segments[1].Verdict != "ask" ||
		!slices.Equal(asked, []string{"echo one > one.txt"}) || a.Segments[1].Reason == "" {
		t.Fatalf("segments = %+v", a.Segments)
	}
	if a.Remember == nil || a.Remember.Scope != "session" || len(a.Remember.Rules) == 0 || a.Diff != "" {
		t.Fatalf("remember = %+v, diff %q", a.Remember, a.Diff)
	}
	remember := a.Remember.Rules
	if err := s.Answer(a.ID, runner.Reply{Answer: agent.Always}); err != nil {
		t.Fatal(err)
	}

	a = askOf(t, u)
	for _, want := range []string{"--- a/a.txt", "+++ b/a.txt", "-mid", "+new", " old"} {
		if !strings.Contains(a.Diff, want) {
			t.Errorf("write's diff lacks %q:\n%s", want, a.Diff)
		}
	}
	if a.Remember == nil || !slices.Equal(a.Remember.Rules, []string{"edit a.txt"}) {
		t.Errorf("write's remember = %+v", a.Remember)
	}
	s.Answer(a.ID, runner.Reply{Answer: agent.Deny})

	a = askOf(t, u)
	if a.Diff != "" {
		t.Errorf("a link out of the project got a diff: %q", a.Diff)
	}
	s.Answer(a.ID, runner.Reply{Answer: agent.Deny})

	a = askOf(t, u)
	if !strings.HasPrefix(a.Diff, "--- /dev/null\n+++ b/big.txt\n") || len(a.Diff) > 65*1024 || !strings.Contains(a.Diff, "diff cut at 64 KB") {
		t.Errorf("big diff: %d bytes, starts %q, ends %q", len(a.Diff), a.Diff[:min(60, len(a.Diff))], a.Diff[max(0, len(a.Diff)-80):])
	}
	s.Answer(a.ID, runner.Reply{Answer: agent.Deny})
	until(t, u, agent.EventDone)

	// What "always" said it adds is what the session stores.
	id := s.ID()
	s.Close()
	aps, err := f.store.Approvals(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var stored []string
	for _, ap := range aps {
		stored = append(stored, permission.Approval{Key: ap.Key, Pattern: ap.Pattern}.Rule())
	}
	slices.Sort(remember)
	if !slices.Equal(stored, remember) || !slices.Contains(stored, `bash "echo one"`) {
		t.Errorf("stored approvals %v, the ask said %v", stored, remember)
	}
}

// TestSetModelAgent: the switches build the next turn's config through the
// hook, leave the running turn alone, are told as mode_change events and
// recorded; a hook's refusal changes nothing; a session without the hook
// says it cannot.
func TestSetModelAgent(t *testing.T) {
	t.Parallel()
	f := newFixture(t, bash("echo one > one.txt"), providertest.Text("first"), providertest.Text("second"))
	f.locks = permission.Locks{DisallowedModes: map[permission.Mode]string{permission.BypassPermissions: "locked out by requirements test.json (serial 1)"}}
	o := f.options()
	o.Sandbox, o.Policy = "workspace-write", "signed, serial 1"
	var calls []string
	o.Reconfigure = func(ctx context.Context, agentName, model string) (agent.Config, error) {
		calls = append(calls, agentName+"|"+model)
		if model == "nope/refused" {
			return agent.Config{}, errors.New("refused by requirements: not in allowed_models")
		}
		c := f.turn()
		if model != "" {
			c.Model = strings.TrimPrefix(model, "anthropic/")
		}
		if agentName != "" {
			c.Agent = agentName
			f.mode = permission.Plan
			c.Gate = f.gate()
		}
		return c, nil
	}
	s := f.start(o)
	st := s.State()
	if st.Sandbox != "workspace-write" || st.Policy != "signed, serial 1" || len(st.Modes) != 5 {
		t.Fatalf("state = %+v", st)
	}
	for _, m := range st.Modes {
		if m.Locked != (m.Mode == permission.BypassPermissions) || (m.Locked && !strings.Contains(m.Reason, "serial 1")) {
			t.Errorf("mode option %+v", m)
		}
	}
	if st.Mode.Mode != permission.Default {
		t.Fatalf("the gate's mode changed by State: %+v", st.Mode)
	}
	u, _ := s.Subscribe(0)
	s.Send("go")
	a := askOf(t, u)
	// Mid-turn: the switch is for the next turn.
	if _, err := s.SetModel(context.Background(), "nope/refused"); err == nil || !strings.Contains(err.Error(), "allowed_models") {
		t.Errorf("refused model: %v", err)
	}
	st, err := s.SetModel(context.Background(), "anthropic/claude-other")
	if err != nil || st.Model != "claude-other" {
		t.Fatalf("set model = %+v, %v", st, err)
	}
	evs := until(t, u, agent.EventModeChange)
	if e := evs[len(evs)-1].Event; e.Key != "model" || e.Requested != "anthropic/claude-other" || e.Mode != "claude-other" {
		t.Errorf("model's mode_change = %+v", e)
	}
	s.Answer(a.ID, runner.Reply{Answer: agent.Once})
	until(t, u, agent.EventDone)
	reqs := f.srv.Requests()
	if reqs[len(reqs)-1].Model != "claude-test" {
		t.Errorf("the running turn switched model: %q", reqs[len(reqs)-1].Model)
	}
	st, err = s.SetAgent(context.Background(), "plan")
	if err != nil || st.Agent != "plan" || st.Mode.Mode != permission.Plan {
		t.Fatalf("set agent = %+v, %v", st, err)
	}
	s.Send("again")
	until(t, u, agent.EventDone)
	reqs = f.srv.Requests()
	if reqs[len(reqs)-1].Model != "claude-other" {
		t.Errorf("the next turn's model: %q", reqs[len(reqs)-1].Model)
	}
	if !slices.Equal(calls, []string{"|nope/refused", "|anthropic/claude-other", "plan|"}) {
		t.Errorf("hook calls %q", calls)
	}
	id := s.ID()
	s.Close()
	rec, err := f.store.Get(context.Background(), id)
	if err != nil || rec.Agent != "plan" || rec.Model != "anthropic/claude-other" || rec.Mode != "plan" {
		t.Errorf("recorded %+v, %v", rec, err)
	}

	plain := f.start(f.options())
	if _, err := plain.SetModel(context.Background(), "anthropic/x"); !errors.Is(err, runner.ErrUnsupported) {
		t.Errorf("no hook: %v", err)
	}
}

// BenchmarkState: a state read, the modes with their locks included (every
// GET /api/session/{id} and the pager's status line pay it).
func BenchmarkState(b *testing.B) {
	f := newFixture(b)
	f.locks = permission.Locks{DisallowedModes: map[permission.Mode]string{permission.BypassPermissions: "locked out by requirements test.json (serial 1)"}}
	s, err := runner.Start(context.Background(), runner.Options{Turn: f.turn(), Interactive: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.ReportAllocs()
	for b.Loop() {
		if st := s.State(); len(st.Modes) != 5 {
			b.Fatal(st.Modes)
		}
	}
}

// TestSwitchAgentMidTurn: an agent switch leaves the running turn its own
// gate, and a live mode switch made after it still reaches that turn (its
// next write is allowed by acceptEdits, no second ask); the next turn runs
// under the new agent's gate, in the mode switched to.
func TestSwitchAgentMidTurn(t *testing.T) {
	t.Parallel()
	f := newFixture(t,
		providertest.Call("write", map[string]string{"path": "a.txt", "content": "a"}),
		providertest.Call("write", map[string]string{"path": "b.txt", "content": "b"}),
		providertest.Text("done"), providertest.Text("next"))
	o := f.options()
	var newGate any
	o.Reconfigure = func(ctx context.Context, agentName, model string) (agent.Config, error) {
		c := f.turn()
		c.Agent = agentName
		newGate = c.Gate
		return c, nil
	}
	s := f.start(o)
	u, _ := s.Subscribe(0)
	s.Send("go")
	a := askOf(t, u)
	if _, err := s.SetAgent(context.Background(), "reviewer"); err != nil {
		t.Fatal(err)
	}
	if m, err := s.SetMode(permission.AcceptEdits); err != nil || m.Mode != permission.AcceptEdits {
		t.Fatalf("set mode = %+v, %v", m, err)
	}
	s.Answer(a.ID, runner.Reply{Answer: agent.Once})
	for _, ev := range until(t, u, agent.EventDone) {
		if ev.Event.Type == agent.EventAsk {
			t.Errorf("the running turn asked again after acceptEdits: %+v", ev.Event.Ask)
		}
	}
	if _, err := os.Stat(filepath.Join(f.dir, "b.txt")); err != nil {
		t.Errorf("the second write did not run: %v", err)
	}
	st := s.State()
	if st.Agent != "reviewer" || st.Mode.Mode != permission.AcceptEdits || newGate == nil {
		t.Errorf("state = %+v", st)
	}
}
