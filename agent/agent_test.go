package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/fsguard"
	"github.com/oceancode/oceancode/agent/gate"
	"github.com/oceancode/oceancode/agent/message"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/provider"
	"github.com/oceancode/oceancode/agent/provider/anthropic"
	"github.com/oceancode/oceancode/agent/provider/providertest"
	"github.com/oceancode/oceancode/agent/shellguard"
	"github.com/oceancode/oceancode/agent/tools"
	"github.com/oceancode/oceancode/provenance"
)

// setup is a turn loop over the scripted loopback model, a gate (writes
// ask, reads are allowed) and the file tools in a temporary workspace.
func setup(t testing.TB, perm permission.Config, turns ...providertest.Turn) (agent.Config, *providertest.Server, string) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	srv := providertest.New(t, turns...)
	p, err := anthropic.New(provider.Config{Type: "anthropic", BaseURL: srv.AnthropicURL(), APIKey: providertest.APIKey, Stream: true, RetryBackoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	o := provenance.Origin{Layer: provenance.Project, Source: "test.json", Line: 3}
	perm.Rules = append(perm.Rules,
		permission.Rule{Key: "write", Pattern: "*", Action: permission.Ask, Origin: o},
		permission.Rule{Key: "read", Pattern: "*", Action: permission.Allow, Origin: o})
	g, err := gate.New(gate.Config{Permission: perm, Shell: shellguard.Config{ProjectRoot: dir, Home: dir}, Boundary: fsguard.Boundary{ProjectRoot: dir}})
	if err != nil {
		t.Fatal(err)
	}
	tr := &fsguard.Tracker{}
	tr.Start(time.Now())
	return agent.Config{Agent: agent.Build, Model: "m", Provider: p, Gate: g,
		Tools: []tools.Tool{tools.ReadTool{}, tools.WriteTool{}},
		Env:   &tools.Env{Boundary: fsguard.Boundary{ProjectRoot: dir}, Cwd: dir, Tracker: tr}}, srv, dir
}

func write(path, content string) providertest.Turn {
	return providertest.Call("write", map[string]string{"path": path, "content": content})
}

// results are the tool results the model was sent in the last request.
func results(t *testing.T, srv *providertest.Server) []*message.ToolResult {
	t.Helper()
	reqs := srv.Requests()
	ms := reqs[len(reqs)-1].Messages
	var out []*message.ToolResult
	for _, p := range ms[len(ms)-1].Parts {
		if p.ToolResult != nil {
			out = append(out, p.ToolResult)
		}
	}
	return out
}

func events(c *agent.Config) *[]agent.Event {
	var evs []agent.Event
	c.OnEvent = func(e agent.Event) { evs = append(evs, e) }
	return &evs
}

func TestMaxTurns(t *testing.T) {
	c, _, _ := setup(t, permission.Config{}, providertest.Call("read", map[string]string{"path": "a"}), providertest.Call("read", map[string]string{"path": "b"}))
	c.MaxTurns = 2
	evs := events(&c)
	res, err := agent.Run(context.Background(), c, nil, "go")
	if !errors.Is(err, agent.ErrMaxTurns) || res.StopReason != "max_turns" || res.Turns != 2 {
		t.Fatalf("Run = %q %d, %v", res.StopReason, res.Turns, err)
	}
	if last := (*evs)[len(*evs)-1]; last.Type != agent.EventDone || last.StopReason != "max_turns" {
		t.Errorf("last event = %+v", last)
	}
}

func TestUnknownToolAndInvalidInput(t *testing.T) {
	c, srv, _ := setup(t, permission.Config{},
		providertest.Turn{ToolCalls: []providertest.ToolCall{
			{Name: "teleport", Input: json.RawMessage(`{}`)},
			{Name: "read", Input: json.RawMessage(`{"path": 5}`)},
		}},
		providertest.Text("ok"))
	if _, err := agent.Run(context.Background(), c, nil, "go"); err != nil {
		t.Fatal(err)
	}
	rs := results(t, srv)
	if len(rs) != 2 {
		t.Fatalf("results = %+v", rs)
	}
	if !rs[0].IsError || !strings.Contains(rs[0].Content, `unknown tool "teleport"`) || !strings.Contains(rs[0].Content, "read, write") {
		t.Errorf("unknown tool: %+v", rs[0])
	}
	if !rs[1].IsError || !strings.Contains(rs[1].Content, "invalid input for read") {
		t.Errorf("invalid input: %+v", rs[1])
	}
}

// TestDoomLoop: the same call three times in a row asks before it runs
// again; headless without --auto that ask is refused.
func TestDoomLoop(t *testing.T) {
	same := providertest.Call("read", map[string]string{"path": "a.txt"})
	c, srv, dir := setup(t, permission.Config{}, same, same, same, providertest.Text("ok"))
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	evs := events(&c)
	res, err := agent.Run(context.Background(), c, nil, "go")
	if err != nil {
		t.Fatal(err)
	}
	rs := results(t, srv)
	if len(rs) != 1 || !rs[0].IsError || !strings.Contains(rs[0].Content, "three times in a row") {
		t.Errorf("third call's result = %+v", rs)
	}
	if res.Denied != 1 {
		t.Errorf("denied = %d", res.Denied)
	}
	var loop *agent.Decision
	for _, e := range *evs {
		if e.Type == agent.EventPermission && e.Decision.Unit == "read" && e.Decision.Answer == "refused" {
			loop = e.Decision
		}
	}
	if loop == nil {
		t.Errorf("no refused doom-loop decision in %+v", *evs)
	}
}

// TestAsk: once runs the call, always runs it and remembers it (the same
// call does not ask again), deny with feedback refuses it and the model
// reads the feedback.
func TestAsk(t *testing.T) {
	c, srv, dir := setup(t, permission.Config{},
		write("once.txt", "1"), write("always.txt", "2"), write("always.txt", "2"), write("denied.txt", "3"), providertest.Text("ok"))
	answers := map[string]agent.Reply{
		"once.txt":   {Answer: agent.Once, Feedback: "keep it short"},
		"always.txt": {Answer: agent.Always},
		"denied.txt": {Answer: agent.Deny, Feedback: "not that file"},
	}
	var asked []string
	c.Ask = func(_ context.Context, a agent.Ask) (agent.Reply, error) {
		asked = append(asked, a.Target.Input)
		if a.Event == nil || a.Event.Rule != "Edit(*) ask" || a.Event.Source != "test.json" || !a.Rememberable {
			t.Errorf("ask = %+v", a)
		}
		return answers[a.Target.Input], nil
	}
	var perms []string
	c.OnEvent = func(e agent.Event) {
		if e.Type == agent.EventPermission {
			perms = append(perms, e.Decision.Action+" "+e.Decision.Answer)
		}
	}
	res, err := agent.Run(context.Background(), c, nil, "go")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(asked, ",") != "once.txt,always.txt,denied.txt" {
		t.Errorf("asked about %v", asked)
	}
	if strings.Join(perms, ",") != "ask user:once,ask user:always,allow ,ask user:deny" {
		t.Errorf("decisions %v", perms)
	}
	if res.Denied != 1 {
		t.Errorf("denied = %d", res.Denied)
	}
	reqs := srv.Requests()
	first := reqs[1].Messages[len(reqs[1].Messages)-1].Parts[0].ToolResult
	if first.IsError || !strings.HasPrefix(first.Content, "The user approved this call and said: keep it short") {
		t.Errorf("approved with feedback: %+v", first)
	}
	if rs := results(t, srv); len(rs) != 1 || !rs[0].IsError || rs[0].Content != "the user declined this call: not that file" {
		t.Errorf("denied with feedback: %+v", rs)
	}
	for name, want := range map[string]bool{"once.txt": true, "always.txt": true, "denied.txt": false} {
		if _, err := os.Stat(filepath.Join(dir, name)); (err == nil) != want {
			t.Errorf("%s written: %v, want %v", name, err == nil, want)
		}
	}
	// An error from Ask is a deny.
	c2, _, _ := setup(t, permission.Config{}, write("x.txt", "x"), providertest.Text("ok"))
	c2.Ask = func(context.Context, agent.Ask) (agent.Reply, error) { return agent.Reply{}, errors.New("gone") }
	if res, err := agent.Run(context.Background(), c2, nil, "go"); err != nil || res.Denied != 1 {
		t.Errorf("ask error: denied %d, %v", res.Denied, err)
	}
}

// TestModeDowngradeEvent: a mode the locks rule out is said so right after
// start, as a mode_change event.
func TestModeDowngradeEvent(t *testing.T) {
	c, _, _ := setup(t, permission.Config{Mode: permission.BypassPermissions,
		Locks: permission.Locks{DisallowedModes: map[permission.Mode]string{permission.BypassPermissions: "locked out by requirements r.json (serial 2)"}}},
		providertest.Text("ok"), providertest.Text("ok"))
	evs := events(&c)
	if _, err := agent.Run(context.Background(), c, nil, "go"); err != nil {
		t.Fatal(err)
	}
	e := (*evs)[1]
	if (*evs)[0].Type != agent.EventStart || (*evs)[0].Mode != "default" || e.Type != agent.EventModeChange || e.Key != "permission_mode" ||
		e.Requested != "bypassPermissions" || e.Mode != "default" || !strings.Contains(e.Text, "locked out by requirements r.json") {
		t.Errorf("events = %+v", (*evs)[:2])
	}
	// A later turn of the same session does not say it again.
	c.QuietStart = true
	*evs = nil
	if _, err := agent.Run(context.Background(), c, nil, "again"); err != nil {
		t.Fatal(err)
	}
	for _, e := range *evs {
		if e.Type == agent.EventModeChange {
			t.Errorf("quiet start told %+v", e)
		}
	}
}

// TestContinue: history ending in an assistant message with unanswered
// tool calls: Continue runs them (through the gate) and goes on; Run
// answers them as interrupted before the new prompt.
func TestContinue(t *testing.T) {
	history := []message.Message{message.UserText("go"), {Role: message.Assistant, Parts: []message.Part{
		{Type: message.ToolUse, ToolCall: &message.ToolCall{ID: "call_1", Name: "write", Input: json.RawMessage(`{"path":"c.txt","content":"c"}`)}}}}}
	c, srv, dir := setup(t, permission.Config{}, providertest.Text("done"))
	c.Ask = func(context.Context, agent.Ask) (agent.Reply, error) { return agent.Reply{Answer: agent.Once}, nil }
	res, err := agent.Continue(context.Background(), c, history)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Messages) != 4 || res.Messages[3].TextOf() != "done" {
		t.Fatalf("conversation = %+v", res.Messages)
	}
	if rs := results(t, srv); len(rs) != 1 || rs[0].CallID != "call_1" || rs[0].IsError {
		t.Errorf("results = %+v", rs)
	}
	if _, err := os.Stat(filepath.Join(dir, "c.txt")); err != nil {
		t.Error(err)
	}
	c2, srv2, _ := setup(t, permission.Config{}, providertest.Text("done"))
	if _, err := agent.Run(context.Background(), c2, history, "next"); err != nil {
		t.Fatal(err)
	}
	reqs := srv2.Requests()
	ms := reqs[0].Messages
	if len(ms) != 4 || !strings.HasPrefix(ms[2].Parts[0].ToolResult.Content, "interrupted") || ms[3].TextOf() != "next" {
		t.Errorf("Run over unanswered calls sent %+v", ms)
	}
}
