// Package sessionfactory is the one place a session is built: the resolved
// configuration and a Request (agent, model, permission mode, MCP servers,
// a stored session to resume) become a running runner.Session. `run`,
// `serve` and the pager call it; none of them builds a session otherwise.
//
// A Factory holds what a process shares between its sessions: how the
// layers are resolved (the front end's loader, with its trust options),
// the session store, the model clients (a Pool, keyed by provider
// configuration) and the hooks that observe each session (telemetry).
//
// Resuming restores the session's agent, model (PROVIDER/MODEL) and
// permission mode from its stored record; a field the request sets wins.
//
// Errors are typed: ErrBadRequest, ErrNoModel, ErrNotFound, ErrLocked,
// ErrRefused, ErrInvalid (errors.Is), each keeping the cause's message.
// Every front end maps them to its own surface — run to exit codes, serve
// to HTTP statuses, the pager to notices — in one table of its own.
//
// The package sits with sessionconfig between the configuration packages
// and the runtime: only cmd/oceancode imports it (deps_test.go).
package sessionfactory

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/runner"
	"github.com/oceancode/oceancode/agent/session"
	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/sessionconfig"
)

// Config is what a Factory shares between the sessions it builds.
type Config struct {
	// Resolve resolves the configuration layers with a request's
	// session-layer settings: the front end's loader, which reports what
	// it noticed and applies its trust options. Its errors are returned
	// as they are.
	Resolve func(settings []layers.Setting) (*layers.Resolved, error)
	// Getenv reads the process's environment; WorkDir is the sessions'
	// working directory.
	Getenv  func(string) string
	WorkDir string
	// Store records the sessions (the caller keeps ownership). When it is
	// nil, OpenStore opens the store when a session needs it (run: a new
	// session's record is made off the path to the first model request);
	// the runner closes what OpenStore returns.
	Store     *session.Store
	OpenStore func(context.Context) (*session.Store, error)
	// Clients are the model clients (required).
	Clients *Pool
	// Via names the front end in the settings' origins: "" is a
	// command's flags, "api" serve's requests, "pager" the pager.
	Via string
	// Interactive sends asks to the session's broker (serve, the pager);
	// false is headless (run).
	Interactive bool
	// Warn receives each warning line (downgraded modes, secrets not
	// hidden) as it is found, without a prefix.
	Warn func(line string)
	// SwitchError, if set, is the front end's map for the errors of a
	// session's live switches of agent or model (which pass the same
	// checks as Open, and return the same kinds): serve gives them their
	// HTTP status with it.
	SwitchError func(error) error
	// Observe, if set, is called once per session with its resolution; it
	// returns a hook for the session's events (nil: none) and what to
	// release when the factory closes (nil: nothing). Telemetry uses it.
	Observe func(ctx context.Context, res *layers.Resolved) (onEvent func(runner.Event), release func())
}

// Request is one session a front end asks for. Zero fields take the
// stored record's values (Resume) and then the configuration's.
type Request struct {
	sessionconfig.Request
	// Resume takes up this stored session ("" starts a new one).
	Resume string
	// OnEvent, if set, receives the session's events (runner.Options.OnEvent).
	OnEvent func(runner.Event)
	// CreateAfter delays a new session's record (runner.Options.CreateAfter).
	CreateAfter <-chan struct{}
}

// Factory builds sessions. It is safe for concurrent use.
type Factory struct {
	cfg     Config
	mu      sync.Mutex
	closers []func()
}

// New returns a factory.
func New(cfg Config) *Factory {
	if cfg.Getenv == nil {
		cfg.Getenv = func(string) string { return "" }
	}
	return &Factory{cfg: cfg}
}

// Open builds and starts a session. ctx bounds the session's life (serve
// passes a context without cancel: its sessions outlive the request). On
// error nothing stays open.
func (f *Factory) Open(ctx context.Context, r Request) (*runner.Session, error) {
	if f.cfg.Resolve == nil || f.cfg.Clients == nil {
		return nil, errors.New("open session: the factory has no resolver or no model clients")
	}
	if r.Via == "" {
		r.Via = f.cfg.Via
	}
	st := f.storeOpener()
	sc, res, err := f.build(ctx, st, &r)
	if err != nil {
		st.discard() // the runner never took it
		return nil, err
	}
	return f.start(ctx, r, res, sc, st.open)
}

