package agent_test

// These tests need the real Jev advisor (h-jevcore's agent/jev): against
// the contract's stubs Eligible refuses everything. See the report.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/childenv"
	"github.com/oceancode/oceancode/agent/fsguard"
	"github.com/oceancode/oceancode/agent/gate"
	"github.com/oceancode/oceancode/agent/jev"
	"github.com/oceancode/oceancode/agent/message"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/provider"
	"github.com/oceancode/oceancode/agent/provider/anthropic"
	"github.com/oceancode/oceancode/agent/provider/providertest"
	"github.com/oceancode/oceancode/agent/sandbox/sandboxtest"
	"github.com/oceancode/oceancode/agent/shellguard"
	"github.com/oceancode/oceancode/agent/tools"
	"github.com/oceancode/oceancode/provenance"
)

// Scores the advisor's scripted model answers with.
const (
	safeScores     = `{"destructive":0,"network_egress":0,"easily_undone":95,"blast_radius":"project"}`
	unsafeScores   = `{"destructive":90,"network_egress":0,"easily_undone":10,"blast_radius":"project"}`
	undoOnlyScores = `{"destructive":5,"network_egress":0,"easily_undone":10,"blast_radius":"single_file"}`
)

// jevSetup is a turn loop over one scripted model, with the bash tool
// under "bash * ask" (a residual ask) plus rules, and an advisor of mode m
// over a scripted model of its own, so its requests count exactly.
func jevSetup(t testing.TB, m jev.Mode, deadline time.Duration, rules []permission.Rule, session []providertest.Turn, advisor ...providertest.Turn) (agent.Config, *providertest.Server, *providertest.Server, string) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	newProv := func(srv *providertest.Server) provider.Provider {
		p, err := anthropic.New(provider.Config{Type: "anthropic", BaseURL: srv.AnthropicURL(), APIKey: providertest.APIKey, Stream: true, RetryBackoff: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	srv := providertest.New(t, session...)
	adv := providertest.New(t, advisor...)
	o := provenance.Origin{Layer: provenance.User, Source: "test.json", Line: 3}
	perm := permission.Config{Rules: append([]permission.Rule{{Key: "bash", Pattern: "*", Action: permission.Ask, Origin: o}}, rules...)}
	g, err := gate.New(gate.Config{Permission: perm, Shell: shellguard.Config{ProjectRoot: dir, Home: dir}, Boundary: fsguard.Boundary{ProjectRoot: dir}})
	if err != nil {
		t.Fatal(err)
	}
	a, err := jev.New(jev.Config{Mode: m, Deadline: deadline, Provider: newProv(adv), Model: "jev-model"})
	if err != nil {
		t.Fatal(err)
	}
	tr := &fsguard.Tracker{}
	tr.Start(time.Now())
	return agent.Config{Agent: agent.Build, Model: "m", Provider: newProv(srv), Gate: g, Advisor: a, ProjectRoot: dir,
		Tools: []tools.Tool{tools.BashTool{}},
		Env: &tools.Env{Boundary: fsguard.Boundary{ProjectRoot: dir}, Cwd: dir, Tracker: tr,
			ChildEnv: childenv.Compose(os.Environ(), childenv.Config{})}}, srv, adv, dir
}

// The test binary doubles as the sandbox helper, which runs bash
// supervised (its process tree ends with the call).
func TestMain(m *testing.M) {
	sandboxtest.ServeHelper()
	code := m.Run()
	sandboxtest.Cleanup()
	os.Exit(code)
}

func bash(id, cmd string) providertest.Turn {
	return providertest.Turn{ToolCalls: []providertest.ToolCall{{ID: id, Name: "bash", Input: []byte(`{"command":` + quote(cmd) + `}`)}}}
}

func quote(s string) string {
	return `"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"`
}

// recorder collects events from whichever goroutine emits them, and
// reports an overlap (two OnEvent calls at once).
type recorder struct {
	mu      sync.Mutex
	evs     []agent.Event
	busy    bool
	overlap bool
	advice  chan agent.Event
}

func record(c *agent.Config) *recorder {
	r := &recorder{advice: make(chan agent.Event, 16)}
	c.OnEvent = func(e agent.Event) {
		r.mu.Lock()
		if r.busy {
			r.overlap = true
		}
		r.busy = true
		r.evs = append(r.evs, e)
		r.mu.Unlock()
		if e.Type == agent.EventAdvice {
			r.advice <- e
		}
		r.mu.Lock()
		r.busy = false
		r.mu.Unlock()
	}
	return r
}

// runAnsweringOnce runs c, answering its one ask "once", and returns the
// advice that ask showed.
func runAnsweringOnce(t *testing.T, c agent.Config) *jev.Advice {
	t.Helper()
	var got *jev.Advice
	c.Ask = func(_ context.Context, a agent.Ask) (agent.Reply, error) {
		got = a.Advice
		return agent.Reply{Answer: agent.Once}, nil
	}
	if _, err := agent.Run(context.Background(), c, nil, "go"); err != nil {
		t.Fatal(err)
	}
	return got
}

func (r *recorder) of(typ agent.EventType) []agent.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []agent.Event
	for _, e := range r.evs {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

// TestNeverReachesAdvisor: the floor, a deny rule, a specific-pattern ask,
// dontAsk, a path outside the project, the hold list and a persistence
// file are settled without the advisor: its model gets no request.
func TestNeverReachesAdvisor(t *testing.T) {
	o := provenance.Origin{Layer: provenance.User, Source: "test.json", Line: 4}
	for _, tc := range []struct {
		name  string
		cmd   string
		rules []permission.Rule
		mode  permission.Mode
	}{
		{name: "floor", cmd: "sudo rm -rf /"},
		{name: "deny rule", cmd: "touch secret.txt", rules: []permission.Rule{{Key: "bash", Pattern: "touch secret*", Action: permission.Deny, Origin: o}}},
		{name: "specific ask", cmd: "mkdir build", rules: []permission.Rule{{Key: "bash", Pattern: "mkdir *", Action: permission.Ask, Origin: o}}},
		{name: "dontAsk", cmd: "touch a.txt", mode: permission.DontAsk},
		{name: "outside path", cmd: "touch /var/tmp/oceancode-jev-outside"},
		{name: "hold list", cmd: "npm install left-pad"},
		{name: "persistence file", cmd: "touch .git/hooks/pre-commit"},
		{name: "shell rc file", cmd: "echo x >> .zlogin"},
		{name: "CI file", cmd: "touch .travis.yml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, m := range []jev.Mode{jev.Shadow, jev.Act} {
				c, _, adv, _ := jevSetup(t, m, 0, tc.rules, []providertest.Turn{bash("call_1", tc.cmd), providertest.Text("ok")})
				if tc.mode != "" {
					c.Gate.SetMode(tc.mode)
				}
				c.Ask = func(context.Context, agent.Ask) (agent.Reply, error) { return agent.Reply{Answer: agent.Deny}, nil }
				rec := record(&c)
				if _, err := agent.Run(context.Background(), c, nil, "go"); err != nil {
					t.Fatal(err)
				}
				if n := len(adv.Requests()); n != 0 {
					t.Errorf("%s: the advisor got %d requests for %q", m, n, tc.cmd)
				}
				if evs := rec.of(agent.EventAdvice); len(evs) != 0 {
					t.Errorf("%s: advice events %+v", m, evs)
				}
			}
		})
	}
}

// TestShadowAsksAtOnce: in shadow the user is asked before the advice
// arrives (the advisor's answer is delayed); the advice is emitted when it
// comes, carrying the user's answer (its label), and the call is decided
// by the user alone.
func TestShadowAsksAtOnce(t *testing.T) {
	c, srv, adv, dir := jevSetup(t, jev.Shadow, 0, nil, []providertest.Turn{bash("call_1", "touch notes.txt"), providertest.Text("ok")},
		providertest.Turn{Text: safeScores, Delay: providertest.Duration(300 * time.Millisecond)})
	rec := record(&c)
	asked := 0
	c.Ask = func(_ context.Context, a agent.Ask) (agent.Reply, error) {
		asked++
		if a.Advice != nil {
			t.Errorf("a shadow ask carries advice %+v", a.Advice)
		}
		if evs := rec.of(agent.EventAdvice); len(evs) != 0 {
			t.Errorf("the advice came before the ask: %+v", evs)
		}
		select { // the advisor's request is on its way
		case <-adv.Stalled():
		case <-time.After(10 * time.Second):
			t.Error("the advisor was not asked")
		}
		return agent.Reply{Answer: agent.Deny, Feedback: "not now"}, nil
	}
	if _, err := agent.Run(context.Background(), c, nil, "make notes"); err != nil {
		t.Fatal(err)
	}
	if asked != 1 {
		t.Fatalf("asked %d times, want 1", asked)
	}
	if _, err := os.Stat(filepath.Join(dir, "notes.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a shadow advice ran a denied call: %v", err)
	}
	var e agent.Event
	select {
	case e = <-rec.advice:
	case <-time.After(10 * time.Second):
		t.Fatal("no advice event")
	}
	if e.Advice.Status != jev.StatusSafe || e.Advice.Mode != jev.Shadow || e.Advice.Acted || e.ToolCall == nil || e.ToolCall.ID != "call_1" {
		t.Errorf("advice event %+v %+v", e, e.Advice)
	}
	if e.Answer != "deny" || e.Feedback != "not now" {
		t.Errorf("advice label = %q %q, want deny / not now", e.Answer, e.Feedback)
	}
	// The advisor saw the user's prompt, never the session's own turns.
	reqs := adv.Requests()
	if len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), "make notes") {
		t.Fatalf("advisor requests: %v", reqs)
	}
	if len(srv.Requests()) != 2 {
		t.Errorf("session requests = %d", len(srv.Requests()))
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.overlap {
		t.Error("two events reached OnEvent at once")
	}
}

