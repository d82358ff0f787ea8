package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/childenv"
	"github.com/oceancode/oceancode/agent/fsguard"
	"github.com/oceancode/oceancode/agent/gate"
	"github.com/oceancode/oceancode/agent/hooks"
	"github.com/oceancode/oceancode/agent/message"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/provider/providertest"
	"github.com/oceancode/oceancode/agent/shellguard"
	"github.com/oceancode/oceancode/provenance"
)

// withHook gives c one hook (a real subprocess) from the user layer's
// file at line 7.
func withHook(t *testing.T, c *agent.Config, dir string, event hooks.Event, matcher, cmd string) {
	t.Helper()
	o := provenance.Origin{Layer: provenance.User, Source: "/u/oceancode.json", Line: 7, Column: 5}
	hs, err := hooks.Parse(string(event), 0, hooks.Group{Matcher: matcher, Hooks: []hooks.Command{{Type: "command", Command: cmd}}}, o)
	if err != nil {
		t.Fatal(err)
	}
	r := &hooks.Runner{Hooks: hs, Dir: dir, ProjectRoot: dir, Env: childenv.Compose(os.Environ(), childenv.Config{})}
	c.Hooks = r.Fire
}

func permissionEvent(evs []agent.Event) *agent.Decision {
	for _, e := range evs {
		if e.Type == agent.EventPermission {
			return e.Decision
		}
	}
	return nil
}

// A PreToolUse hook that exits 2 refuses the call: the model reads its
// stderr, the permission event names the hook and its file:line.
func TestHookExit2Blocks(t *testing.T) {
	c, srv, dir := setup(t, permission.Config{}, write("b.txt", "x"), providertest.Text("ok"))
	withHook(t, &c, dir, hooks.PreToolUse, "Write", `echo "writes are frozen today" >&2; exit 2`)
	c.Auto = true
	evs := events(&c)
	res, err := agent.Run(context.Background(), c, nil, "go")
	if err != nil || res.Denied != 1 {
		t.Fatalf("Run: %v, denied %d", err, res.Denied)
	}
	rs := results(t, srv)
	if len(rs) != 1 || !rs[0].IsError || !strings.Contains(rs[0].Content, "writes are frozen today") {
		t.Errorf("the model read %+v", rs)
	}
	if _, err := os.Stat(filepath.Join(dir, "a.txt")); err == nil {
		t.Error("the blocked write ran")
	}
	d := permissionEvent(*evs)
	if d == nil || d.Action != "deny" || !strings.HasPrefix(d.Rule, "hook PreToolUse[Write] ") || d.Layer != "user" || d.Source != "/u/oceancode.json" || d.Line != 7 {
		t.Errorf("permission event %+v", d)
	}
	var hookEv *agent.Event
	for i, e := range *evs {
		if e.Type == agent.EventHook {
			hookEv = &(*evs)[i]
		}
	}
	if hookEv == nil || hookEv.Key != "PreToolUse" || hookEv.Decision.Action != "deny" || hookEv.ToolCall == nil {
		t.Errorf("hook event %+v", hookEv)
	}
}

