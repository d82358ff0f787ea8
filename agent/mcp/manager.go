package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/oceancode/oceancode/agent/engineapi"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/sandbox"
	"github.com/oceancode/oceancode/agent/tools"
)

// Defaults of the Config knobs.
const (
	DefaultStartTimeout = 30 * time.Second
	DefaultCallTimeout  = 60 * time.Second
)

// Config is everything a Manager needs, as plain values.
type Config struct {
	Servers []Server
	Policy  Policy
	// Env is the composed child environment (secret-named variables
	// stripped); Getenv reads the agent's own environment for the ${NAME}
	// a server's env or headers name.
	Env    []string
	Getenv func(string) string
	// Sandbox is the policy stdio servers run under (off: unconfined); its
	// Dir is their working directory and resolves a relative command.
	Sandbox sandbox.Policy
	// StartTimeout bounds a server's start and tool listing; CallTimeout
	// bounds one tool call (0: the defaults).
	StartTimeout, CallTimeout time.Duration
	// HTTPClient is the base client of remote servers (nil: a default one).
	HTTPClient *http.Client
	// Version is the client version told to servers.
	Version string
}

// The states of a server (engineapi.MCPConnected, …).
const (
	StateConnected = engineapi.MCPConnected
	StateRefused   = engineapi.MCPRefused
	StateDenied    = engineapi.MCPDenied
	StateUntrusted = engineapi.MCPUntrusted
	StateFailed    = engineapi.MCPFailed
	StateDisabled  = engineapi.MCPDisabled
	StateExited    = engineapi.MCPExited
	StatePending   = engineapi.MCPPending
)

// Status is a server's state as `mcp list`, events and inspect show it
// (engineapi.MCPStatus; Status.Event is its session event).
type Status = engineapi.MCPStatus

// Manager owns a session's MCP servers.
type Manager struct {
	cfg    Config
	client *sdk.Client
	ready  chan struct{}

	mu       sync.Mutex
	servers  []*server // in start order (name order, then runtime adds)
	reported int       // events handed out by Drain
	events   []Status
	closed   bool
}

type server struct {
	m     *Manager
	def   Server
	mu    sync.Mutex
	cs    *sdk.ClientSession
	st    Status
	tl    []*Tool
	noted map[string]bool // collisions already reported
	id    string          // the fingerprint's Identity at the last start
	errs  *tail
}

// Start admits and connects every server in parallel and returns at once;
// Tools waits for the listing. Nothing is started that Admit refuses.
func Start(cfg Config) *Manager {
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = DefaultStartTimeout
	}
	if cfg.CallTimeout <= 0 {
		cfg.CallTimeout = DefaultCallTimeout
	}
	v := cfg.Version
	if v == "" {
		v = "dev"
	}
	m := &Manager{cfg: cfg, ready: make(chan struct{}),
		client: sdk.NewClient(&sdk.Implementation{Name: "oceancode", Version: v}, nil)}
	var wg sync.WaitGroup
	for _, d := range sortedServers(cfg.Servers) {
		s := m.add(d)
		if d.Disabled() {
			s.set(StateDisabled, "enabled is false")
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = s.connect(context.Background())
		}()
	}
	go func() { wg.Wait(); close(m.ready) }()
	return m
}

func (m *Manager) add(d Server) *server {
	s := &server{m: m, def: d, errs: &tail{}, st: Status{Name: d.Name, Origin: d.Origin.String(), Source: d.Source, State: StatePending}}
	m.mu.Lock()
	m.servers = append(m.servers, s)
	m.mu.Unlock()
	return s
}

// Add is the runtime add (POST /mcp, `/mcp add`): s is admitted like every
// other start (the allow-list; a runtime add is its own trust decision) and
// connected now; its tools are offered from the next turn. Its origin is
// runtime unless set: its calls ask, and "always" approves the server.
func (m *Manager) Add(ctx context.Context, d Server) (Status, error) {
	if d.Origin == permission.MCPOriginUnknown {
		d.Origin = permission.MCPRuntime
	}
	if d.Source == "" {
		d.Source = "runtime add"
	}
	m.mu.Lock()
	for _, s := range m.servers {
		if s.def.Name == d.Name {
			m.mu.Unlock()
			return Status{}, fmt.Errorf("add mcp server %s: a server of that name is already declared (%s)", d.Name, s.def.Source)
		}
	}
	m.mu.Unlock()
	s := m.add(d)
	err := s.connect(ctx)
	return s.status(), err
}