// TestActInsideAndOutside: act runs a command inside the safe class
// without the prompt, and asks for one outside it with the advice shown;
// the deny is not pre-selected (the ask offers once first).
func TestActInsideAndOutside(t *testing.T) {
	c, _, adv, dir := jevSetup(t, jev.Act, 0, nil,
		[]providertest.Turn{bash("call_1", "touch notes.txt"), bash("call_2", "sed -i d data.txt"), providertest.Text("ok")},
		providertest.Text(safeScores), providertest.Text(unsafeScores))
	rec := record(&c)
	var asks []agent.Ask
	c.Ask = func(_ context.Context, a agent.Ask) (agent.Reply, error) {
		asks = append(asks, a)
		return agent.Reply{Answer: agent.Deny}, nil
	}
	if _, err := agent.Run(context.Background(), c, nil, "go"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "notes.txt")); err != nil {
		t.Errorf("the safe call did not run: %v", err)
	}
	if len(asks) != 1 || asks[0].ToolCall.ID != "call_2" || asks[0].Advice == nil || asks[0].Advice.Status != jev.StatusUnsafe || asks[0].Advice.Scores == nil || asks[0].Advice.Scores.Destructive != 90 {
		t.Fatalf("asks = %+v", asks)
	}
	evs := rec.of(agent.EventAdvice)
	if len(evs) != 2 || !evs[0].Advice.Acted || evs[0].Advice.Status != jev.StatusSafe || evs[1].Advice.Acted || evs[1].Advice.Status != jev.StatusUnsafe {
		t.Fatalf("advice events %+v", evs)
	}
	perms := rec.of(agent.EventPermission)
	if len(perms) != 2 || perms[0].Decision.Answer != "jev" || perms[1].Decision.Answer != "user:deny" {
		t.Errorf("permission events %+v %+v", perms[0].Decision, perms[1].Decision)
	}
	if len(adv.Requests()) != 2 {
		t.Errorf("advisor requests = %d", len(adv.Requests()))
	}
}

