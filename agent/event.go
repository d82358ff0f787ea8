package agent

import (
	"time"

	"github.com/oceancode/oceancode/agent/message"
)

// EventType names an event of the turn loop.
type EventType string

// The events, one stream that the terminal, the JSON output formats, the
// session store and the HTTP API all render.
const (
	EventStart      EventType = "start"       // Text: the prompt; Mode, Agent
	EventModeChange EventType = "mode_change" // a requested value was downgraded: Key, Requested, Mode (in effect), Text = why
	EventText       EventType = "text"        // Text: a delta of the model's answer
	EventToolCall   EventType = "tool_call"   // ToolCall
	EventPermission EventType = "permission"  // Decision for ToolCall
	EventToolResult EventType = "tool_result" // Result for ToolCall
	EventUsage      EventType = "usage"       // Usage of one model call
	EventRetry      EventType = "retry"       // Text: why the provider retries
	EventError      EventType = "error"       // Text
	EventDone       EventType = "done"        // StopReason, total Usage
)

// Event is one step of a run.
type Event struct {
	Type  EventType `json:"type"`
	Time  time.Time `json:"time"`
	Agent string    `json:"agent,omitempty"`
	Mode  string    `json:"mode,omitempty"`
	// Key and Requested are for mode_change: the config key whose value was
	// not used (permission_mode, agents.NAME.permission_mode, sandbox.mode,
	// sandbox.enabled, sandbox.network) and the value that was asked for;
	// Mode is then the value in effect.
	Key        string              `json:"key,omitempty"`
	Requested  string              `json:"requested,omitempty"`
	Text       string              `json:"text,omitempty"`
	ToolCall   *message.ToolCall   `json:"tool_call,omitempty"`
	Decision   *Decision           `json:"decision,omitempty"`
	Result     *message.ToolResult `json:"result,omitempty"`
	Usage      *message.Usage      `json:"usage,omitempty"`
	StopReason string              `json:"stop_reason,omitempty"`
}

// Decision is a permission decision as events carry it: the action, the
// rule that decided and where that rule came from.
type Decision struct {
	Action string `json:"action"` // allow, ask, deny
	Floor  bool   `json:"floor,omitempty"`
	Rule   string `json:"rule,omitempty"`
	Layer  string `json:"layer,omitempty"`
	Source string `json:"source,omitempty"`
	Line   int    `json:"line,omitempty"`
	Reason string `json:"reason,omitempty"`
	Unit   string `json:"unit,omitempty"`
	// Answer says how an ask ended: "user:once", "user:always", "user:deny",
	// "auto" (headless --auto), "refused" (headless without --auto).
	Answer string `json:"answer,omitempty"`
}