// build resolves the layers for the request (filled from the stored record
// when it resumes one) and builds the session's engine config.
func (f *Factory) build(ctx context.Context, st *storeOnce, r *Request) (*sessionconfig.Session, *layers.Resolved, error) {
	if r.Resume != "" {
		if err := f.resumed(ctx, st.open, r); err != nil {
			return nil, nil, err
		}
	}
	res, err := f.cfg.Resolve(r.Settings())
	if err != nil {
		return nil, nil, err
	}
	if err := gate(res); err != nil {
		return nil, nil, err
	}
	sc, err := sessionconfig.Build(ctx, res, r.Request, sessionconfig.Host{Getenv: f.cfg.Getenv, WorkDir: f.cfg.WorkDir,
		Provider: f.cfg.Clients.Provider, Warn: f.cfg.Warn})
	if err != nil {
		return nil, nil, kindOf(err)
	}
	return sc, res, nil
}

// start starts the runner on a built config.
func (f *Factory) start(ctx context.Context, r Request, res *layers.Resolved, sc *sessionconfig.Session, open func(context.Context) (*session.Store, error)) (*runner.Session, error) {
	opts := runner.Options{Turn: sc.Turn, SubAgent: sc.SubAgent, MCP: sc.MCP, Model: sc.Model,
		Store: f.cfg.Store, Resume: r.Resume, CreateAfter: r.CreateAfter, Interactive: f.cfg.Interactive,
		Sandbox: sc.Sandbox, Policy: sc.Policy, Checkpoints: sc.Checkpoints,
		Reconfigure: func(ctx context.Context, name, model string) (agent.Config, error) {
			c, err := sc.Reconfigure(ctx, name, model)
			if err = kindOf(err); err != nil && f.cfg.SwitchError != nil {
				err = f.cfg.SwitchError(err)
			}
			return c, err
		}}
	if opts.Store == nil {
		opts.OpenStore = open
	}
	release := []func(){sc.Close}
	onEvent := r.OnEvent
	if f.cfg.Observe != nil {
		observe, done := f.cfg.Observe(ctx, res)
		if done != nil {
			release = append(release, done)
		}
		onEvent = both(onEvent, observe)
	}
	opts.OnEvent = onEvent
	closeAll := func() {
		for i := len(release) - 1; i >= 0; i-- {
			release[i]()
		}
	}
	sess, err := runner.Start(ctx, opts)
	if err != nil {
		closeAll()
		return nil, kindOf(err)
	}
	if sc.Hooks != nil {
		sc.Hooks.SetSession(sess.ID(), "")
	}
	f.mu.Lock()
	f.closers = append(f.closers, closeAll)
	f.mu.Unlock()
	return sess, nil
}

// both calls a then b (either may be nil).
func both(a, b func(runner.Event)) func(runner.Event) {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return func(e runner.Event) { a(e); b(e) }
}

// Close releases what the factory's sessions hold (their MCP servers,
// egress proxies, telemetry), newest first; close the sessions first. The
// model clients are the Pool's: its owner closes it.
func (f *Factory) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := len(f.closers) - 1; i >= 0; i-- {
		f.closers[i]()
	}
	f.closers = nil
}

// storeOnce is the store for one Open: Config.Store, else what
// Config.OpenStore returns, opened at most once (the resume's record lookup
// and the runner share it).
type storeOnce struct {
	once  sync.Once
	fixed *session.Store
	openf func(context.Context) (*session.Store, error)
	st    *session.Store
	err   error
}

func (f *Factory) storeOpener() *storeOnce {
	return &storeOnce{fixed: f.cfg.Store, openf: f.cfg.OpenStore}
}

func (s *storeOnce) open(ctx context.Context) (*session.Store, error) {
	if s.fixed != nil {
		return s.fixed, nil
	}
	s.once.Do(func() {
		if s.openf == nil {
			s.err = errors.New("open sessions: the factory has no session store")
			return
		}
		s.st, s.err = s.openf(ctx)
	})
	return s.st, s.err
}

// discard closes a store OpenStore gave that no runner took.
func (s *storeOnce) discard() {
	if s.st != nil {
		s.st.Close()
	}
}

// resumed fills the request's agent, model and permission mode from the
// stored record of r.Resume where the request leaves them empty.
func (f *Factory) resumed(ctx context.Context, open func(context.Context) (*session.Store, error), r *Request) error {
	st, err := open(ctx)
	if err != nil {
		return err
	}
	rec, err := st.Get(ctx, r.Resume)
	if err != nil {
		return kindOf(err)
	}
	if r.Agent == "" {
		r.Agent = rec.Agent
	}
	if r.PermissionMode == "" {
		r.PermissionMode = rec.Mode
	}
	if r.Model == "" {
		if strings.Contains(rec.Model, "/") {
			r.Model = rec.Model
		} else if rec.Model != "" && f.cfg.Warn != nil {
			// A record made before the provider was kept: its model
			// cannot be named in full.
			f.cfg.Warn(fmt.Sprintf("session %s was recorded with model %q without its provider: it resumes on the configuration's model", r.Resume, rec.Model))
		}
	}
	return nil
}
