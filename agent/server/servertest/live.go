package servertest

import (
	"context"
	"errors"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/fsguard"
	"github.com/oceancode/oceancode/agent/gate"
	"github.com/oceancode/oceancode/agent/mcp"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/provider"
	"github.com/oceancode/oceancode/agent/provider/openai"
	"github.com/oceancode/oceancode/agent/provider/providertest"
	"github.com/oceancode/oceancode/agent/runner"
	"github.com/oceancode/oceancode/agent/server"
	"github.com/oceancode/oceancode/agent/session"
	"github.com/oceancode/oceancode/agent/tools"
	"github.com/oceancode/oceancode/provenance"
)

// LiveToken is a Live server's bearer token.
const LiveToken = "live-token-0123456789abcdefghijklmnopqrstuvwxyz"

// LiveOptions configure a Live server.
type LiveOptions struct {
	// Turns are the scripted model's answers, in order over all sessions.
	Turns []providertest.Turn
	// Ask are rules that ask ("Bash(echo:*)"); Locks the requirements'.
	Ask   []string
	Locks permission.Locks
	// MCP, if set, is each session's MCP configuration (its servers start
	// with the session; Sandbox.Dir is the project).
	MCP *mcp.Config
}

// Live is the HTTP API over real parts, for the tests of its clients:
// agent/server on loopback (httptest), real runner sessions (interactive,
// recorded in a real session store), a gate over a temporary project and
// the scripted loopback model. Its sessions switch model and agent (model
// "refused/…" is refused as the requirements would).
type Live struct {
	URL   string
	Token string
	TS    *httptest.Server
	Srv   *server.Server
	Model *providertest.Server
	Store *session.Store
	Dir   string

	t    testing.TB
	o    LiveOptions
	mu   sync.Mutex
	byID map[string]*runner.Session
}

// NewLive starts a Live server; it stops with the test.
func NewLive(t testing.TB, o LiveOptions) *Live {
	t.Helper()
	l := &Live{t: t, o: o, Dir: t.TempDir(), Token: LiveToken, byID: map[string]*runner.Session{}}
	l.Model = providertest.NewScript(t, providertest.Script{Turns: o.Turns})
	st, err := session.Open(context.Background(), filepath.Join(t.TempDir(), "sessions.db"))
	if err != nil {
		t.Fatal(err)
	}
	l.Store = st
	l.TS = httptest.NewServer(nil)
	cfg := server.Config{Token: LiveToken, Addr: l.TS.Listener.Addr().String(), NewSession: l.newSession,
		Inspect: func() ([]byte, error) { return []byte(`{"version":1}`), nil },
		Sessions: func(ctx context.Context) ([]session.Session, error) {
			list, err := st.List(ctx, session.ListOptions{})
			out := []session.Session{}
			for _, s := range list {
				out = append(out, *s)
			}
			return out, err
		}}
	if l.Srv, err = server.New(cfg); err != nil {
		t.Fatal(err)
	}
	l.TS.Config.Handler = l.Srv
	l.URL = l.TS.URL
	t.Cleanup(func() {
		l.Srv.Close()
		l.TS.Close()
		st.Close()
	})
	return l
}

// Session is the engine session behind id (to act on it in process, as a
// pager on the serving machine would).
func (l *Live) Session(id string) *runner.Session {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.byID[id]
}

func (l *Live) turn(agentName string) (agent.Config, error) {
	return TurnConfig(TurnOptions{Dir: l.Dir, ModelURL: l.Model.OpenAIURL(), Agent: agentName, Ask: l.o.Ask, Locks: l.o.Locks})
}

// TurnOptions are a test session's turn config's parts.
type TurnOptions struct {
	Dir      string // the project root and working directory
	ModelURL string // the scripted model's OpenAI URL
	Agent    string
	Mode     permission.Mode
	Ask      []string // rules that ask ("Bash(echo:*)")
	Locks    permission.Locks
}

// TurnConfig is a session's turn config over real parts: a gate over the
// project (the Ask rules, the locks), the OpenAI-format provider to the
// scripted model, the built-in tools in a minimal environment.
func TurnConfig(o TurnOptions) (agent.Config, error) {
	var rules []permission.Rule
	for _, r := range o.Ask {
		pr, err := permission.ParseRule(r, permission.Ask, provenance.Origin{Layer: provenance.User, Source: "test"})
		if err != nil {
			return agent.Config{}, err
		}
		rules = append(rules, pr)
	}
	b := fsguard.Boundary{ProjectRoot: o.Dir}
	g, err := gate.New(gate.Config{Permission: permission.Config{Agent: o.Agent, Rules: rules, Mode: o.Mode, Locks: o.Locks}, Boundary: b})
	if err != nil {
		return agent.Config{}, err
	}
	p, err := openai.New(provider.Config{Type: "openai", BaseURL: o.ModelURL, APIKey: "sk-test", Stream: true})
	if err != nil {
		return agent.Config{}, err
	}
	tr := &fsguard.Tracker{}
	tr.Start(time.Now())
	env := &tools.Env{Boundary: b, Cwd: o.Dir, Tracker: tr, ChildEnv: []string{"PATH=/usr/bin:/bin"}, Todos: &tools.TodoList{}, BashTimeout: 10 * time.Second}
	return agent.Config{Agent: o.Agent, Model: "m", Provider: p, Gate: g, Env: env, Tools: tools.Builtins(), MaxTurns: 10}, nil
}

// Until reads events until one of type typ (inclusive) and returns them;
// the test fails when the channel closes first (err says why) or after a
// 2-minute hang guard.
func Until(t testing.TB, events <-chan runner.Event, err func() error, typ agent.EventType) []runner.Event {
	t.Helper()
	var got []runner.Event
	timeout := time.After(2 * time.Minute)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatalf("stream ended (%v) before a %s event", err(), typ)
			}
			got = append(got, ev)
			if ev.Event.Type == typ {
				return got
			}
		case <-timeout:
			t.Fatalf("no %s event in 2 minutes", typ)
		}
	}
}

func (l *Live) newSession(ctx context.Context, r server.CreateRequest) (*runner.Session, error) {
	tc, err := l.turn(r.Agent)
	if err != nil {
		return nil, err
	}
	var m *mcp.Manager
	if l.o.MCP != nil {
		mc := *l.o.MCP
		mc.Sandbox.Dir, mc.Policy.Project = l.Dir, l.Dir
		m = mcp.Start(mc)
		l.t.Cleanup(func() { m.Close() })
		m.Wait(ctx)
		tc.Extra = m.Extra
	}
	o := runner.Options{Turn: tc, Store: l.Store, MCP: m, Resume: r.Resume, Interactive: true, Sandbox: "off", Policy: "none",
		Reconfigure: func(ctx context.Context, agentName, model string) (agent.Config, error) {
			if strings.HasPrefix(model, "refused/") {
				return agent.Config{}, server.Errorf(403, "refused", errRefused)
			}
			c, err := l.turn(agentName)
			if model != "" {
				_, c.Model, _ = strings.Cut(model, "/")
			}
			return c, err
		}}
	s, err := runner.Start(context.WithoutCancel(ctx), o)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.byID[s.ID()] = s
	l.mu.Unlock()
	return s, nil
}

var errRefused = errors.New("refused by requirements: not in allowed_models")