// TestActCacheReuse: an identical command later in the session (on the
// same facts: notes.txt exists both times) reuses the verdict: one advisor
// request for two calls.
func TestActCacheReuse(t *testing.T) {
	c, _, adv, dir := jevSetup(t, jev.Act, 0, nil,
		[]providertest.Turn{bash("call_1", "touch notes.txt"), bash("call_2", "touch notes.txt"), providertest.Text("ok")},
		providertest.Text(safeScores))
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	rec := record(&c)
	c.Ask = func(context.Context, agent.Ask) (agent.Reply, error) {
		t.Error("asked")
		return agent.Reply{Answer: agent.Deny}, nil
	}
	if _, err := agent.Run(context.Background(), c, nil, "go"); err != nil {
		t.Fatal(err)
	}
	evs := rec.of(agent.EventAdvice)
	if len(adv.Requests()) != 1 || len(evs) != 2 || !evs[1].Advice.Cached || !evs[1].Advice.Acted {
		t.Errorf("advisor requests %d, advice %+v", len(adv.Requests()), evs)
	}
}

// TestActDeadline: an advisor slower than the deadline: the prompt asks as
// usual, with an advice of status timeout.
func TestActDeadline(t *testing.T) {
	c, _, _, _ := jevSetup(t, jev.Act, 100*time.Millisecond, nil,
		[]providertest.Turn{bash("call_1", "touch notes.txt"), providertest.Text("ok")},
		providertest.Turn{Text: safeScores, Delay: providertest.Duration(5 * time.Second)})
	rec := record(&c)
	got := runAnsweringOnce(t, c)
	if got == nil || got.Status != jev.StatusTimeout || got.Acted {
		t.Fatalf("ask advice = %+v", got)
	}
	if evs := rec.of(agent.EventAdvice); len(evs) != 1 || evs[0].Advice.Status != jev.StatusTimeout {
		t.Errorf("advice events %+v", evs)
	}
}

