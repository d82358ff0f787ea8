// Package runner is the long-lived session engine: several turns of the agent
// loop (agent.Run) on one conversation, a prompt queue, abort, event fan-out to
// any number of subscribers, the session store writes, a broker for permission
// asks and live mode switches. `oceancode run`, `oceancode serve` and the pager
// are its clients; they start sessions through package sessionfactory, the
// one place a Session is built from the configuration.
//
// A Session runs its turns one after another on one goroutine. Every event a
// turn emits (and the runner's own: ask, resolved, mode_change) gets the next
// per-session sequence number, is encoded once (Event.Data, redacted), kept in
// an in-memory ring, queued for the store and handed to every subscriber's own
// bounded buffer: a subscriber that falls behind is dropped (ErrLagged), never
// waited for. Subscribe(after) replays from the store and the ring, then goes
// live, with no event lost, repeated or reordered.
//
// Store writes never run on the event path: one writer goroutine commits them
// in order (events in batches). A new session's record is created lazily
// (Options.CreateAfter); writes made before it wait in order, and a tool call
// waits for the record, so nothing a tool does happens before the session is
// on disk.
//
// The record keeps the session's agent, model (Options.Model: PROVIDER/MODEL)
// and permission mode, updated by every live switch and by a resume that runs
// on others, so that a resume can take them up.
//
// What crosses to the clients (events, state, asks, replies, the errors
// they branch on) is declared in agent/engineapi; the names here (Event,
// State, PendingAsk, Reply, ErrLagged, …) are aliases of those, so a client
// reads them without linking the engine.
//
// See docs/runtime.md ("The session engine").
package runner

import (
	"context"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/checkpoint"
	"github.com/oceancode/oceancode/agent/engineapi"
	"github.com/oceancode/oceancode/agent/mcp"
	"github.com/oceancode/oceancode/agent/session"
)

// Options is everything one session needs, as plain values (sessionconfig
// builds them from the layers).
type Options struct {
	// Turn is the turn loop's configuration: Provider, Model, System, Gate,
	// Tools, Env, Auto, MaxTurns (per prompt), Timeout (per prompt),
	// MaxTokens, Redact, Notices. The runner owns OnEvent, OnMessage,
	// Approvals and Ask: values set there are ignored. Env is copied (the
	// runner sets its Ask and Task); Redact also redacts the events' texts
	// and the messages the store keeps.
	Turn agent.Config
	// SubAgent returns the turn config for a sub-agent of the task tool (its
	// own gate for the named agent, the built-in tools only); nil: the task
	// tool answers that sub-agents are unavailable.
	SubAgent func(name string) (agent.Config, error)
	// MCP is the session's MCP servers (sessionconfig.Session.MCP): AddMCP
	// adds one at runtime. nil: AddMCP says MCP is unavailable.
	MCP *mcp.Manager
	// Store records the session (messages, every event with its sequence
	// number, approvals, usage, pending asks). nil (and OpenStore nil): not
	// recorded. The caller keeps ownership of Store.
	Store *session.Store
	// OpenStore, used when Store is nil, opens the store when the record is
	// created (a new session: off the path to the first model request) or
	// in Start (Resume). The runner closes a store it opened.
	OpenStore func(context.Context) (*session.Store, error)
	// Model is the session's model as PROVIDER/MODEL, the name its record
	// keeps so that a resume takes up the same model ("" records
	// Turn.Model, the provider's name for it alone).
	Model string
	// Resume continues this stored session ("" creates a new one). Its
	// history, its "always" approvals and its pending asks are loaded; a
	// pending ask left by a previous process is re-offered and, once
	// answered, the interrupted tool calls run and the turn continues.
	Resume string
	// CreateAfter delays creating a NEW session's record until it is closed
	// (run closes it when the first model request is on the wire, to keep
	// SQLite off that path); nil creates it at once. Writes made before wait
	// in order; a tool call waits for the record to exist.
	CreateAfter <-chan struct{}
	// Interactive sends asks to the broker (Pending/Answer: a client answers
	// them). false is headless: Turn.Auto approves, otherwise the ask is
	// refused and the model told which rule would approve it (today's `run`
	// behaviour), and the question tool says no one can answer.
	Interactive bool
	// Buffer is each subscriber's buffer, in events (0: 1024). A subscriber
	// that falls further behind is dropped (its channel closes, Err() ==
	// ErrLagged); it never blocks the session.
	Buffer int
	// Reconfigure builds the turn config for another agent or model of this
	// session (SetAgent, SetModel) through the same checks as the first
	// (sessionconfig: the requirements' allowed_models and providers, the
	// agent's rules and mode locks). One of agent and model is set: the
	// switch asked for (model is PROVIDER/MODEL). From the result the runner
	// takes Model and Provider (a model switch) or Agent, System, Gate,
	// Tools and Extra (an agent switch); the session keeps the rest, its
	// Env, its approvals and its hooks. nil: SetAgent and SetModel answer
	// ErrUnsupported.
	Reconfigure func(ctx context.Context, agent, model string) (agent.Config, error)
	// Sandbox and Policy are shown in State: the sandbox mode in effect
	// ("read-only", "workspace-write", "danger-full-access" or "off") and
	// the requirements' status as one line ("signed, serial 7", "none").
	Sandbox, Policy string
	// Checkpoints, if set, keeps a checkpoint of the project before each
	// turn's first change, for Undo and Redo (agent/checkpoint); nil: off.
	Checkpoints *checkpoint.Options
	// OnEvent, if set, receives every event in Seq order on the goroutine
	// that emitted it; it must return quickly (run renders with it, so its
	// output keeps the turn's pace and cannot lag). It may call the
	// Session's methods except those that emit (SetMode, Answer, Abort).
	OnEvent func(Event)
}

