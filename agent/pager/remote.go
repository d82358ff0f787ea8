package pager

import (
	"context"
	"encoding/json"

	"github.com/oceancode/oceancode/agent/engineapi"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/server/client"
	"github.com/oceancode/oceancode/agent/session"
)

// Remote is the Engine of session id on an `oceancode serve` (`oceancode
// attach`): every method is a route of the HTTP API through c. Errors are
// the engine's own where the server names one (engineapi.ErrNoAsk,
// *engineapi.AnsweredError, engineapi.ErrClosed, …; others are *client.Error).
// Subscribe's stream resumes a dropped connection with Last-Event-ID (no
// event lost or repeated); the server's resync notice arrives as an event
// of type client.EventResync (fetch State again), its lagged notice ends the
// stream with engineapi.ErrLagged, as the in-process engine's does. Sessions
// are the server's stored sessions of its directory; Close detaches. It also
// implements MCPTruster.
func Remote(c *client.Client, id string) Engine { return &remote{c: c, id: id} }

type remote struct {
	c  *client.Client
	id string
}

func (r *remote) ID() string { return r.id }

func (r *remote) Send(ctx context.Context, prompt string) error {
	_, err := r.c.Send(ctx, r.id, prompt)
	return err
}

func (r *remote) Subscribe(ctx context.Context, after int64) (Stream, error) {
	s, err := r.c.Events(ctx, r.id, after)
	if err != nil {
		return nil, err
	}
	return s, nil
}

func (r *remote) Pending(ctx context.Context) ([]engineapi.PendingAsk, error) {
	return r.c.Pending(ctx, r.id)
}

func (r *remote) Answer(ctx context.Context, askID string, rep engineapi.Reply) error {
	return r.c.Answer(ctx, r.id, askID, rep)
}

func (r *remote) SetMode(ctx context.Context, m permission.Mode) (engineapi.ModeResult, error) {
	return r.c.SetMode(ctx, r.id, m)
}

func (r *remote) SetModel(ctx context.Context, model string) (engineapi.State, error) {
	return r.c.SetModel(ctx, r.id, model)
}

func (r *remote) SetAgent(ctx context.Context, name string) (engineapi.State, error) {
	return r.c.SetAgent(ctx, r.id, name)
}

func (r *remote) Abort(ctx context.Context) error { return r.c.Abort(ctx, r.id) }

func (r *remote) Compact(ctx context.Context, focus string) (engineapi.Compaction, error) {
	return r.c.Compact(ctx, r.id, focus)
}

func (r *remote) State(ctx context.Context) (engineapi.State, error) { return r.c.State(ctx, r.id) }

func (r *remote) Inspect(ctx context.Context) (json.RawMessage, error) { return r.c.Inspect(ctx) }

func (r *remote) MCP(ctx context.Context) ([]engineapi.MCPStatus, error) { return r.c.MCP(ctx, r.id) }

func (r *remote) AddMCP(ctx context.Context, name string, srv engineapi.MCPServer) (engineapi.MCPStatus, error) {
	return r.c.AddMCP(ctx, r.id, name, srv)
}

// Sessions lists the server's stored sessions.
func (r *remote) Sessions(ctx context.Context) ([]session.Session, error) {
	_, stored, err := r.c.Sessions(ctx)
	return stored, err
}

// Close detaches: the session goes on running on the server.
func (r *remote) Close() error {
	r.c.HTTP.CloseIdleConnections()
	return nil
}
