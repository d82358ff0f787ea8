package pager

import (
	"context"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/oceancode/oceancode/agent/provider/providertest"
	"github.com/oceancode/oceancode/agent/runner"
	"github.com/oceancode/oceancode/agent/runner/runnertest"
)

// inspectHook serves testdata/inspect.json (the shape of `oceancode
// inspect --json`, cut from layers/report's golden).
func inspectHook(t *testing.T) func() ([]byte, error) {
	t.Helper()
	b, err := os.ReadFile("testdata/inspect.json")
	if err != nil {
		t.Fatal(err)
	}
	return func() ([]byte, error) { return b, nil }
}

// TestSlashCommands: each command's output in the scrollback, over a real
// session (whose runner cannot switch models yet: that is said).
func TestSlashCommands(t *testing.T) {
	f := newFixture(t)
	f.hooks.Inspect = inspectHook(t)
	s, eng := f.start("")
	tests := []struct {
		line string
		name string
		args []string
		want []string
	}{
		{"/model", "model", nil, []string{"model: claude-test"}},
		{"/model other", "model", []string{"other"}, []string{"/model: model switching unavailable"}},
		{"/agent plan", "agent", []string{"plan"}, []string{"/agent: agent switching unavailable"}},
		{"/inspect permission_mode", "inspect", []string{"permission_mode"}, []string{"permission_mode = default", "from requirements", "not locked", "overrides "}},
		{"/inspect sandbox.mode", "inspect", []string{"sandbox.mode"}, []string{"sandbox.mode = ", "locked (pinned by the requirements)"}},
		{"/inspect permission.bash", "inspect", []string{"permission.bash"}, []string{"permission.bash…", `permission.bash["git status"] = deny`}},
		{"/inspect nope", "inspect", []string{"nope"}, []string{"no key nope is set"}},
		{"/inspect", "inspect", nil, []string{"give one KEY"}},
		{"/permissions", "permissions", nil, []string{`deny  bash "git status"  user $ROOT/home/.config/oceancode/oceancode.json:4`,
			"overrides allow from project $ROOT/project/.oceancode/oceancode.json:4", `ask   edit "*"`,
			"bypassPermissions locked: bypassPermissions is locked out", "recently denied: none"}},
		{"/sandbox", "sandbox", nil, []string{"sandbox: (not reported by this session)", "configured: sandbox workspace-write, network off"}},
		{"/mcp", "mcp", nil, []string{"mcp: no servers"}},
		{"/mcp add gh -- gh-mcp --stdio", "mcp", []string{"add", "gh", "--", "gh-mcp", "--stdio"}, []string{"adding MCP server gh", "/mcp add gh: runner: add mcp server gh: this session has no MCP client"}},
		{"/mcp add gh", "mcp", []string{"add", "gh"}, []string{"usage: /mcp add NAME -- COMMAND ARGS… or /mcp add NAME URL"}},
		{"/sessions", "sessions", nil, []string{"sessions (/sessions ID resumes one):", "● " + s.ID()}},
		{"/sessions x", "sessions", []string{"x"}, []string{"/sessions: resuming is unavailable here"}},
		{"/clear", "clear", nil, []string{"/clear: a new session is unavailable here"}},
		{"/help", "help", nil, []string{"keys:", "Shift+Tab", "Ctrl+O"}},
		{"/frobnicate", "frobnicate", nil, []string{"unknown command /frobnicate"}},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			h := newHarness(t, eng, 120, 30, true)
			h.until("the state", func() bool { return h.m.state.Model != "" })
			// The parser gives the same name and arguments.
			name, args, ok := ParseCommand(tt.line)
			if !ok || name != tt.name || strings.Join(args, " ") != strings.Join(tt.args, " ") {
				t.Errorf("ParseCommand(%q) = %q %q %v", tt.line, name, args, ok)
			}
			h.send(commandMsg{tt.name, tt.args})
			h.settle()
			out := h.printed()
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("scrollback lacks %q:\n%s", w, out)
				}
			}
		})
	}
	h := newHarness(t, eng, 80, 24, true)
	h.send(commandMsg{"exit", nil})
	h.until("/exit to quit", func() bool { return h.quit })
}

// TestInspectUnavailable: without the hook the command says so.
func TestInspectUnavailable(t *testing.T) {
	f := newFixture(t)
	_, eng := f.start("")
	h := newHarness(t, eng, 80, 24, true)
	h.send(commandMsg{"permissions", nil})
	h.settle()
	if out := h.printed(); !strings.Contains(out, "/permissions: pager: inspect: unavailable in this session") {
		t.Errorf("scrollback:\n%s", out)
	}
}

