package engineapi

import (
	"encoding/json"

	"github.com/oceancode/oceancode/agent/message"
	"github.com/oceancode/oceancode/agent/permission"
)

// SessionEvent is one event of a session as every client sees it
// (runner.Event).
type SessionEvent struct {
	Seq   int64           // per-session, starts at 1, no gaps, the SSE id; stored with the event
	Event Event           // the event (Type as in stream-json)
	Data  json.RawMessage // the event's JSON exactly as stored (the SSE data: line), redacted
}

// Stream is a subscription's events in Seq order, as a front end reads
// them (in process over the runner's subscription, or over SSE).
type Stream interface {
	Events() <-chan SessionEvent
	// Err says why Events closed (nil: the subscriber's context ended or
	// the session closed; ErrLagged: the subscriber fell behind and
	// should resubscribe).
	Err() error
	Close()
}

// Kinds of asks (PendingAsk.Kind).
const (
	KindPermission = "permission"
	KindQuestion   = "question"
)

// Reply answers an ask.
type Reply struct {
	// Answer is once, always or deny; for a question (Kind "question"), the
	// answer's text (one of Choices when it has any), or deny to decline.
	Answer   Answer `json:"answer"`
	Feedback string `json:"feedback,omitempty"` // optional: told to the model with a deny (or with an approval)
	Digest   string `json:"digest,omitempty"`   // optional: if set, must equal the ask's InputDigest
	By       string `json:"by,omitempty"`       // who answered (a client label), recorded in the resolved event
}

// ModeResult is a mode switch's outcome (and the current mode).
type ModeResult struct {
	Mode       permission.Mode `json:"mode"` // in effect
	Requested  permission.Mode `json:"requested"`
	Downgraded bool            `json:"downgraded"`
	Reason     string          `json:"reason,omitempty"` // why it was downgraded ("" when not)
}

// State is a session's state (GET /api/session/{id}).
type State struct {
	ID, Agent, Model string
	Mode             ModeResult
	Status           string // idle, running, waiting (an ask is pending), closed
	Turns            int
	Queued           int
	Usage            message.Usage
	LastSeq          int64
	StopReason       StopReason // the last turn's
	// Modes are the permission modes in the order a mode cycle offers them
	// (default, acceptEdits, plan, then the others), each with whether the
	// locks rule it out and why — so a client shows a locked mode with its
	// reason instead of skipping it.
	Modes []ModeOption
	// Sandbox is the sandbox mode in effect (read-only, workspace-write,
	// danger-full-access, or "off"); Policy the requirements' status as one
	// line ("signed, serial 7" / "none" / "refused: ...").
	Sandbox, Policy string
	// Commands are the session's custom commands: a prompt "/NAME ARGS"
	// runs one (docs/commands.md).
	Commands []CommandInfo
}

// CommandInfo is a custom command as a client lists it.
type CommandInfo struct {
	Name         string `json:"name"`
	Description  string `json:"description,omitempty"`
	ArgumentHint string `json:"argument_hint,omitempty"`
}

// ModeOption is one permission mode and whether it may be switched to.
type ModeOption struct {
	Mode   permission.Mode `json:"mode"`
	Locked bool            `json:"locked,omitempty"`
	Reason string          `json:"reason,omitempty"` // why it is locked
}

// Statuses of State.Status.
const (
	StatusIdle    = "idle"
	StatusRunning = "running"
	StatusWaiting = "waiting"
	StatusClosed  = "closed"
)

// StopReason is why a turn ended; a session's record status derives from
// its last turn's.
type StopReason string

// Stop reasons. The turn loop's own (agent.StopMaxTurns, …) are these
// values as strings.
const (
	StopEndTurn   StopReason = "end_turn" // the model stopped (its own reason is kept in the done event)
	StopMaxTurns  StopReason = "max_turns"
	StopCancelled StopReason = "cancelled"
	StopTimeout   StopReason = "timeout"
	StopError     StopReason = "error"
	// StopAdvisorBreaker: the Jev advisor's circuit breaker stopped a
	// headless --auto turn (oceancode run exits 6).
	StopAdvisorBreaker StopReason = "advisor_breaker"
	// StopHookBlocked: a hook ended the run: a UserPromptSubmit hook
	// blocked the prompt, or a hook answered "continue": false.
	StopHookBlocked StopReason = "hook_blocked"
)