// Tools returns the tools of every connected server, waiting (up to ctx)
// for the servers still starting: the first model request waits for the
// listing, nothing more. Names are mcp__<server>__<tool>, sanitized to
// what the model APIs accept; a name that collides is left out and said so
// in its server's status.
func (m *Manager) Tools(ctx context.Context) []tools.Tool {
	select {
	case <-m.ready:
	case <-ctx.Done():
	}
	m.mu.Lock()
	servers := append([]*server(nil), m.servers...)
	m.mu.Unlock()
	var out []tools.Tool
	seen := map[string]string{}
	for _, s := range servers {
		s.mu.Lock()
		tl := s.tl
		s.mu.Unlock()
		for _, t := range tl {
			if prev, dup := seen[t.name]; dup {
				s.mu.Lock()
				first := !s.noted[t.name]
				if s.noted == nil {
					s.noted = map[string]bool{}
				}
				s.noted[t.name] = true
				s.mu.Unlock()
				if first {
					m.note(s, fmt.Sprintf("tool %s is not offered: its name %s collides with %s", t.tool, t.name, prev))
				}
				continue
			}
			seen[t.name] = s.def.Name + "/" + t.tool
			out = append(out, t)
		}
	}
	return out
}

// Statuses returns every server's state, in start order.
func (m *Manager) Statuses() []Status {
	m.mu.Lock()
	servers := append([]*server(nil), m.servers...)
	m.mu.Unlock()
	out := make([]Status, 0, len(servers))
	for _, s := range servers {
		out = append(out, s.status())
	}
	return out
}

// Wait waits for the servers started by Start (up to ctx).
func (m *Manager) Wait(ctx context.Context) {
	select {
	case <-m.ready:
	case <-ctx.Done():
	}
}

// Drain returns the state changes not handed out yet (a server connected,
// refused, untrusted, failed, exited), for the session's events.
func (m *Manager) Drain() []Status {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := append([]Status(nil), m.events[m.reported:]...)
	m.reported = len(m.events)
	return out
}

// Close stops every server.
func (m *Manager) Close() error {
	m.mu.Lock()
	m.closed = true
	servers := append([]*server(nil), m.servers...)
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.mu.Lock()
			cs := s.cs
			s.cs = nil
			s.mu.Unlock()
			if cs != nil {
				_ = cs.Close()
			}
		}()
	}
	wg.Wait()
	return nil
}

func (m *Manager) note(s *server, reason string) {
	s.mu.Lock()
	if s.st.Reason != "" {
		s.st.Reason += "; "
	}
	s.st.Reason += reason
	st := s.st
	s.mu.Unlock()
	m.mu.Lock()
	m.events = append(m.events, st)
	m.mu.Unlock()
}

func (s *server) status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.st
	st.Tools = append([]string(nil), s.st.Tools...)
	return st
}

func (s *server) set(state, reason string) {
	s.mu.Lock()
	// A reason may quote the server (an error it answered with, its
	// stderr): it reaches the terminal and the model as text only.
	s.st.State, s.st.Reason = state, neutralize(reason)
	st := s.st
	s.mu.Unlock()
	s.m.mu.Lock()
	s.m.events = append(s.m.events, st)
	s.m.mu.Unlock()
}