// TestUnavailableIsNotUnsafe: a failing model (500s) and an answer that is
// not the schema's JSON are "unavailable", an event apart from "unsafe";
// the user is asked as without Jev.
func TestUnavailableIsNotUnsafe(t *testing.T) {
	fail := providertest.Turn{Status: 500}
	for _, tc := range []struct {
		name string
		adv  []providertest.Turn
	}{
		{"status 500", []providertest.Turn{fail, fail, fail, fail, fail}},
		{"garbage", []providertest.Turn{providertest.Text("sure, looks fine to me")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _, _, _ := jevSetup(t, jev.Act, 5*time.Second, nil, []providertest.Turn{bash("call_1", "touch notes.txt"), providertest.Text("ok")}, tc.adv...)
			rec := record(&c)
			got := runAnsweringOnce(t, c)
			if got == nil || got.Status != jev.StatusUnavailable {
				t.Fatalf("ask advice = %+v", got)
			}
			if evs := rec.of(agent.EventAdvice); len(evs) != 1 || evs[0].Advice.Status != jev.StatusUnavailable {
				t.Errorf("advice events %+v", evs)
			}
		})
	}
}

// TestHeadlessRejection: under headless --auto an act advice that the
// command is destructive rejects the call; the model reads the reason, the
// scores and the no-circumvention instruction. Unavailable advice and one
// outside the class only for being hard to undo keep --auto's approval.
func TestHeadlessRejection(t *testing.T) {
	c, srv, _, dir := jevSetup(t, jev.Act, 5*time.Second, nil,
		[]providertest.Turn{bash("call_1", "sed -i d data.txt"), bash("call_2", "touch b.txt"), bash("call_3", "touch c.txt"), providertest.Text("ok")},
		providertest.Text(unsafeScores), providertest.Text(undoOnlyScores), providertest.Text("no JSON here"))
	c.Auto = true
	rec := record(&c)
	if err := os.WriteFile(filepath.Join(dir, "data.txt"), []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := agent.Run(context.Background(), c, nil, "go")
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "data.txt")); string(b) != "keep\n" {
		t.Errorf("the rejected call ran: data.txt = %q", b)
	}
	for _, f := range []string{"b.txt", "c.txt"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("--auto's approval was not kept for %s: %v", f, err)
		}
	}
	var first *message.ToolResult
	for _, m := range srv.Requests()[1].Messages {
		for _, p := range m.Parts {
			if p.ToolResult != nil && p.ToolResult.CallID == "call_1" {
				first = p.ToolResult
			}
		}
	}
	if first == nil || !first.IsError {
		t.Fatalf("call_1's result = %+v", first)
	}
	for _, want := range []string{"rejected by the Jev permission advisor", "destructive (90%)", "destructive 90, network_egress 0, easily_undone 10, blast_radius project", agent.NoCircumvention} {
		if !strings.Contains(first.Content, want) {
			t.Errorf("rejection %q lacks %q", first.Content, want)
		}
	}
	if res.Denied != 1 {
		t.Errorf("Denied = %d, want 1", res.Denied)
	}
	perms := rec.of(agent.EventPermission)
	if len(perms) != 3 || perms[0].Decision.Answer != "jev:rejected" || perms[1].Decision.Answer != "auto" || perms[2].Decision.Answer != "auto" {
		t.Errorf("permission answers %+v", perms)
	}
}

