//go:build unix

package clitest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/oceancode/oceancode/agent/provider/providertest"
	"github.com/oceancode/oceancode/internal/hermetictest"
	"github.com/oceancode/oceancode/layers/layerstest"
)

// The pager's end-to-end tests run the real binary in a real terminal: a
// tmux server on a private socket (never the user's), keys sent with
// send-keys, the screen read with capture-pane — as a person would.

// term is one pager in a tmux pane.
type term struct {
	t      testing.TB
	socket string
	name   string
}

// startPager starts `oceancode ARGS` in a fresh tmux server of width x
// height, in the machine's project with the machine's environment.
func startPager(t testing.TB, m *layerstest.Machine, width, height int, args ...string) *term {
	t.Helper()
	bin, err := exec.LookPath("oceancode")
	if err != nil {
		t.Fatal(err)
	}
	return startPagerBin(t, bin, m, width, height, args...)
}

// startPagerBin is startPager with the binary bin.
func startPagerBin(t testing.TB, bin string, m *layerstest.Machine, width, height int, args ...string) *term {
	t.Helper()
	tmuxBin(t)
	tm := &term{t: t, socket: filepath.Join(t.TempDir(), "tmux.sock"), name: "pager"}
	env := serveEnv(m)
	env = append(env, "TERM=xterm-256color", "HOME="+m.Env["HOME"])
	// tmux passes its own environment to the pane: the command line sets
	// exactly the machine's.
	var cmd strings.Builder
	cmd.WriteString("env -i")
	for _, kv := range env {
		cmd.WriteString(" " + shellQuote(kv))
	}
	cmd.WriteString(" " + shellQuote(bin))
	for _, a := range args {
		cmd.WriteString(" " + shellQuote(a))
	}
	// The shell says how the pager ended, on the pane itself: what tmux
	// records of a dead pane (#{pane_dead_status}) was seen missing under
	// load.
	cmd.WriteString(`; echo "[pager exited $?]"`)
	// …and signals a tmux channel, which waitExit waits on: an event, not a
	// poll with a deadline (tmux keeps a signal sent before anyone waits).
	cmd.WriteString("; " + shellQuote(tmuxBin(t)) + " -S " + shellQuote(tm.socket) + " wait-for -S " + exitChannel)
	// remain-on-exit keeps the pane (and its last screen) after the
	// pager exits, so a test can read what it printed last. It is set in
	// the server's config, before the pane starts: a pager that exits at
	// once (the companion missing) would otherwise end the server before
	// a set-option after new-session reached it.
	conf := filepath.Join(filepath.Dir(tm.socket), "tmux.conf")
	if err := os.WriteFile(conf, []byte("set-option -g remain-on-exit on\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tm.tmux("-f", conf, "new-session", "-d", "-s", tm.name, "-x", fmt.Sprint(width), "-y", fmt.Sprint(height), "-c", m.Project, cmd.String())
	t.Cleanup(func() { exec.Command("tmux", "-S", tm.socket, "kill-server").Run() })
	return tm
}

// exitChannel is the tmux channel the pane signals when the pager ended.
const exitChannel = "pager-exited"

func tmuxBin(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("tmux")
	if err != nil {
		t.Fatal("tmux is not installed: apt-get install -y tmux (the pager's end-to-end tests need a real terminal)")
	}
	return bin
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func (tm *term) tmux(args ...string) string {
	tm.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", tm.socket}, args...)...).CombinedOutput()
	if err != nil {
		tm.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// keys sends tmux key names (send-keys syntax: "Enter", "BTab", "C-o").
func (tm *term) keys(keys ...string) {
	tm.t.Helper()
	tm.tmux(append([]string{"send-keys", "-t", tm.name}, keys...)...)
}

// typeText types text literally.
func (tm *term) typeText(s string) {
	tm.t.Helper()
	tm.tmux("send-keys", "-t", tm.name, "-l", s)
}

// screen is the visible pane and its scrollback, as text.
func (tm *term) screen() string {
	tm.t.Helper()
	return tm.tmux("capture-pane", "-p", "-J", "-S", "-1000", "-t", tm.name)
}

// waitFor waits until the screen contains s (within the hang guard) and
// returns it.
func (tm *term) waitFor(s string) string {
	tm.t.Helper()
	var last string
	for deadline := time.Now().Add(guard); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if last = tm.screen(); strings.Contains(last, s) {
			return last
		}
	}
	tm.t.Fatalf("the screen never showed %q; it shows:\n%s", s, last)
	return ""
}

// waitExit waits until the pager has ended (the pane's shell signals
// exitChannel after it) and returns its exit status.
func (tm *term) waitExit() string {
	tm.t.Helper()
	tm.tmux("wait-for", exitChannel)
	dead, status := tm.exited()
	if !dead {
		tm.t.Fatalf("the pane signalled the pager's end but does not show it:\n%s", tm.screen())
	}
	return status
}

// exited reports whether the pager ended, and its exit status, from the
// line the pane's shell prints after it.
func (tm *term) exited() (bool, string) {
	m := regexp.MustCompile(`\[pager exited (\d+)\]`).FindStringSubmatch(tm.screen())
	if m == nil {
		return false, ""
	}
	return true, m[1]
}

// pagerMachine is a machine whose project uses the scripted model, asks
// for every echo, and whose signed requirements lock out bypassPermissions
// and plan (so Shift+Tab meets a locked mode and Ctrl+O is refused).
func pagerMachine(t *testing.T, model *providertest.Server) *layerstest.Machine {
	m := serveMachine(t, model, `, "permission": {"bash": {"echo *": "ask"}}`)
	m.Anchor()
	m.Requirements(1, map[string]any{"disable_bypass_permissions": true,
		"allowed_permission_modes": []string{"default", "acceptEdits", "dontAsk"}})
	return m
}

// TestPagerTmux drives the pager in a real terminal as a person would: a
// prompt and its streamed answer, approvals answered once, always and
// deny (with a note to the model), Shift+Tab through a locked mode, Ctrl+O
// refused under the lock, /exit.
func TestPagerTmux(t *testing.T) {
	t.Parallel()
	model := providertest.New(t,
		providertest.Text("the tide is in and the answer streams"),
		providertest.Call("bash", map[string]string{"command": "echo once > once.txt"}),
		providertest.Text("wrote once.txt"),
		providertest.Call("bash", map[string]string{"command": "echo always"}),
		providertest.Call("bash", map[string]string{"command": "echo always"}),
		providertest.Text("ran it twice"),
		providertest.Call("bash", map[string]string{"command": "echo denied > denied.txt"}),
		providertest.Text("understood, not writing it"),
	)
	m := pagerMachine(t, model)
	tm := startPager(t, m, 110, 40)
	tm.waitFor("ask anything")

	// A prompt and its streamed answer.
	tm.typeText("say something")
	tm.keys("Enter")
	tm.waitFor("the tide is in and the answer streams")
	tm.waitFor("end_turn")

	// once: the dialog shows the parsed command and the rule that asked.
	tm.typeText("write once")
	tm.keys("Enter")
	s := tm.waitFor("Permission · bash")
	for _, want := range []string{"echo once > once.txt", `"echo *": "ask"`, "y once"} {
		if !strings.Contains(s, want) && !strings.Contains(s, strings.ReplaceAll(want, `"echo *": "ask"`, `echo *`)) {
			t.Errorf("the dialog lacks %q:\n%s", want, s)
		}
	}
	tm.keys("y")
	tm.waitFor("wrote once.txt")
	if b, err := os.ReadFile(filepath.Join(m.Project, "once.txt")); err != nil || strings.TrimSpace(string(b)) != "once" {
		t.Errorf("the approved command did not run: %q, %v", b, err)
	}

	// always: the first call asks, the second identical one does not.
	tm.typeText("run twice")
	tm.keys("Enter")
	s = tm.waitFor("Permission · bash")
	if !strings.Contains(s, `adds bash "echo always"`) {
		t.Errorf("the dialog does not say what always adds:\n%s", s)
	}
	tm.keys("a")
	s = tm.waitFor("ran it twice")
	if !strings.Contains(s, "approved by you (always)") || !strings.Contains(s, "approved for this session (an earlier always)") {
		t.Errorf("always did not stick (the second identical call must run without a dialog):\n%s", s)
	}

	// deny with a note: the model reads the note.
	tm.typeText("write denied")
	tm.keys("Enter")
	tm.waitFor("Permission · bash")
	tm.keys("n")
	tm.typeText("not that file")
	tm.keys("Enter")
	tm.waitFor("understood, not writing it")
	if _, err := os.Stat(filepath.Join(m.Project, "denied.txt")); err == nil {
		t.Error("a denied command ran")
	}
	if last := lastRequest(t, model); !strings.Contains(last, "not that file") {
		t.Errorf("the model was not told the note: %s", last)
	}

	// Shift+Tab: default → acceptEdits → plan is locked → default.
	tm.keys("BTab")
	tm.waitFor("acceptEdits")
	tm.keys("BTab")
	tm.waitFor("plan locked")
	tm.keys("BTab")
	s = tm.waitFor("· default ·")

	// Ctrl+O asks for bypassPermissions: refused under the lock.
	tm.keys("C-o")
	s = tm.waitFor("refused")
	if !strings.Contains(s, "bypassPermissions") {
		t.Errorf("Ctrl+O's refusal does not name the mode:\n%s", s)
	}

	tm.typeText("/exit")
	tm.keys("Enter")
	if status := tm.waitExit(); status != "0" {
		t.Errorf("/exit ended the pager with status %s", status)
	}
}

// TestPagerTmuxResume: a session left by one pager is taken up by the next
// with --continue, its conversation replayed into the scrollback.
func TestPagerTmuxResume(t *testing.T) {
	t.Parallel()
	model := providertest.New(t,
		providertest.Text("first answer, remembered"),
		providertest.Text("second answer"),
	)
	m := pagerMachine(t, model)
	tm := startPager(t, m, 100, 30)
	tm.waitFor("ask anything")
	tm.typeText("remember this")
	tm.keys("Enter")
	tm.waitFor("first answer, remembered")
	tm.waitFor("end_turn")
	tm.keys("C-d")
	tm.waitExit()

	tm2 := startPager(t, m, 100, 30, "--continue")
	s := tm2.waitFor("first answer, remembered")
	if !strings.Contains(s, "remember this") {
		t.Errorf("the resumed session's prompt is not replayed:\n%s", s)
	}
	tm2.typeText("and now")
	tm2.keys("Enter")
	tm2.waitFor("second answer")
	if last := lastRequest(t, model); !strings.Contains(last, "first answer, remembered") {
		t.Errorf("the resumed turn did not carry the history: %s", last)
	}
}

// lastRequest is the model's last request's messages as JSON.
func lastRequest(t *testing.T, model *providertest.Server) string {
	t.Helper()
	reqs := model.Requests()
	if len(reqs) == 0 {
		t.Fatal("the model got no request")
	}
	b, err := json.Marshal(reqs[len(reqs)-1].Messages)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestPagerTmuxAttach: `oceancode attach URL` is the same pager over a
// running `oceancode serve`: a prompt streams, an ask is answered in the
// pager, and another client of the server sees the answer as the pager's.
func TestPagerTmuxAttach(t *testing.T) {
	t.Parallel()
	model := providertest.New(t,
		providertest.Call("bash", map[string]string{"command": "echo remote > remote.txt"}),
		providertest.Text("written over the wire"),
	)
	m := pagerMachine(t, model)
	s := startServe(t, m)
	tm := startPager(t, m, 110, 40, "attach", s.URL)
	tm.waitFor("ask anything")
	tm.typeText("write remote")
	tm.keys("Enter")
	tm.waitFor("Permission · bash")
	tm.keys("y")
	tm.waitFor("written over the wire")
	if b, err := os.ReadFile(filepath.Join(m.Project, "remote.txt")); err != nil || strings.TrimSpace(string(b)) != "remote" {
		t.Errorf("the command approved in the attached pager did not run: %q, %v", b, err)
	}
	// The server's own view: one open session, its ask resolved by the pager.
	list := s.call("GET", "/api/session", nil, 200, "")
	open, _ := list["open"].([]any)
	if len(open) != 1 {
		t.Fatalf("the server has %d open sessions, want the pager's one: %v", len(open), list)
	}
	id := fmt.Sprint(open[0].(map[string]any)["id"])
	ch, cancel := s.events(id, 0)
	defer cancel()
	for _, e := range s.until(ch, "resolved", 1) {
		if e.Type() == "resolved" && !strings.Contains(e.Data, `"by":"http:attach"`) {
			t.Errorf("the resolved event does not name the pager: %s", e.Data)
		}
	}
}

// TestPagerCompanion: the real oceancode binary does not link the pager
// (its libraries' start-up cost is the pager's alone; TestDependencyRules
// keeps them out of it): on a terminal it
// execs oceancode-pager beside it, with the same arguments and the
// environment it started with — the model's key included.
func TestPagerCompanion(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, pkg := range map[string]string{"oceancode": "../oceancode", "oceancode-pager": "../oceancode-pager"} {
		cmd := exec.Command("go", "build", "-tags", hermetictest.BuildTag, "-o", filepath.Join(dir, name), pkg)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("build %s: %v\n%s", name, err, out)
		}
	}
	model := providertest.New(t, providertest.Text("answered through the companion"))
	m := pagerMachine(t, model)
	tm := startPagerBin(t, filepath.Join(dir, "oceancode"), m, 100, 30, "--agent", "build")
	tm.waitFor("ask anything")
	tm.typeText("hello")
	tm.keys("Enter")
	tm.waitFor("answered through the companion")

	// Without the companion: one sentence saying what to install.
	if err := os.Remove(filepath.Join(dir, "oceancode-pager")); err != nil {
		t.Fatal(err)
	}
	tm2 := startPagerBin(t, filepath.Join(dir, "oceancode"), m, 100, 30)
	tm2.waitFor("oceancode-pager is not installed beside")
}