// connect admits, starts and lists one server. Every start goes through
// here (session start, reconnect, runtime add), so through Admit.
func (s *server) connect(ctx context.Context) error {
	cfg := s.m.cfg
	began := time.Now()
	fp, err := cfg.Policy.Admit(s.def, cfg.Sandbox.Dir, envPath(cfg.Env))
	if err != nil {
		var ae *AdmitError
		switch {
		case errors.As(err, &ae) && ae.Kind == ErrRefused:
			s.set(StateRefused, ae.Reason)
		case errors.As(err, &ae) && ae.Kind == ErrDenied:
			s.set(StateDenied, ae.Reason)
		case errors.As(err, &ae):
			s.set(StateUntrusted, ae.Reason)
		default:
			s.set(StateFailed, err.Error())
		}
		return err
	}
	var tr sdk.Transport
	if s.def.Remote() {
		tr = httpTransport(s.def, cfg.HTTPClient, cfg.Getenv)
	} else if tr, err = stdioTransport(fp, s.def, serverEnv(cfg.Env, s.def, cfg.Getenv), cfg.Sandbox, s.errs); err != nil {
		err = fmt.Errorf("start mcp server %s: %w", s.def.Name, err)
		s.set(StateFailed, err.Error())
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.StartTimeout)
	defer cancel()
	cs, err := s.m.client.Connect(ctx, tr, nil)
	if err != nil {
		err = s.failure("start", err, ctx)
		s.set(StateFailed, err.Error())
		return err
	}
	var listed []*Tool
	var names, left []string
	for t, err := range cs.Tools(ctx, nil) { // follows the cursors
		if err != nil {
			_ = cs.Close()
			err = s.failure("list the tools of", err, ctx)
			s.set(StateFailed, err.Error())
			return err
		}
		tl, err := newTool(s, t)
		if err != nil {
			left = append(left, err.Error())
			continue
		}
		listed = append(listed, tl)
		names = append(names, neutralize(t.Name))
	}
	s.m.mu.Lock()
	closedMgr := s.m.closed
	s.m.mu.Unlock()
	if closedMgr {
		_ = cs.Close()
		return errors.New("start mcp server " + s.def.Name + ": the session is closed")
	}
	s.mu.Lock()
	s.cs, s.tl, s.st.Tools, s.st.Took, s.id = cs, listed, names, time.Since(began), fp.Identity()
	s.mu.Unlock()
	s.set(StateConnected, strings.Join(left, "; "))
	go func() {
		_ = cs.Wait()
		s.mu.Lock()
		gone := s.cs == cs
		if gone {
			s.cs = nil
		}
		s.mu.Unlock()
		if gone {
			s.set(StateExited, s.exitReason())
		}
	}()
	return nil
}

// failure words a start or listing error, with the server's last stderr.
func (s *server) failure(what string, err error, ctx context.Context) error {
	if ctx.Err() != nil {
		err = fmt.Errorf("timed out after %v", s.m.cfg.StartTimeout)
	}
	if t := s.errs.String(); t != "" {
		return fmt.Errorf("%s mcp server %s: %w (stderr: %s)", what, s.def.Name, err, t)
	}
	return fmt.Errorf("%s mcp server %s: %w", what, s.def.Name, err)
}

func (s *server) exitReason() string {
	if t := s.errs.String(); t != "" {
		return "the server went away (stderr: " + t + "); the next call starts it again"
	}
	return "the server went away; the next call starts it again"
}

// session returns the live session, reconnecting (through Admit again) a
// server that went away.
func (s *server) session(ctx context.Context) (*sdk.ClientSession, error) {
	s.mu.Lock()
	cs := s.cs
	s.mu.Unlock()
	if cs != nil {
		return cs, nil
	}
	if err := s.connect(ctx); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cs == nil {
		return nil, errors.New("mcp server " + s.def.Name + " is not connected")
	}
	return s.cs, nil
}

// drop forgets cs after a call found it gone.
func (s *server) drop(cs *sdk.ClientSession) {
	s.mu.Lock()
	gone := s.cs == cs
	if gone {
		s.cs = nil
	}
	s.mu.Unlock()
	if gone {
		_ = cs.Close()
	}
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_-]`)

// maxName is the longest tool name every model API accepts.
const maxName = 64

// AnyTool is a tool name no rule names but a wildcard: DeniedBy asks the
// engine about it to tell a rule that denies every tool of a server.
const AnyTool = "\x00any tool\x00"

// DeniedBy is Policy.Denied over a permission engine's OfferedMCP.
func DeniedBy(offered func(server, tool string) bool) func(string) bool {
	return func(name string) bool { return !offered(name, AnyTool) }
}

// ToolName is the name the model sees: mcp__<server>__<tool> (Claude Code's
// form, so users' rules and hooks carry over), with characters the model
// APIs refuse replaced by '_' and a name over 64 bytes shortened with a
// digest suffix.
func ToolName(server, tool string) string {
	n := "mcp__" + unsafeName.ReplaceAllString(server, "_") + "__" + unsafeName.ReplaceAllString(tool, "_")
	if len(n) <= maxName {
		return n
	}
	h := sha256.Sum256([]byte(server + "/" + tool))
	return n[:maxName-9] + "_" + hex.EncodeToString(h[:4])
}