// TestBreaker: three rejections in a row stop the run with its own stop
// reason; the model gets no further request.
func TestBreaker(t *testing.T) {
	c, srv, _, _ := jevSetup(t, jev.Act, 5*time.Second, nil,
		[]providertest.Turn{bash("call_1", "sed -i d a.txt"), bash("call_2", "sed -i d b.txt"), bash("call_3", "sed -i d c.txt")},
		providertest.Text(unsafeScores), providertest.Text(unsafeScores), providertest.Text(unsafeScores))
	c.Auto = true
	rec := record(&c)
	res, err := agent.Run(context.Background(), c, nil, "go")
	if !errors.Is(err, agent.ErrAdvisorBreaker) || res.StopReason != agent.StopAdvisorBreaker {
		t.Fatalf("Run = %q, %v", res.StopReason, err)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("%d model requests, want 3", n)
	}
	done := rec.of(agent.EventDone)
	if len(done) != 1 || done[0].StopReason != agent.StopAdvisorBreaker {
		t.Errorf("done events %+v", done)
	}
}

// TestBreakerWindow: 10 rejections among the last 50 advised decisions
// stop the run even when no 3 come in a row.
func TestBreakerWindow(t *testing.T) {
	var session, advisor []providertest.Turn
	for i := range 19 { // R A R A … R: the 10th rejection is call 19
		if i%2 == 0 {
			session = append(session, bash(fmt.Sprintf("call_%d", i), fmt.Sprintf("sed -i d r%d.txt", i)))
			advisor = append(advisor, providertest.Text(unsafeScores))
		} else {
			session = append(session, bash(fmt.Sprintf("call_%d", i), fmt.Sprintf("touch a%d.txt", i)))
			advisor = append(advisor, providertest.Text(undoOnlyScores))
		}
	}
	c, srv, _, dir := jevSetup(t, jev.Act, 5*time.Second, nil, session, advisor...)
	c.Auto = true
	res, err := agent.Run(context.Background(), c, nil, "go")
	if !errors.Is(err, agent.ErrAdvisorBreaker) || res.StopReason != agent.StopAdvisorBreaker {
		t.Fatalf("Run = %q, %v", res.StopReason, err)
	}
	if n := len(srv.Requests()); n != 19 {
		t.Errorf("%d model requests, want 19", n)
	}
	if res.Denied != 10 {
		t.Errorf("Denied = %d, want 10", res.Denied)
	}
	if _, err := os.Stat(filepath.Join(dir, "a17.txt")); err != nil {
		t.Errorf("an approved call between rejections did not run: %v", err)
	}
}
