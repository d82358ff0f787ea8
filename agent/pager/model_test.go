package pager

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/message"
	"github.com/oceancode/oceancode/agent/provider/providertest"
	"github.com/oceancode/oceancode/agent/runner"
	"github.com/oceancode/oceancode/agent/runner/runnertest"
)

func bash(cmd string) providertest.Turn {
	return providertest.Call("bash", map[string]string{"command": cmd})
}

func answer(text string) providertest.Turn {
	return providertest.Turn{Text: text, Usage: &message.Usage{InputTokens: 1200, OutputTokens: 34}}
}

// TestStreamedAnswer: a prompt's answer streams through the markdown
// renderer into the scrollback; the turn's end says why it stopped and the
// tokens, the status line the model and the tokens.
func TestStreamedAnswer(t *testing.T) {
	f := newFixture(t, answer("Hello **world**.\n\nA second paragraph with `code`."))
	_, eng := f.start("")
	h := newHarness(t, eng, 80, 24, true)
	h.send(Submit{Text: "say hello"})
	h.until("the turn's end", h.printedHas("─ end_turn"))
	out := h.printed()
	for _, want := range []string{"> say hello", "Hello world.", "A second paragraph with", "─ end_turn · 1.2k in · 34 out"} {
		if !strings.Contains(out, want) {
			t.Errorf("scrollback lacks %q:\n%s", want, out)
		}
	}
	if strings.Index(out, "Hello world.") > strings.Index(out, "A second paragraph") {
		t.Errorf("paragraphs out of order:\n%s", out)
	}
	h.until("the idle state", func() bool { return !h.m.working })
	if v := h.view(); !strings.Contains(v, "claude-test · build · default") || !strings.Contains(v, "1.2k tokens") {
		t.Errorf("status line = %q", v)
	}
	if got := f.srv.Requests()[0].Messages[0].Parts[0].Text; got != "say hello" {
		t.Errorf("the model was sent %q", got)
	}
}

// TestApprovalOnce: a bash call that asks opens the dialog; the answer goes
// to the engine (the call runs), and the scrollback says who approved it
// under which rule.
func TestApprovalOnce(t *testing.T) {
	f := newFixture(t, bash("echo hi > hi.txt"), answer("done"))
	s, eng := f.start("")
	h := newHarness(t, eng, 80, 24, true)
	h.send(Submit{Text: "run it"})
	h.until("the dialog", func() bool { return h.m.dialog != nil })
	if got := h.m.dialog.Ask; got.Tool != "bash" || got.Target != "echo hi > hi.txt" {
		t.Fatalf("dialog ask = %+v", got)
	}
	if len(s.Pending()) != 1 {
		t.Fatalf("engine pending = %d", len(s.Pending()))
	}
	h.key("y") // once
	h.until("the turn's end", h.printedHas("─ end_turn"))
	out := h.printed()
	for _, want := range []string{"● bash  echo hi > hi.txt", "✓ approved by you (once) — asked by rule", "(project test.json:1)"} {
		if !strings.Contains(out, want) {
			t.Errorf("scrollback lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(f.dir, "hi.txt")); err != nil {
		t.Errorf("the approved call did not run: %v", err)
	}
	if h.m.dialog != nil || len(s.Pending()) != 0 {
		t.Errorf("dialog %v, engine pending %d after the answer", h.m.dialog, len(s.Pending()))
	}
}

// TestDeniedByRule: a rule's deny is shown with the rule and its layer,
// and the denied list gets the call.
func TestDeniedByRule(t *testing.T) {
	f := newFixture(t, bash("rm -r build"), answer("ok"))
	_, eng := f.start("")
	h := newHarness(t, eng, 100, 24, false)
	h.send(Submit{Text: "clean"})
	h.until("the turn's end", h.printedHas("─ end_turn"))
	if out := h.printed(); !strings.Contains(out, "✗ denied by rule") || !strings.Contains(out, "(project test.json:1)") {
		t.Errorf("scrollback:\n%s", out)
	}
}

// TestAnsweredElsewhere: another client answers the ask: the resolved
// event closes the dialog and the status line says who answered.
func TestAnsweredElsewhere(t *testing.T) {
	f := newFixture(t, bash("echo hi > hi.txt"), answer("done"))
	s, eng := f.start("")
	h := newHarness(t, eng, 80, 24, true)
	h.send(Submit{Text: "run it"})
	h.until("the dialog", func() bool { return h.m.dialog != nil })
	if err := s.Answer(h.m.dialog.Ask.ID, runner.Reply{Answer: agent.Deny, By: "web"}); err != nil {
		t.Fatal(err)
	}
	h.until("the dialog to close", func() bool { return h.m.dialog == nil })
	if !strings.Contains(h.view(), "web answered bash: deny") {
		t.Errorf("view = %q", h.view())
	}
	h.until("the turn's end", h.printedHas("─ end_turn"))
	if out := h.printed(); !strings.Contains(out, "✗ denied by web") {
		t.Errorf("scrollback:\n%s", out)
	}
	// The ask's bookkeeping is forgotten once its call is decided.
	if len(h.m.asked) != 0 || len(h.m.answeredBy) != 0 {
		t.Errorf("asked %v, answeredBy %v after the call was decided", h.m.asked, h.m.answeredBy)
	}
}

// TestQuestion: the question tool's ask is answered in the composer; the
// answer reaches the model.
func TestQuestion(t *testing.T) {
	f := newFixture(t, providertest.Call("question", map[string]any{"question": "which db?", "options": []string{"sqlite", "postgres"}}), answer("using it"))
	_, eng := f.start("")
	h := newHarness(t, eng, 80, 24, true)
	h.send(Submit{Text: "set up a db"})
	h.until("the question", func() bool { return h.m.question() != nil })
	if v := h.view(); !strings.Contains(v, "? which db?") || !strings.Contains(v, "sqlite · postgres") {
		t.Errorf("view = %q", v)
	}
	if h.m.dialog != nil {
		t.Error("a question opened the dialog")
	}
	h.send(Submit{Text: "postgres"})
	h.until("the turn's end", h.printedHas("─ end_turn"))
	if out := h.printed(); !strings.Contains(out, "↳ postgres") {
		t.Errorf("scrollback:\n%s", out)
	}
	if got := runnertest.LastResult(t, f.srv); !strings.Contains(got, "postgres") {
		t.Errorf("the model was told %q", got)
	}
}

// TestDialogFitsTheTerminal: the live region of a long edit's dialog fits
// the terminal's rows, its choices on the screen (the model bounds the
// dialog by the rows the status line leaves), and follows a resize.
func TestDialogFitsTheTerminal(t *testing.T) {
	m := newModel(context.Background(), Options{Width: 80, Height: 24, Root: t.TempDir()})
	m.addAsk(bigEditAsk())
	if m.dialog == nil {
		t.Fatal("the ask opened no dialog")
	}
	for _, h := range []int{24, 18} {
		m.resize(80, h)
		v := plain(m.render())
		if rows := strings.Count(v, "\n") + 1; rows > h {
			t.Errorf("%d rows: %d rows:\n%s", h, rows, v)
		}
		if !strings.Contains(v, "y yes, once") || !strings.Contains(v, "more (PgDn)") {
			t.Errorf("%d rows: the choices are off the screen:\n%s", h, v)
		}
	}
}