// The precedence: a hook's allow skips an ask of its own layer or below,
// never a deny rule or a requirements ask; its ask turns an allow into an
// ask.
func TestHookPrecedence(t *testing.T) {
	allow := `echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'`
	ask := `echo '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"look first"}}'`
	req := provenance.Origin{Layer: provenance.Requirements, Source: "/etc/oceancode/requirements.json"}
	for _, tc := range []struct {
		name   string
		rules  []permission.Rule
		tool   providertest.Turn
		hook   string
		action string // the permission event's
		answer string
		ran    bool
	}{
		{"allow skips a project ask", nil, write("b.txt", "x"), allow, "allow", "", true},
		{"allow never skips a requirements ask", []permission.Rule{{Key: "write", Pattern: "*", Action: permission.Ask, Origin: req, Source: "requirements"}}, write("b.txt", "x"), allow, "ask", "refused", false},
		{"allow never overrides a deny rule", []permission.Rule{{Key: "write", Pattern: "b.txt", Action: permission.Deny, Origin: req}}, write("b.txt", "x"), allow, "deny", "", false},
		{"ask turns an allow into an ask", nil, providertest.Call("read", map[string]string{"path": "a.txt"}), ask, "ask", "refused", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, srv, dir := setup(t, permission.Config{}, tc.tool, providertest.Text("ok"))
			if tc.rules != nil { // after setup's own rules: the last match decides
				o := provenance.Origin{Layer: provenance.Project, Source: "test.json", Line: 3}
				rules := append([]permission.Rule{{Key: "write", Pattern: "*", Action: permission.Ask, Origin: o}}, tc.rules...)
				g, err := gate.New(gate.Config{Permission: permission.Config{Rules: rules}, Shell: shellguard.Config{ProjectRoot: dir, Home: dir}, Boundary: fsguard.Boundary{ProjectRoot: dir}})
				if err != nil {
					t.Fatal(err)
				}
				c.Gate = g
			}
			os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
			withHook(t, &c, dir, hooks.PreToolUse, "", tc.hook)
			evs := events(&c)
			if _, err := agent.Run(context.Background(), c, nil, "go"); err != nil {
				t.Fatal(err)
			}
			d := permissionEvent(*evs)
			if d == nil || d.Action != tc.action || d.Answer != tc.answer {
				t.Fatalf("permission event %+v, want %s %q", d, tc.action, tc.answer)
			}
			if tc.name == "ask turns an allow into an ask" && (!strings.HasPrefix(d.Rule, "hook PreToolUse") || d.Reason != "look first") {
				t.Errorf("the ask should name the hook: %+v", d)
			}
			if rs := results(t, srv); len(rs) != 1 || rs[0].IsError == tc.ran {
				t.Errorf("ran %v, want %v: %+v", !rs[0].IsError, tc.ran, rs[0])
			}
		})
	}
}

// PostToolUse: a block's reason and the context reach the model with the
// result.
func TestHookPostToolUse(t *testing.T) {
	c, srv, dir := setup(t, permission.Config{}, providertest.Call("read", map[string]string{"path": "a.txt"}), providertest.Text("ok"))
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
	withHook(t, &c, dir, hooks.PostToolUse, "Read", `grep -q '"tool_response":{"content":"' && echo '{"decision":"block","reason":"stale copy","hookSpecificOutput":{"additionalContext":"see b.txt"}}'`)
	if _, err := agent.Run(context.Background(), c, nil, "go"); err != nil {
		t.Fatal(err)
	}
	rs := results(t, srv)
	if len(rs) != 1 || !strings.Contains(rs[0].Content, "PostToolUse hook PostToolUse[Read] ") || !strings.Contains(rs[0].Content, ": stale copy") || !strings.Contains(rs[0].Content, "see b.txt") {
		t.Errorf("the model read %+v", rs)
	}
}

// UserPromptSubmit: a block ends the run before any request; context
// joins the prompt.
func TestHookPrompt(t *testing.T) {
	c, srv, dir := setup(t, permission.Config{}, providertest.Text("ok"))
	withHook(t, &c, dir, hooks.UserPromptSubmit, "", `grep -q secret && { echo "no secrets in prompts" >&2; exit 2; }; echo "on branch main"`)
	res, err := agent.Run(context.Background(), c, nil, "the secret is 42")
	if err != nil || res.StopReason != agent.StopHookBlocked || len(srv.Requests()) != 0 {
		t.Fatalf("Run = %q, %v, %d requests", res.StopReason, err, len(srv.Requests()))
	}
	for _, m := range res.Messages {
		if m.Role == message.User {
			t.Errorf("the blocked prompt was added: %+v", m)
		}
	}
	if _, err := agent.Run(context.Background(), c, nil, "hello"); err != nil {
		t.Fatal(err)
	}
	req := srv.Requests()[0]
	parts := req.Messages[len(req.Messages)-1].Parts
	if len(parts) != 2 || parts[0].Text != "hello" || !strings.Contains(parts[1].Text, "on branch main") {
		t.Errorf("prompt parts %+v", parts)
	}
}

// Stop: a block sends the model back to work with the reason; the hook
// sees stop_hook_active the second time and lets it stop.
func TestHookStop(t *testing.T) {
	c, srv, dir := setup(t, permission.Config{}, providertest.Text("done"), providertest.Text("really done"))
	withHook(t, &c, dir, hooks.Stop, "", `grep -q '"stop_hook_active":true' && exit 0; echo "run the tests first" >&2; exit 2`)
	res, err := agent.Run(context.Background(), c, nil, "go")
	if err != nil || res.Turns != 2 {
		t.Fatalf("Run: %v, %d turns", err, res.Turns)
	}
	reqs := srv.Requests()
	last := reqs[1].Messages[len(reqs[1].Messages)-1]
	if !strings.Contains(last.Parts[0].Text, "run the tests first") {
		t.Errorf("second request ends with %+v", last)
	}
}

