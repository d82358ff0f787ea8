package pager

import (
	"context"
	"encoding/json"

	"github.com/oceancode/oceancode/agent/engineapi"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/session"
)

// Engine is the session engine as the pager uses it: exactly the operations
// the HTTP API exposes (docs/server.md), so the pager in process
// (agent/pager/pagerlocal, over *runner.Session) and attached to `oceancode
// serve` (Remote, over HTTP and SSE) are the same code. Every change the user makes — the mode,
// an approval, the model, the agent, an MCP server — goes through it.
//
// CONTRACT: the method set is shared by the pager (consumer) and both
// adapters; change it only together.
type Engine interface {
	// ID is the session's id.
	ID() string
	// Send queues a prompt (POST /message).
	Send(ctx context.Context, prompt string) error
	// Subscribe streams the session's events after seq `after` (0: from
	// the start): stored ones first, then live (GET /events with
	// Last-Event-ID). The stream ends when ctx ends or the session closes.
	Subscribe(ctx context.Context, after int64) (Stream, error)
	// Pending lists asks waiting for an answer.
	Pending(ctx context.Context) ([]engineapi.PendingAsk, error)
	// Answer answers an ask (POST /permission/{req}); the first answer
	// wins (*engineapi.AnsweredError, engineapi.ErrNoAsk otherwise).
	Answer(ctx context.Context, askID string, r engineapi.Reply) error
	// SetMode switches the permission mode live; a locked mode downgrades
	// and the result says why.
	SetMode(ctx context.Context, m permission.Mode) (engineapi.ModeResult, error)
	// SetModel switches the model for the next turn (requirements'
	// allowed_models apply); SetAgent the agent.
	SetModel(ctx context.Context, model string) (engineapi.State, error)
	SetAgent(ctx context.Context, agent string) (engineapi.State, error)
	// Abort cancels the running turn and drops the queue.
	Abort(ctx context.Context) error
	// Compact compacts the conversation now (POST /compact), after the
	// running turn; focus is what the summary should keep in particular.
	Compact(ctx context.Context, focus string) (engineapi.Compaction, error)
	// State is the session's state (mode, the modes and their locks,
	// model, agent, usage, sandbox, policy).
	State(ctx context.Context) (engineapi.State, error)
	// Inspect is the `oceancode inspect --json` document.
	Inspect(ctx context.Context) (json.RawMessage, error)
	// MCP lists the session's MCP servers; AddMCP adds one (it asks, and
	// the requirements' allow-list applies).
	MCP(ctx context.Context) ([]engineapi.MCPStatus, error)
	AddMCP(ctx context.Context, name string, srv engineapi.MCPServer) (engineapi.MCPStatus, error)
	// Sessions lists stored sessions (for /sessions).
	Sessions(ctx context.Context) ([]session.Session, error)
	// Close detaches (in process: closes the session).
	Close() error
}

// Stream is a subscription's events in Seq order (engineapi.Stream: the
// in-process adapter, which does not import the pager, returns it too).
// Err says why Events closed (nil: ctx ended or the session closed;
// engineapi.ErrLagged: the pager fell behind and should resubscribe).
type Stream = engineapi.Stream
