package pager

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/checkpoint"
	"github.com/oceancode/oceancode/agent/pager/pagerlocal"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/provider/providertest"
	"github.com/oceancode/oceancode/agent/runner"
	"github.com/oceancode/oceancode/agent/runner/runnertest"
	"github.com/oceancode/oceancode/agent/sandbox/sandboxtest"
	"github.com/oceancode/oceancode/agent/session"
)

// The test binary doubles as the sandbox helper bash runs through.
func TestMain(m *testing.M) {
	sandboxtest.ServeHelper()
	code := m.Run()
	sandboxtest.Cleanup()
	os.Exit(code)
}

// fixture is a real session: the scripted loopback model over the real
// Anthropic client, a gate over a temporary workspace (bash asks, `true`
// is allowed, reads are allowed), the built-in tools and a session store.
type fixture struct {
	t     testing.TB
	srv   *providertest.Server
	dir   string
	store *session.Store
	locks permission.Locks
	mode  permission.Mode
	hooks pagerlocal.Hooks
	// buffer is the subscribers' buffer (0: the runner's default).
	buffer int
	// unrecorded starts sessions without a store.
	unrecorded bool
	// checkpoints, if set, is the state dir the sessions keep checkpoints in.
	checkpoints string
}

func newFixture(t testing.TB, turns ...providertest.Turn) *fixture {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	st, err := session.Open(context.Background(), filepath.Join(t.TempDir(), "sessions.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	f := &fixture{t: t, srv: providertest.New(t, turns...), dir: dir, store: st}
	f.hooks = pagerlocal.Hooks{Sessions: func(ctx context.Context) ([]session.Session, error) {
		list, err := f.store.List(ctx, session.ListOptions{})
		var out []session.Session
		for _, s := range list {
			out = append(out, *s)
		}
		return out, err
	}}
	return f
}

func (f *fixture) config() agent.Config {
	f.t.Helper()
	g := runnertest.Gate(f.t, f.dir, f.mode, f.locks,
		runnertest.Rule("bash", "*", permission.Ask),
		runnertest.Rule("bash", "true", permission.Allow),
		runnertest.Rule("bash", "rm *", permission.Deny),
		runnertest.Rule("read", "*", permission.Allow),
		runnertest.Rule("question", "*", permission.Allow))
	return runnertest.Config(f.dir, runnertest.Provider(f.t, f.srv), g)
}

// start starts a session (resume: a stored one) and returns it with its
// in-process engine (agent/pager/pagerlocal).
func (f *fixture) start(resume string) (*runner.Session, Engine) {
	f.t.Helper()
	o := runner.Options{Turn: f.config(), Store: f.store, Interactive: true, Resume: resume, Buffer: f.buffer}
	if f.unrecorded {
		o.Store = nil
	}
	if f.checkpoints != "" {
		o.Checkpoints = &checkpoint.Options{StateDir: f.checkpoints}
	}
	s, err := runner.Start(context.Background(), o)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { s.Close() })
	return s, pagerlocal.New(s, f.hooks)
}

// harness drives the model as the program would, without a terminal: it
// runs every command on its own goroutine and feeds the messages back to
// Update, one at a time, on the test's goroutine. What the model prints
// to the scrollback is kept in printed.
type harness struct {
	t    *testing.T
	m    *model
	msgs chan tea.Msg
	mu   sync.Mutex
	out  []string
	quit bool
	seq  int64 // the last Seq feed gave
}

func newHarness(t *testing.T, eng Engine, w, h int, dark bool, opts ...func(*Options)) *harness {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	o := Options{Engine: eng, Width: w, Height: h, Dark: dark}
	for _, fn := range opts {
		fn(&o)
	}
	hs := &harness{t: t, m: newModel(ctx, o), msgs: make(chan tea.Msg, 1024)}
	hs.m.now = func() time.Time { return time.Date(2026, 12, 1, 12, 0, 7, 0, time.UTC) }
	hs.m.printer = func(s string) tea.Cmd {
		return func() tea.Msg {
			hs.mu.Lock()
			hs.out = append(hs.out, s)
			hs.mu.Unlock()
			return printedMsg{}
		}
	}
	t.Cleanup(func() {
		if hs.m.sub != nil {
			hs.m.sub.Close()
		}
	})
	hs.run(hs.m.Init())
	hs.send(tea.WindowSizeMsg{Width: w, Height: h})
	return hs
}

// run executes cmd (and a batch's commands) on goroutines.
func (h *harness) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		msg := cmd()
		switch msg := msg.(type) {
		case nil:
		case tea.BatchMsg:
			for _, c := range msg {
				h.run(c)
			}
		default:
			h.msgs <- msg
		}
	}()
}

// send updates the model with msg now.
func (h *harness) send(msg tea.Msg) {
	if _, ok := msg.(tea.QuitMsg); ok {
		h.quit = true
		return
	}
	_, cmd := h.m.Update(msg)
	h.run(cmd)
}

// key presses a key ("shift+tab", "ctrl+o", "enter", "a").
func (h *harness) key(k string) { h.send(keyPress(k)) }

func keyPress(k string) tea.KeyPressMsg {
	switch k {
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "ctrl+o":
		return tea.KeyPressMsg{Code: 'o', Mod: tea.ModCtrl}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	case "ctrl+d":
		return tea.KeyPressMsg{Code: 'd', Mod: tea.ModCtrl}
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

// until pumps messages until cond holds (failing after a generous bound so
// a broken pager does not hang the test).
func (h *harness) until(what string, cond func() bool) {
	h.t.Helper()
	deadline := time.After(2 * time.Minute) // a hang guard
	for !cond() {
		select {
		case msg := <-h.msgs:
			h.send(msg)
		case <-deadline:
			h.t.Fatalf("waiting for %s: timed out\nscrollback:\n%s\nview:\n%s", what, h.printed(), plain(h.m.render()))
		}
	}
}

// settle pumps until no message but the spinner's tick arrives for a
// moment (bounded, so a pager that never settles fails the test).
func (h *harness) settle() {
	h.t.Helper()
	quiet := time.NewTimer(150 * time.Millisecond)
	defer quiet.Stop()
	deadline := time.After(2 * time.Minute) // a hang guard
	for {
		select {
		case msg := <-h.msgs:
			h.send(msg)
			if _, tick := msg.(tickMsg); !tick {
				quiet.Reset(150 * time.Millisecond)
			}
		case <-quiet.C:
			return
		case <-deadline:
			h.t.Fatal("the pager did not settle in 2 minutes")
		}
	}
}

// printed is the scrollback so far, without styles.
func (h *harness) printed() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return plain(strings.Join(h.out, "\n"))
}

func (h *harness) printedHas(s string) func() bool {
	return func() bool { return strings.Contains(h.printed(), s) }
}

func (h *harness) view() string { return plain(h.m.render()) }