// SessionStart's stdout joins the first prompt (only a session's first
// run: QuietStart); Notification runs when an ask is put to the user.
func TestHookSessionStartAndNotification(t *testing.T) {
	c, srv, dir := setup(t, permission.Config{}, write("b.txt", "x"), providertest.Text("ok"), providertest.Text("again"))
	withHook(t, &c, dir, hooks.SessionStart, "", `echo "repo acme, source $(grep -o '"source":"[a-z]*"')"`)
	more := c.Hooks
	withHook(t, &c, dir, hooks.Notification, "", `cat > notified.json`)
	notify := c.Hooks
	c.Hooks = func(ctx context.Context, in hooks.Input) hooks.Result {
		if in.Event == hooks.SessionStart {
			return more(ctx, in)
		}
		return notify(ctx, in)
	}
	c.Ask = func(context.Context, agent.Ask) (agent.Reply, error) { return agent.Reply{Answer: agent.Once}, nil }
	res, err := agent.Run(context.Background(), c, nil, "go")
	if err != nil {
		t.Fatal(err)
	}
	parts := srv.Requests()[0].Messages[0].Parts
	if len(parts) != 2 || !strings.Contains(parts[1].Text, `repo acme, source "source":"startup"`) {
		t.Errorf("first prompt parts %+v", parts)
	}
	b, err := os.ReadFile(filepath.Join(dir, "notified.json"))
	if err != nil || !strings.Contains(string(b), `"message":"OceanCode needs your permission to use write"`) || !strings.Contains(string(b), `"hook_event_name":"Notification"`) {
		t.Errorf("notification input %s (%v)", b, err)
	}
	c.QuietStart = true
	if _, err := agent.Run(context.Background(), c, res.Messages, "more"); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1].Messages
	if p := last[len(last)-1].Parts; len(p) != 1 {
		t.Errorf("a later run's prompt has %d parts: SessionStart ran again", len(p))
	}
}

// "continue": false ends the run after the call, with the hook's reason.
func TestHookContinueFalse(t *testing.T) {
	c, srv, dir := setup(t, permission.Config{}, write("b.txt", "x"), providertest.Text("never"))
	withHook(t, &c, dir, hooks.PreToolUse, "", `echo '{"continue":false,"stopReason":"budget spent"}'`)
	c.Auto = true
	evs := events(&c)
	res, err := agent.Run(context.Background(), c, nil, "go")
	if err != nil || res.StopReason != agent.StopHookBlocked || len(srv.Requests()) != 1 {
		t.Fatalf("Run = %q, %v, %d requests", res.StopReason, err, len(srv.Requests()))
	}
	if _, err := os.Stat(filepath.Join(dir, "b.txt")); err == nil {
		t.Error("the call ran after continue:false")
	}
	var errText string
	for _, e := range *evs {
		if e.Type == agent.EventError {
			errText = e.Text
		}
	}
	if errText != "budget spent" {
		t.Errorf("error event %q", errText)
	}
}

// A Stop hook that never lets the model stop sends it back at most 3
// times, and the run says so.
func TestHookStopBounded(t *testing.T) {
	c, _, dir := setup(t, permission.Config{}, providertest.Text("1"), providertest.Text("2"), providertest.Text("3"), providertest.Text("4"), providertest.Text("5"))
	withHook(t, &c, dir, hooks.Stop, "", `echo "never done" >&2; exit 2`)
	evs := events(&c)
	res, err := agent.Run(context.Background(), c, nil, "go")
	if err != nil || res.Turns != 4 || res.StopReason != "end_turn" {
		t.Fatalf("Run = %q %d turns, %v", res.StopReason, res.Turns, err)
	}
	var note string
	for _, e := range *evs {
		if e.Type == agent.EventHook && e.Decision == nil {
			note = e.Text
		}
	}
	if !strings.Contains(note, "sent the model back to work 3 times") {
		t.Errorf("note %q", note)
	}
}
