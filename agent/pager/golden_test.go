package pager

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/message"
	"github.com/oceancode/oceancode/agent/provider/providertest"
	"github.com/oceancode/oceancode/agent/runner"
)

var update = flag.Bool("update", false, "rewrite the golden frames under testdata/")

// frame is the terminal as the user sees it: the scrollback's last lines
// with the live region under them, height rows at most.
func (h *harness) frame() string {
	h.m.spin = 0 // the spinner's frame depends on how long the test ran
	h.mu.Lock()
	lines := strings.Split(strings.Join(append(append([]string(nil), h.out...), h.m.render()), "\n"), "\n")
	h.mu.Unlock()
	if len(lines) > h.m.height {
		lines = lines[len(lines)-h.m.height:]
	}
	return strings.Join(lines, "\n") + "\n"
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs (go test -update rewrites it):\n--- got (without styles)\n%s\n--- want (without styles)\n%s", path, plain(got), plain(string(want)))
	}
}

const goldenAnswer = "## Done\n\nI created `hi.txt` with:\n\n- one line, `hi`\n- nothing else\n\n```sh\ncat hi.txt\n```\n\nAsk if you want more."

// TestGoldenFrames: at 80x24 and 120x40, dark and light
// (testdata/frame-*.golden), a real session after an approved tool call and
// a markdown answer, and (frame-ask-*) one waiting on an ask, its dialog
// open.
func TestGoldenFrames(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		for _, dark := range []bool{true, false} {
			theme := map[bool]string{true: "dark", false: "light"}[dark]
			call := bash("echo hi > hi.txt")
			call.Usage = &message.Usage{InputTokens: 900, OutputTokens: 20}
			name := fmt.Sprintf("frame-%dx%d-%s.golden", size[0], size[1], theme)
			t.Run(name, func(t *testing.T) {
				f := newFixture(t, call, providertest.Turn{Text: goldenAnswer, Usage: &message.Usage{InputTokens: 1100, OutputTokens: 60}})
				_, eng := f.start("")
				h := newHarness(t, eng, size[0], size[1], dark)
				h.send(Submit{Text: "write hi to hi.txt"})
				h.until("the dialog", func() bool { return h.m.dialog != nil })
				h.send(replyMsg{runner.Reply{Answer: agent.Once}})
				h.until("the turn's end", h.printedHas("─ end_turn"))
				h.until("idle", func() bool { return !h.m.working })
				h.settle()
				golden(t, name, h.frame())
			})
			name = fmt.Sprintf("frame-ask-%dx%d-%s.golden", size[0], size[1], theme)
			t.Run(name, func(t *testing.T) {
				f := newFixture(t, call)
				_, eng := f.start("")
				h := newHarness(t, eng, size[0], size[1], dark)
				h.send(Submit{Text: "write hi to hi.txt"})
				h.until("the dialog", func() bool { return h.m.dialog != nil })
				h.settle()
				golden(t, name, h.frame())
			})
		}
	}
}

// TestDocsScreenshot: docs/pager.md shows the 80x24 dark golden frame
// without colours (-update rewrites the block).
func TestDocsScreenshot(t *testing.T) {
	const marker = "<!-- screenshot: agent/pager/testdata/frame-80x24-dark.golden -->\n```text\n"
	path := filepath.Join("..", "..", "docs", "pager.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	frame, err := os.ReadFile(filepath.Join("testdata", "frame-80x24-dark.golden"))
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(doc), marker)
	if i < 0 {
		t.Fatalf("%s has no screenshot block", path)
	}
	start := i + len(marker)
	end := strings.Index(string(doc)[start:], "```\n")
	if end < 0 {
		t.Fatalf("%s: the screenshot block does not end", path)
	}
	want := plain(string(frame))
	if got := string(doc)[start : start+end]; got != want {
		if *update {
			out := string(doc)[:start] + want + string(doc)[start+end:]
			if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("the screenshot in %s is not the golden frame (go test -update rewrites it):\n%s", path, want)
	}
}
