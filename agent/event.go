package agent

import "github.com/oceancode/oceancode/agent/engineapi"

// The events and the ask's values are the engine's boundary vocabulary
// (agent/engineapi), named here as they always were.

// EventType names an event of the turn loop.
type EventType = engineapi.EventType

// The events, one stream that the terminal, the JSON output formats, the
// session store and the HTTP API all render (engineapi.EventStart, …).
const (
	EventStart      = engineapi.EventStart
	EventModeChange = engineapi.EventModeChange
	EventText       = engineapi.EventText
	EventToolCall   = engineapi.EventToolCall
	EventPermission = engineapi.EventPermission
	EventToolResult = engineapi.EventToolResult
	EventUsage      = engineapi.EventUsage
	EventRetry      = engineapi.EventRetry
	EventError      = engineapi.EventError
	EventDone       = engineapi.EventDone
	EventMCP        = engineapi.EventMCP
	EventAsk        = engineapi.EventAsk
	EventResolved   = engineapi.EventResolved
	EventAdvice     = engineapi.EventAdvice
	EventHook       = engineapi.EventHook
	EventCommand    = engineapi.EventCommand

	EventInstructions = engineapi.EventInstructions
	EventCheckpoint   = engineapi.EventCheckpoint
)

type (
	// Event is one step of a run.
	Event = engineapi.Event
	// WorkspaceTrust is the workspace's trust as a session started with it.
	WorkspaceTrust = engineapi.WorkspaceTrust
	// IgnoredKey is one project config key an untrusted workspace ignored.
	IgnoredKey = engineapi.IgnoredKey
	// PendingAsk is an ask waiting for a client's answer.
	PendingAsk = engineapi.PendingAsk
	// AskSegment is one segment of a bash command in an ask.
	AskSegment = engineapi.AskSegment
	// Remember is what "always" adds.
	Remember = engineapi.Remember
	// Decision is a permission decision as events carry it.
	Decision = engineapi.Decision
	// Answer is the user's answer to an Ask.
	Answer = engineapi.Answer
)

// Answers.
const (
	Once   = engineapi.Once
	Always = engineapi.Always
	Deny   = engineapi.Deny
)

// InputDigest is "sha256:" + the hex SHA-256 of a tool call's input bytes.
func InputDigest(input []byte) string { return engineapi.InputDigest(input) }