// TestResumeAndClear: /sessions ID switches to a stored session (its
// events replay into the scrollback, the previous engine is closed), and
// /clear opens a fresh one; the scrollback stays.
func TestResumeAndClear(t *testing.T) {
	f := newFixture(t, answer("the first answer"))
	old, oldEng := f.start("")
	if _, err := old.Run(context.Background(), "the first prompt"); err != nil {
		t.Fatal(err)
	}
	oldID := old.ID()
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	_ = oldEng
	cur, eng := f.start("")
	h := newHarness(t, eng, 80, 24, true, func(o *Options) {
		o.Resume = func(ctx context.Context, id string) (Engine, error) {
			_, e := f.start(id)
			return e, nil
		}
		o.New = func(ctx context.Context) (Engine, error) {
			_, e := f.start("")
			return e, nil
		}
	})
	h.send(commandMsg{"sessions", []string{oldID}})
	h.until("the replay", h.printedHas("the first answer"))
	out := h.printed()
	for _, w := range []string{"─── session " + oldID, "> the first prompt", "─ end_turn"} {
		if !strings.Contains(out, w) {
			t.Errorf("scrollback lacks %q:\n%s", w, out)
		}
	}
	h.until("the previous session to close", func() bool { return cur.State().Status == runner.StatusClosed })
	if h.m.eng.ID() != oldID {
		t.Errorf("engine = %s, want %s", h.m.eng.ID(), oldID)
	}
	h.send(commandMsg{"clear", nil})
	h.until("a fresh session", func() bool { return h.m.eng.ID() != oldID })
	h.settle()
	// The fresh session's header names it "(new)" until the store has
	// given it an id, and by its id after: which one the header meets
	// depends on the store's goroutine, not on the pager.
	out = h.printed()
	fresh := strings.Contains(out, "─── session (new)") || strings.Contains(out, "─── session "+h.m.eng.ID())
	if !strings.Contains(out, "the first answer") || !fresh {
		t.Errorf("scrollback after /clear:\n%s", out)
	}
}

// TestCtrlC: Ctrl+C cancels the running turn through the engine; a
// second within 2 s exits; idle, the first says how to exit.
func TestCtrlC(t *testing.T) {
	f := newFixture(t, providertest.Turn{Text: "a slow answer", Delay: providertest.Duration(20 * time.Second)})
	s, eng := f.start("")
	h := newHarness(t, eng, 80, 24, true)
	h.send(Submit{Text: "go"})
	h.until("the turn", func() bool { return h.m.working })
	<-f.srv.Stalled()
	h.until("the spinner to turn", func() bool { return h.m.spin > 1 })
	if v := h.view(); !strings.Contains(v, spinner[h.m.spin%len(spinner)]+" 0s · claude-test") {
		t.Errorf("status line while working: %q", v)
	}
	h.key("ctrl+c")
	h.until("the cancelled turn", h.printedHas("─ cancelled"))
	if h.quit {
		t.Fatal("one Ctrl+C exited")
	}
	h.until("the engine's stop reason", func() bool { return s.State().StopReason == runner.StopCancelled })
	at := h.m.now()
	h.m.now = func() time.Time { return at.Add(3 * time.Second) } // outside the window
	h.key("ctrl+c")
	if h.quit || !strings.Contains(h.view(), "press Ctrl+C again to exit") {
		t.Fatalf("idle Ctrl+C: quit %v view %q", h.quit, h.view())
	}
	h.key("ctrl+c")
	h.until("a second Ctrl+C to exit", func() bool { return h.quit })
	h2 := newHarness(t, eng, 80, 24, true)
	h2.key("ctrl+d")
	h2.until("Ctrl+D on an empty prompt to exit", func() bool { return h2.quit })
}

// TestResubscribeAfterLag: a pager that falls behind is dropped by the
// session; it subscribes again after the last event it saw and the answer
// lands whole, once.
func TestResubscribeAfterLag(t *testing.T) {
	var words []string
	for i := 1; i <= 300; i++ {
		words = append(words, "w"+strconv.Itoa(i))
	}
	f := newFixture(t, answer(strings.Join(words, " ")))
	f.buffer = 4
	s, eng := f.start("")
	h := newHarness(t, eng, 80, 24, true)
	h.until("the subscription", func() bool { return h.m.sub != nil })
	if err := s.Send("go"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for s.State().Status != runner.StatusIdle || s.LastSeq() < 100 { // not pumping: the pager falls behind
		if time.Now().After(deadline) {
			t.Fatal("the turn did not end")
		}
		time.Sleep(10 * time.Millisecond)
	}
	h.until("the answer", h.printedHas("─ end_turn"))
	got := regexp.MustCompile(`\bw\d+\b`).FindAllString(h.printed(), -1)
	if strings.Join(got, " ") != strings.Join(words, " ") {
		t.Errorf("the answer arrived as %d words: %v", len(got), got)
	}
	if n := strings.Count(h.printed(), "> go"); n != 1 {
		t.Errorf("the prompt was printed %d times", n)
	}
}

// TestRetryDenied: a retry from the denied list asks the model to run the
// exact call again (so it goes through the gate again).
func TestRetryDenied(t *testing.T) {
	f := newFixture(t, answer("ok"))
	_, eng := f.start("")
	h := newHarness(t, eng, 80, 24, true)
	h.run(h.m.retry(DeniedCall{Tool: "bash", Target: "rm -r build", Reason: `denied by rule bash "rm *"`}))
	h.until("the turn's end", h.printedHas("─ end_turn"))
	if p := runnertest.LastPrompt(t, f.srv); !strings.Contains(p, "run that exact call again: the bash tool on rm -r build") {
		t.Errorf("the model was sent %q", p)
	}
}

// TestReplayGap: events the engine no longer holds (an unrecorded session
// past its replay window) are said to be missing, and the pager goes on
// from the newest: the next prompt's answer arrives.
func TestReplayGap(t *testing.T) {
	f := newFixture(t, answer(longAnswer(2500)), answer("after the gap"))
	f.unrecorded = true
	s, eng := f.start("")
	if _, err := s.Run(context.Background(), "long"); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, eng, 80, 24, true)
	h.until("the gap notice", h.printedHas("some events of this session were not recorded"))
	h.send(Submit{Text: "again"})
	h.until("the next answer", h.printedHas("after the gap"))
	if strings.Contains(h.printed(), "word2500") {
		t.Error("events outside the window were shown")
	}
}
