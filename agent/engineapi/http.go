package engineapi

import (
	"time"

	"github.com/oceancode/oceancode/agent/message"
	"github.com/oceancode/oceancode/agent/permission"
)

// The HTTP API's answers (ModeBody, StateBody, MCPStatusBody, MCPListBody,
// SessionsBody) live here so that agent/server writes them and
// agent/server/client reads them back into the engine's values through the
// same definitions: the two sides cannot drift apart (docs/server.md).

// ModeBody is a mode's JSON: GET/POST …/permission/mode, and in a state.
type ModeBody struct {
	Mode       permission.Mode `json:"mode"`
	Requested  permission.Mode `json:"requested"`
	Downgraded bool            `json:"downgraded"`
	Reason     string          `json:"reason"`
}

// Result is the mode as the engine's ModeResult (a client's reading).
func (m ModeBody) Result() ModeResult {
	return ModeResult{Mode: m.Mode, Requested: m.Requested, Downgraded: m.Downgraded, Reason: m.Reason}
}

// StateBody is a session's state (GET /api/session/{id}, and POST /api/session's answer).
type StateBody struct {
	ID         string        `json:"id"`
	Agent      string        `json:"agent"`
	Model      string        `json:"model"`
	Mode       ModeBody      `json:"mode"`
	Status     string        `json:"status"`
	Turns      int           `json:"turns"`
	Queued     int           `json:"queued"`
	Usage      message.Usage `json:"usage"`
	LastSeq    int64         `json:"last_seq"`
	StopReason string        `json:"stop_reason"`
	Pending    int           `json:"pending"`
	// Modes are the permission modes in the cycle's order, each with its
	// lock; Sandbox and Policy the sandbox mode and the requirements'
	// status line.
	Modes   []ModeOption `json:"modes"`
	Sandbox string       `json:"sandbox"`
	Policy  string       `json:"policy"`
	// Commands are the session's custom commands.
	Commands []CommandInfo `json:"commands,omitempty"`
}

// State is the body as the engine's State (a client's reading; Pending
// is not in it: GET …/permission/pending lists the asks).
func (b StateBody) State() State {
	return State{ID: b.ID, Agent: b.Agent, Model: b.Model, Mode: b.Mode.Result(), Status: b.Status, Turns: b.Turns,
		Queued: b.Queued, Usage: b.Usage, LastSeq: b.LastSeq, StopReason: StopReason(b.StopReason),
		Modes: b.Modes, Sandbox: b.Sandbox, Policy: b.Policy, Commands: b.Commands}
}

// MCPStatusBody is POST /mcp's answer: the server's state after the add.
type MCPStatusBody struct {
	Name   string   `json:"name"`
	Origin string   `json:"origin"`
	Source string   `json:"source"`
	State  string   `json:"state"`
	Reason string   `json:"reason,omitempty"`
	Tools  []string `json:"tools"`
	TookMS float64  `json:"took_ms"`
}

// Status is the server's state as MCPStatus (a client's reading).
func (b MCPStatusBody) Status() MCPStatus {
	return MCPStatus{Name: b.Name, Origin: b.Origin, Source: b.Source, State: b.State, Reason: b.Reason, Tools: b.Tools,
		Took: time.Duration(b.TookMS * float64(time.Millisecond))}
}

// MCPListBody is GET …/mcp's answer.
type MCPListBody struct {
	Servers []MCPStatusBody `json:"servers"`
}

// SessionsBody is GET /api/session's answer: the sessions open on the
// server and the stored ones. S is the session store's summary
// (session.Session), a parameter so that this package does not link the
// store.
type SessionsBody[S any] struct {
	Open   []StateBody `json:"open"`
	Stored []S         `json:"stored"`
}
