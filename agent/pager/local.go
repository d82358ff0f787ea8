package pager

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/oceancode/oceancode/agent/mcp"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/runner"
	"github.com/oceancode/oceancode/agent/session"
)

// LocalHooks are what a Local engine cannot get from the session itself:
// the `inspect --json` document and the stored sessions (the CLI supplies
// both; nil: the command says it is unavailable).
type LocalHooks struct {
	Inspect  func() ([]byte, error)
	Sessions func(ctx context.Context) ([]session.Session, error)
}

// Local is the Engine of a session running in this process: every method
// maps onto s. Close closes s.
func Local(s *runner.Session, h LocalHooks) Engine {
	return &local{s: s, h: h}
}

type local struct {
	s *runner.Session
	h LocalHooks
}

func (l *local) ID() string { return l.s.CurrentID() }

func (l *local) Send(ctx context.Context, prompt string) error { return l.s.Send(prompt) }

func (l *local) Subscribe(ctx context.Context, after int64) (Stream, error) {
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

func (l *local) Pending(ctx context.Context) ([]runner.PendingAsk, error) { return l.s.Pending(), nil }

func (l *local) Answer(ctx context.Context, askID string, r runner.Reply) error {
	return l.s.Answer(askID, r)
}

func (l *local) SetMode(ctx context.Context, m permission.Mode) (runner.ModeResult, error) {
	return l.s.SetMode(m)
}

func (l *local) SetModel(ctx context.Context, model string) (runner.State, error) {
	return l.s.SetModel(ctx, model)
}

func (l *local) SetAgent(ctx context.Context, agent string) (runner.State, error) {
	return l.s.SetAgent(ctx, agent)
}

func (l *local) Abort(ctx context.Context) error {
	l.s.Abort()
	return nil
}

func (l *local) State(ctx context.Context) (runner.State, error) { return l.s.State(), nil }

// errUnavailable: the engine was not given the means for a command.
var errUnavailable = errors.New("unavailable in this session")

func (l *local) Inspect(ctx context.Context) (json.RawMessage, error) {
	if l.h.Inspect == nil {
		return nil, fmt.Errorf("pager: inspect: %w", errUnavailable)
	}
	b, err := l.h.Inspect()
	if err != nil {
		return nil, fmt.Errorf("pager: inspect: %w", err)
	}
	return json.RawMessage(b), nil
}

func (l *local) MCP(ctx context.Context) ([]mcp.Status, error) { return l.s.MCPServers(), nil }

func (l *local) AddMCP(ctx context.Context, name string, srv mcp.Server) (mcp.Status, error) {
	srv.Name = name
	return l.s.AddMCP(ctx, srv)
}

func (l *local) Sessions(ctx context.Context) ([]session.Session, error) {
	if l.h.Sessions == nil {
		return nil, fmt.Errorf("pager: list sessions: %w", errUnavailable)
	}
	return l.h.Sessions(ctx)
}

func (l *local) Close() error { return l.s.Close() }

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
