// Package provider is the boundary to model APIs: a request (system prompt,
// conversation, tool definitions), a stream of events while the model
// answers, and the complete assistant message at the end. Implementations
// live in subpackages (anthropic, openai), each over its vendor's official Go
// SDK; providertest is a loopback server speaking both wire formats.
package provider

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/oceancode/oceancode/agent/message"
)

// ToolDef describes one tool offered to the model.
type ToolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"` // a JSON Schema object
}

// Request is one model call.
type Request struct {
	Model     string
	System    string
	Messages  []message.Message
	Tools     []ToolDef
	MaxTokens int
}

// EventType says what an Event carries.
type EventType string

// Event types, in the order a stream produces them.
const (
	TextDelta EventType = "text_delta" // Text
	ToolCall  EventType = "tool_call"  // ToolCall, complete (arguments assembled)
	Retry     EventType = "retry"      // Err: a retryable failure; the provider waits and tries again
)

// Event is something the model produced while streaming.
type Event struct {
	Type     EventType
	Text     string
	ToolCall *message.ToolCall
	Err      error
	// Attempt (Retry events) is the number of the retry about to be made,
	// from 1; Delay is how long the provider waits before making it.
	Attempt int
	Delay   time.Duration
}

// Response is the model's complete answer.
type Response struct {
	Message    message.Message
	Usage      message.Usage
	StopReason string // "end_turn", "tool_use", "max_tokens", …
}

// Provider calls a model. Stream sends events to on as they arrive (on may be
// nil) and returns the complete response; it retries 429 and 5xx answers with
// backoff and stops when ctx is cancelled.
type Provider interface {
	Stream(ctx context.Context, req Request, on func(Event)) (Response, error)
}

// Config selects and configures a provider (from the "provider" config key).
type Config struct {
	Type    string            // "anthropic" or "openai"
	BaseURL string            // "" = the vendor's
	APIKey  string            // read from the environment by the caller; never written anywhere
	Headers map[string]string // extra request headers
	// Stream selects the streaming API (true) or the non-streaming one.
	Stream bool
	// MaxRetries bounds retries of 429/5xx answers (0 = the default, 4).
	MaxRetries int
	// RetryBackoff is the first backoff step, doubled on each retry and
	// jittered (0 = DefaultRetryBackoff). A server's Retry-After wins.
	RetryBackoff time.Duration
	// RetryMaxWait caps the total time one call spends waiting between
	// retries (0 = DefaultRetryMaxWait); a wait that would exceed it ends the
	// retries with the last error.
	RetryMaxWait time.Duration
}

// ErrUnknownType is returned for a provider type nobody implements.
var ErrUnknownType = errors.New("unknown provider type")
