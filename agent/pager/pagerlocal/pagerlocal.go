// Package pagerlocal is the pager's engine over a session running in this
// process: every method of pager.Engine maps onto a *runner.Session. It is
// apart from agent/pager so that the pager itself links only the engine's
// vocabulary (agent/engineapi) and the HTTP client, never the runner, the
// tools, the sandbox or the shell guard; the CLI's pager companion
// (cmd/oceancode/cli/pagerui), which runs sessions in process, links it.
//
// It does not import agent/pager: New's *Engine satisfies pager.Engine
// through the vocabulary's types (its Subscribe returns an
// engineapi.Stream), so the pager's own tests can drive a real session
// through it.
package pagerlocal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/oceancode/oceancode/agent/engineapi"
	"github.com/oceancode/oceancode/agent/mcp"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/runner"
	"github.com/oceancode/oceancode/agent/session"
)

// Hooks are what an in-process engine cannot get from the session itself:
// the `inspect --json` document and the stored sessions (the CLI supplies
// both; nil: the command says it is unavailable).
type Hooks struct {
	Inspect  func() ([]byte, error)
	Sessions func(ctx context.Context) ([]session.Session, error)
}

// New is the pager's engine (pager.Engine) of s, a session running in this
// process: every method maps onto s. Close closes s.
func New(s *runner.Session, h Hooks) *Engine {
	return &Engine{s: s, h: h}
}

// Engine is a session running in this process as the pager's engine.
type Engine struct {
	s *runner.Session
	h Hooks
}

func (l *Engine) ID() string { return l.s.CurrentID() }

func (l *Engine) Send(ctx context.Context, prompt string) error { return l.s.Send(prompt) }

func (l *Engine) Subscribe(ctx context.Context, after int64) (engineapi.Stream, error) {
	u, err := l.s.Subscribe(after)
	if err != nil {
		return nil, err
	}
	ls := &localStream{u: u, done: make(chan struct{})}
	go func() {
		select {
		case <-ctx.Done():
			ls.Close()
		case <-ls.done:
		}
	}()
	return ls, nil
}

func (l *Engine) Pending(ctx context.Context) ([]runner.PendingAsk, error) { return l.s.Pending(), nil }

func (l *Engine) Answer(ctx context.Context, askID string, r runner.Reply) error {
	return l.s.Answer(askID, r)
}

func (l *Engine) SetMode(ctx context.Context, m permission.Mode) (runner.ModeResult, error) {
	return l.s.SetMode(m)
}

func (l *Engine) SetModel(ctx context.Context, model string) (runner.State, error) {
	return l.s.SetModel(ctx, model)
}

func (l *Engine) SetAgent(ctx context.Context, agent string) (runner.State, error) {
	return l.s.SetAgent(ctx, agent)
}

func (l *Engine) Abort(ctx context.Context) error {
	l.s.Abort()
	return nil
}

func (l *Engine) State(ctx context.Context) (runner.State, error) { return l.s.State(), nil }

func (l *Engine) Compact(ctx context.Context, focus string) (engineapi.Compaction, error) {
	return l.s.Compact(ctx, focus)
}

// errUnavailable: the engine was not given the means for a command.
var errUnavailable = errors.New("unavailable in this session")

func (l *Engine) Inspect(ctx context.Context) (json.RawMessage, error) {
	if l.h.Inspect == nil {
		return nil, fmt.Errorf("pager: inspect: %w", errUnavailable)
	}
	b, err := l.h.Inspect()
	if err != nil {
		return nil, fmt.Errorf("pager: inspect: %w", err)
	}
	return json.RawMessage(b), nil
}

func (l *Engine) MCP(ctx context.Context) ([]mcp.Status, error) { return l.s.MCPServers(), nil }

func (l *Engine) AddMCP(ctx context.Context, name string, srv mcp.Server) (mcp.Status, error) {
	srv.Name = name
	return l.s.AddMCP(ctx, srv)
}

func (l *Engine) Sessions(ctx context.Context) ([]session.Session, error) {
	if l.h.Sessions == nil {
		return nil, fmt.Errorf("pager: list sessions: %w", errUnavailable)
	}
	return l.h.Sessions(ctx)
}

func (l *Engine) Close() error { return l.s.Close() }

// localStream is a runner subscription as a Stream: a closed session is a
// normal end (Err nil), a dropped subscriber ErrLagged.
type localStream struct {
	u    *runner.Subscription
	once sync.Once
	done chan struct{}
}

func (ls *localStream) Events() <-chan runner.Event { return ls.u.C() }

func (ls *localStream) Err() error {
	if err := ls.u.Err(); !errors.Is(err, runner.ErrClosed) {
		return err
	}
	return nil
}

func (ls *localStream) Close() {
	ls.once.Do(func() {
		close(ls.done)
		ls.u.Close()
	})
}
