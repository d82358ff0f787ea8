package pager_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/mcp"
	"github.com/oceancode/oceancode/agent/pager"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/provider/providertest"
	"github.com/oceancode/oceancode/agent/runner"
	"github.com/oceancode/oceancode/agent/server/client"
	"github.com/oceancode/oceancode/agent/server/servertest"
)

func bash(cmd string) providertest.Turn {
	return providertest.Call("bash", map[string]string{"command": cmd})
}

// remote attaches to a new session of a live server.
func remote(t *testing.T, l *servertest.Live, label string) (pager.Engine, *client.Client) {
	t.Helper()
	c, err := client.New(l.URL, l.Token)
	if err != nil {
		t.Fatal(err)
	}
	c.Label = label
	st, err := c.Create(context.Background(), client.CreateRequest{})
	if err != nil {
		t.Fatal(err)
	}
	e := pager.Remote(c, st.ID)
	t.Cleanup(func() { e.Close() })
	return e, c
}

// TestRemoteEngine walks every Engine method through Remote against the
// real server and a real session: the prompt, its ask and answers, the
// errors mapped back to the engine's, the mode, model and agent switches,
// MCP, sessions, inspect, abort.
func TestRemoteEngine(t *testing.T) {
	l := servertest.NewLive(t, servertest.LiveOptions{
		Turns: []providertest.Turn{bash("echo one"), providertest.Text("done"), bash("echo two"), providertest.Text("after abort")},
		Ask:   []string{"Bash(echo:*)"},
		Locks: permission.Locks{DisallowedModes: map[permission.Mode]string{permission.BypassPermissions: "locked out by the test's requirements"}},
	})
	e, _ := remote(t, l, "pager")
	ctx := context.Background()
	if e.ID() == "" {
		t.Fatal("no id")
	}
	st, err := e.State(ctx)
	if err != nil || st.ID != e.ID() || st.Status != runner.StatusIdle || len(st.Modes) != 5 || st.Sandbox != "off" || st.Policy != "none" {
		t.Fatalf("state = %+v, %v", st, err)
	}
	if !st.Modes[4].Locked || !strings.Contains(st.Modes[4].Reason, "locked out") || st.Modes[1].Locked {
		t.Errorf("modes = %+v", st.Modes)
	}
	s, err := e.Subscribe(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := e.Send(ctx, "go"); err != nil {
		t.Fatal(err)
	}
	evs := servertest.Until(t, s.Events(), s.Err, agent.EventAsk)
	ask := evs[len(evs)-1].Event.Ask
	for i, ev := range evs {
		if ev.Seq != int64(i+1) || len(ev.Data) == 0 {
			t.Fatalf("event %d: seq %d, data %q", i, ev.Seq, ev.Data)
		}
	}
	if ask.Tool != "bash" || len(ask.Segments) != 1 || !ask.Segments[0].Asked || ask.Remember == nil {
		t.Errorf("ask = %+v", ask)
	}
	p, err := e.Pending(ctx)
	if err != nil || len(p) != 1 || p[0].ID != ask.ID {
		t.Fatalf("pending = %+v, %v", p, err)
	}
	if err := e.Answer(ctx, ask.ID, runner.Reply{Answer: "maybe"}); !errors.Is(err, runner.ErrAnswer) {
		t.Errorf("a bad answer: %v", err)
	}
	if err := e.Answer(ctx, ask.ID, runner.Reply{Answer: agent.Once, Digest: "sha256:" + strings.Repeat("0", 64)}); !errors.Is(err, runner.ErrDigest) {
		t.Errorf("a wrong digest: %v", err)
	}
	if err := e.Answer(ctx, ask.ID, runner.Reply{Answer: agent.Once, Digest: ask.InputDigest}); err != nil {
		t.Fatal(err)
	}
	var answered *runner.AnsweredError
	if err := e.Answer(ctx, ask.ID, runner.Reply{Answer: agent.Deny}); !errors.As(err, &answered) || answered.First.Answer != agent.Once || answered.First.By != "http:pager" {
		t.Errorf("a second answer: %v", err)
	}
	if err := e.Answer(ctx, "ask_none", runner.Reply{Answer: agent.Once}); !errors.Is(err, runner.ErrNoAsk) {
		t.Errorf("an unknown ask: %v", err)
	}
	evs = servertest.Until(t, s.Events(), s.Err, agent.EventDone)
	if evs[0].Event.Type != agent.EventResolved || evs[0].Event.By != "http:pager" {
		t.Errorf("after the answer: %+v", evs[0].Event)
	}

	m, err := e.SetMode(ctx, permission.BypassPermissions)
	if err != nil || m.Mode != permission.Default || !m.Downgraded || !strings.Contains(m.Reason, "locked out") {
		t.Errorf("bypass under a lock = %+v, %v", m, err)
	}
	if st, err = e.SetModel(ctx, "openai/other"); err != nil || st.Model != "other" {
		t.Errorf("set model = %+v, %v", st, err)
	}
	var ce *client.Error
	if _, err = e.SetModel(ctx, "refused/x"); !errors.As(err, &ce) || ce.Status != 403 || ce.Code != "refused" {
		t.Errorf("a refused model: %v", err)
	}
	if st, err = e.SetAgent(ctx, "plan"); err != nil || st.Agent != "plan" {
		t.Errorf("set agent = %+v, %v", st, err)
	}
	for _, key := range []string{"permission_mode", "model", "agent"} {
		evs := servertest.Until(t, s.Events(), s.Err, agent.EventModeChange)
		if k := evs[len(evs)-1].Event.Key; k != key {
			t.Errorf("mode_change %q, want %q", k, key)
		}
	}
	if list, err := e.MCP(ctx); err != nil || len(list) != 0 {
		t.Errorf("mcp = %+v, %v", list, err)
	}
	// (A session without MCP servers: the trust is refused; agent/server/client's
	// TestTrustMCP trusts a real one.)
	if _, err := e.(pager.MCPTruster).TrustMCP(ctx, "proj"); !errors.As(err, &ce) || ce.Status != 409 || !strings.Contains(ce.Message, "no MCP client") {
		t.Errorf("trust without MCP: %v", err)
	}
	if _, err := e.AddMCP(ctx, "bad name", mcp.Server{Command: "x"}); !errors.As(err, &ce) || ce.Status != 400 {
		t.Errorf("add a bad mcp server: %v", err)
	}
	stored, err := e.Sessions(ctx)
	if err != nil || len(stored) != 1 || stored[0].ID != e.ID() {
		t.Errorf("sessions = %+v, %v", stored, err)
	}
	if doc, err := e.Inspect(ctx); err != nil || string(doc) != `{"version":1}` {
		t.Errorf("inspect = %s, %v", doc, err)
	}

	// Abort while an ask waits: it is denied by "abort" and the turn ends.
	e.Send(ctx, "again")
	servertest.Until(t, s.Events(), s.Err, agent.EventAsk)
	if err := e.Abort(ctx); err != nil {
		t.Fatal(err)
	}
	evs = servertest.Until(t, s.Events(), s.Err, agent.EventDone)
	if evs[len(evs)-1].Event.StopReason != string(runner.StopCancelled) {
		t.Errorf("after abort: %+v", evs[len(evs)-1].Event)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	// Detached, not closed: the session is still there.
	if st, err := e.State(ctx); err != nil || st.Status == runner.StatusClosed {
		t.Errorf("after Close: %+v, %v", st, err)
	}
}

// TestFirstAnswerWinsLocalAndRemote: the same ask answered at once in
// process (a pager on the serving machine) and through Remote: exactly one
// wins; the other learns the first answer.
func TestFirstAnswerWinsLocalAndRemote(t *testing.T) {
	for round := range 5 {
		l := servertest.NewLive(t, servertest.LiveOptions{Turns: []providertest.Turn{bash("echo race"), providertest.Text("done")}, Ask: []string{"Bash(echo:*)"}})
		e, _ := remote(t, l, "remote")
		ctx := context.Background()
		s, err := e.Subscribe(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		e.Send(ctx, "go")
		evs := servertest.Until(t, s.Events(), s.Err, agent.EventAsk)
		ask := evs[len(evs)-1].Event.Ask
		local := l.Session(e.ID())
		var wg sync.WaitGroup
		var errLocal, errRemote error
		start := make(chan struct{})
		wg.Add(2)
		go func() {
			defer wg.Done()
			<-start
			errLocal = local.Answer(ask.ID, runner.Reply{Answer: agent.Deny, By: "local"})
		}()
		go func() {
			defer wg.Done()
			<-start
			errRemote = e.Answer(ctx, ask.ID, runner.Reply{Answer: agent.Once})
		}()
		close(start)
		wg.Wait()
		var ae *runner.AnsweredError
		switch {
		case errLocal == nil && errors.As(errRemote, &ae):
			if ae.First.Answer != agent.Deny || ae.First.By != "local" {
				t.Errorf("round %d: remote lost to %+v", round, ae.First)
			}
		case errRemote == nil && errors.As(errLocal, &ae):
			if ae.First.Answer != agent.Once || ae.First.By != "http:remote" {
				t.Errorf("round %d: local lost to %+v", round, ae.First)
			}
		default:
			t.Fatalf("round %d: local %v, remote %v: want one winner", round, errLocal, errRemote)
		}
		evs = servertest.Until(t, s.Events(), s.Err, agent.EventDone)
		n := 0
		for _, ev := range evs {
			if ev.Event.Type == agent.EventResolved {
				n++
			}
		}
		if n != 1 {
			t.Errorf("round %d: %d resolved events", round, n)
		}
		s.Close()
	}
}