// The values that cross to the session's clients are the engine's
// boundary vocabulary (agent/engineapi), so that a front end reads them
// without linking the engine; here they keep their names.
type (
	// Event is one event of the session as every client sees it.
	Event = engineapi.SessionEvent
	// PendingAsk is an ask waiting for a client's answer. It is stored: it
	// survives a restart.
	PendingAsk = engineapi.PendingAsk
	// Reply answers an ask.
	Reply = engineapi.Reply
	// ModeResult is a mode switch's outcome (and the current mode).
	ModeResult = engineapi.ModeResult
	// State is a session's state (GET /api/session/{id}).
	State = engineapi.State
	// ModeOption is one permission mode and whether it may be switched to.
	ModeOption = engineapi.ModeOption
	// StopReason is why a turn ended; a session's record status derives
	// from its last turn's (RecordStatus).
	StopReason = engineapi.StopReason
	// AnsweredError: the ask was answered already; First is that answer.
	AnsweredError = engineapi.AnsweredError
)

// Statuses of State.Status.
const (
	StatusIdle    = engineapi.StatusIdle
	StatusRunning = engineapi.StatusRunning
	StatusWaiting = engineapi.StatusWaiting
	StatusClosed  = engineapi.StatusClosed
)

// Stop reasons.
const (
	StopEndTurn   = engineapi.StopEndTurn
	StopMaxTurns  = engineapi.StopMaxTurns
	StopCancelled = engineapi.StopCancelled
	StopTimeout   = engineapi.StopTimeout
	StopError     = engineapi.StopError
)

// RecordStatus is the session record's status after a turn that stopped
// for r.
func RecordStatus(r StopReason) session.Status {
	switch r {
	case StopEndTurn, "":
		return session.Completed
	case StopCancelled, StopTimeout:
		return session.Interrupted
	}
	return session.Failed
}

// stopOf types a turn's end: the loop's own reasons map one to one, and a
// turn without an error ended because the model stopped.
func stopOf(res agent.Result, err error) StopReason {
	if err == nil {
		return StopEndTurn
	}
	switch res.StopReason {
	case agent.StopMaxTurns:
		return StopMaxTurns
	case agent.StopCancelled:
		return StopCancelled
	case agent.StopTimeout:
		return StopTimeout
	case agent.StopAdvisorBreaker:
		return StopAdvisorBreaker
	}
	return StopError
}

// Errors (engineapi's: a front end branches on them without linking the
// engine).
var (
	// ErrClosed: the session is closed.
	ErrClosed = engineapi.ErrClosed
	// ErrLagged: a subscriber fell further behind than its buffer.
	ErrLagged = engineapi.ErrLagged
	// ErrGap: events a Subscribe asked for are no longer held (not recorded).
	ErrGap = engineapi.ErrGap
	// ErrNoAsk: no ask has that id.
	ErrNoAsk = engineapi.ErrNoAsk
	// ErrDigest: a reply's digest is not the ask's input digest.
	ErrDigest = engineapi.ErrDigest
	// ErrAnswer: a reply's answer is not one of the ask's choices.
	ErrAnswer = engineapi.ErrAnswer
)
