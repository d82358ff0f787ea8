package engineapi

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
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
	EventMCP        EventType = "mcp"         // an MCP server's state: Key the server, Mode the state, Text why
	// EventAsk: a permission ask (or a question of the question tool) waits
	// for a client's answer: Ask. Only sessions with a broker (agent/runner,
	// interactive) emit it.
	EventAsk EventType = "ask"
	// EventResolved: an ask was answered: AskID, Answer, By, Feedback.
	EventResolved EventType = "resolved"
	// EventAdvice: the Jev advisor's advice on a bash ask: ToolCall, Advice
	// (status safe | unsafe | unavailable | timeout, the scores, whether it
	// acted). Unavailable and unsafe are different statuses.
	EventAdvice EventType = "advice"
	// EventHook: a hook ran (docs/hooks.md): Key the hook event
	// (PreToolUse, …), Decision what it decided (Action allow, ask, deny,
	// block or none; Rule "hook EVENT[MATCHER] COMMAND"; Layer, Source and
	// Line where it is configured; Reason), ToolCall the call it ran for;
	// or, without a Decision, Text a line for the user (a hook that failed
	// or timed out, its systemMessage).
	EventHook EventType = "hook"
	// EventCommand: the prompt named a custom command (docs/commands.md):
	// Command says which, from where, and what of it was not honoured.
	EventCommand EventType = "command"
	// EventInstructions: instruction files joined the model's context
	// (docs/instructions.md): Key "start" for those in the system prompt,
	// else the path whose first touch by a tool brought them; Text the
	// files, "NAME (LAYER, N bytes[, imported by NAME][, cut: …])" joined
	// by "; ".
	EventInstructions EventType = "instructions"
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
	// Ask is the pending ask of an ask event.
	Ask *PendingAsk `json:"ask,omitempty"`
	// AskID, Answer, By and Feedback are a resolved event's: the ask, the
	// answer (once, always, deny, or a question's answer), who answered (a
	// client's label, "abort") and what they told the model. A permission
	// event of an advised ask carries Feedback too, and a shadow advice
	// event that came after the user's answer carries Answer and Feedback:
	// the advice's label (docs/jev.md).
	AskID    string `json:"ask_id,omitempty"`
	Answer   string `json:"answer,omitempty"`
	By       string `json:"by,omitempty"`
	Feedback string `json:"feedback,omitempty"`
	// Advice is an advice event's (and, in the stored ask, the advice that
	// came with it).
	Advice *Advice `json:"advice,omitempty"`
	// Workspace is the start event's account of the workspace's trust:
	// whether the project's config loosens the session, and each key it
	// would have loosened that was ignored (docs/trust.md).
	Workspace *WorkspaceTrust `json:"workspace,omitempty"`
	// Command is a command event's.
	Command *CommandUse `json:"command,omitempty"`
	// Compaction is a compaction event's (compaction.go); Context, a usage
	// event's: how full the model's context was.
	Compaction *Compaction `json:"compaction,omitempty"`
	Context    *ContextUse `json:"context,omitempty"`
	// Checkpoint is a checkpoint event's (checkpoint.go).
	Checkpoint *Checkpoint `json:"checkpoint,omitempty"`
}

// CommandUse is a custom command a prompt ran: its name, layer and file,
// the arguments, the tools the turn was narrowed to (none: not narrowed),
// the model it switched to ("" none), and notices (what was ignored).
type CommandUse struct {
	Name    string   `json:"name"`
	Layer   string   `json:"layer"`
	Path    string   `json:"path"`
	Args    string   `json:"args,omitempty"`
	Tools   []string `json:"tools,omitempty"`
	Model   string   `json:"model,omitempty"`
	Notices []string `json:"notices,omitempty"`
}

// WorkspaceTrust is the workspace's trust as a session started with it.
type WorkspaceTrust struct {
	Root    string       `json:"root,omitempty"`
	State   string       `json:"state"` // trusted or untrusted
	Reason  string       `json:"reason"`
	Ignored []IgnoredKey `json:"ignored,omitempty"`
}

// IgnoredKey is one project config key that was not applied because the
// workspace is not trusted: the key, where it is set (file:line:col) and
// what it would have done.
type IgnoredKey struct {
	Key      string `json:"key"`
	Location string `json:"location"`
	Why      string `json:"why"`
}

// PendingAsk is an ask waiting for a client's answer, as the ask event, the
// session store and the HTTP API carry it.
type PendingAsk struct {
	ID string `json:"id"`
	// Kind is "permission" (a rule asked about a tool call) or "question"
	// (the question tool asks the user).
	Kind     string          `json:"kind"`
	Tool     string          `json:"tool"`  // the tool call's name
	Input    json.RawMessage `json:"input"` // the tool call's input
	Decision *Decision       `json:"decision,omitempty"`
	// Target is what the rule was asked about (the command for bash, the
	// path for file tools; the question's text for a question).
	Target      string    `json:"target,omitempty"`
	InputDigest string    `json:"input_digest"` // "sha256:" + hex of Input
	CallID      string    `json:"call_id"`
	Created     time.Time `json:"created_at"`
	// Choices are the answers allowed: once, always (only where it can be
	// remembered), deny; for a question, its options ([] = free text).
	Choices []string `json:"choices"`
	// Segments are a bash command's segments as the shell guard parsed
	// them, each with its verdict and reason; Asked marks those that asked.
	Segments []AskSegment `json:"segments,omitempty"`
	// Remember is what an "always" answer adds and where it is kept (nil
	// when "always" is not offered).
	Remember *Remember `json:"remember,omitempty"`
	// Diff is a unified diff of what a file tool would change (edit, write,
	// apply_patch), computed by the engine; "" for other tools.
	Diff string `json:"diff,omitempty"`
	// Advice is the Jev advisor's advice when it advised this ask.
	Advice *Advice `json:"advice,omitempty"`
}

// AskSegment is one segment of a bash command in an ask.
type AskSegment struct {
	Text    string `json:"text"`
	Verdict string `json:"verdict"` // safe, allow, ask, deny, floor
	Reason  string `json:"reason,omitempty"`
	Asked   bool   `json:"asked,omitempty"`
}

// Remember is what "always" adds: the approvals in the rule syntax
// (`bash "git commit *"`, `edit src/main.go`, `mcp server/*`) and where they
// are kept ("session": for this session, stored with it).
type Remember struct {
	Rules []string `json:"rules"`
	Scope string   `json:"scope"`
}

// InputDigest is "sha256:" + the hex SHA-256 of a tool call's input bytes.
func InputDigest(input []byte) string {
	sum := sha256.Sum256(input)
	return "sha256:" + hex.EncodeToString(sum[:])
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
	// Approved is true when an "always" answer earlier in the session
	// turned this ask into an allow (Rule is the rule that asked).
	Approved bool `json:"approved,omitempty"`
	// Answer says how an ask ended: "user:once", "user:always", "user:deny",
	// "auto" (headless --auto), "refused" (headless without --auto), "jev"
	// (a safe act advice approved it), "jev:rejected" (an act advice
	// rejected it under headless --auto).
	Answer string `json:"answer,omitempty"`
}

// Answer is the user's answer to an ask.
type Answer string

// Answers.
const (
	Once   Answer = "once"
	Always Answer = "always"
	Deny   Answer = "deny"
)
