package runner_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/gate"
	"github.com/oceancode/oceancode/agent/mcp/mcptest"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/provider/providertest"
	"github.com/oceancode/oceancode/agent/runner"
	"github.com/oceancode/oceancode/agent/runner/runnertest"
	"github.com/oceancode/oceancode/agent/sandbox/sandboxtest"
	"github.com/oceancode/oceancode/agent/session"
)

// The test binary doubles as the sandbox helper bash runs through.
func TestMain(m *testing.M) {
	if os.Getenv(mcptest.ServerEnv) == "1" {
		mcptest.Main() // the runtime-add test's MCP server
	}
	sandboxtest.ServeHelper()
	code := m.Run()
	sandboxtest.Cleanup()
	os.Exit(code)
}

// fixture is a session's real parts: the scripted loopback model, a gate
// over a temporary workspace (bash asks, file reads are allowed), the
// built-in tools and a session store in a temporary state directory.
type fixture struct {
	t     testing.TB
	srv   *providertest.Server
	dir   string
	db    string
	store *session.Store
	locks permission.Locks
	mode  permission.Mode
}

func newFixture(t testing.TB, turns ...providertest.Turn) *fixture {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, srv: providertest.New(t, turns...), dir: dir, db: filepath.Join(t.TempDir(), "sessions.db")}
	f.store = f.openStore()
	return f
}

func (f *fixture) openStore() *session.Store {
	f.t.Helper()
	st, err := session.Open(context.Background(), f.db)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { st.Close() })
	return st
}

func (f *fixture) gate() *gate.Gate {
	f.t.Helper()
	return runnertest.Gate(f.t, f.dir, f.mode, f.locks,
		runnertest.Rule("bash", "*", permission.Ask),
		runnertest.Rule("bash", "true", permission.Allow),
		runnertest.Rule("read", "*", permission.Allow),
		runnertest.Rule("write", "*", permission.Ask),
		runnertest.Rule("question", "*", permission.Allow),
		runnertest.Rule("task", "*", permission.Allow))
}

func (f *fixture) turn() agent.Config {
	f.t.Helper()
	c := runnertest.Config(f.dir, runnertest.Provider(f.t, f.srv), f.gate())
	c.Redact = func(s string) string { return strings.ReplaceAll(s, "sekrit", "[REDACTED]") }
	return c
}

// options is an interactive, recorded session.
func (f *fixture) options() runner.Options {
	return runner.Options{Turn: f.turn(), Store: f.store, Interactive: true}
}

func (f *fixture) start(o runner.Options) *runner.Session {
	f.t.Helper()
	s, err := runner.Start(context.Background(), o)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { s.Close() })
	return s
}

// next waits for the next event of a subscription (failing the test after
// a generous bound, so a broken session does not hang it).
func next(t *testing.T, u *runner.Subscription) runner.Event {
	t.Helper()
	select {
	case ev, ok := <-u.C():
		if !ok {
			t.Fatalf("subscription closed: %v", u.Err())
		}
		return ev
	case <-time.After(2 * time.Minute):
		t.Fatal("no event in 2 minutes")
	}
	return runner.Event{}
}

// until reads events until one of type typ and returns them all.
func until(t *testing.T, u *runner.Subscription, typ agent.EventType) []runner.Event {
	t.Helper()
	var out []runner.Event
	for {
		ev := next(t, u)
		out = append(out, ev)
		if ev.Event.Type == typ {
			return out
		}
	}
}

// lastResult is the content of the last tool result the model was sent.
func lastResult(t *testing.T, srv *providertest.Server) string {
	t.Helper()
	return runnertest.LastResult(t, srv)
}
