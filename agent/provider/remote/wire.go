// Package remote runs the model clients in a companion process,
// oceancode-model, and gives the agent a provider.Provider that talks to it
// over a pipe.
//
// Why a second process: the official Anthropic and OpenAI Go SDKs are large
// (30 MB of the binary) and Go initialises every linked package before main,
// so linking them into oceancode would make every command — `--version`,
// `inspect`, `permission check` — pay about 3.5 ms and 9 MiB for clients
// only `run` uses. `run` starts the companion at its first step, so the
// companion's start-up overlaps the configuration load and the first model
// request is not delayed.
//
// The protocol is JSON values, one per line, on the companion's stdin and
// stdout (see docs/providers.md): the parent sends a "config" op once, then
// "stream" ops with a call ID (and "cancel" for a call it gave up on); the
// companion answers each call with zero or more events and exactly one
// response or error. Errors keep their meaning across the pipe: an API error
// is a *provider.APIError again on this side, and a cancelled call returns
// the caller's ctx.Err(). The API key crosses the pipe only, never argv or a
// file. When the parent's end of the pipe closes — the parent exited or
// crashed — the companion exits.
package remote

import (
	"time"

	"github.com/oceancode/oceancode/agent/message"
	"github.com/oceancode/oceancode/agent/provider"
	"github.com/oceancode/oceancode/internal/prestart"
)

// Binary is the companion's file name, installed beside oceancode.
const Binary = prestart.Binary

// HelperArg is the first argument the companion must be given; anything
// else makes it explain that it is internal and exit 2.
const HelperArg = prestart.HelperArg

// Ops the parent sends.
const (
	opConfig = "config"
	opStream = "stream"
	opCancel = "cancel"
)

// toChild is one line from the parent.
type toChild struct {
	Op      string       `json:"op"`
	ID      uint64       `json:"id,omitempty"`
	Config  *wireConfig  `json:"config,omitempty"`
	Request *wireRequest `json:"request,omitempty"`
}

// fromChild is one line from the companion: an event, the response, or the
// error that ends call ID (ID 0: the companion itself failed).
type fromChild struct {
	ID       uint64         `json:"id"`
	Event    *wireEvent     `json:"event,omitempty"`
	Response *wireResponse  `json:"response,omitempty"`
	Error    *wireError     `json:"error,omitempty"`
	Ready    *readyAnnounce `json:"ready,omitempty"`
	// Sent says call ID's request has been written to the network (once per
	// call, on its first attempt).
	Sent bool `json:"sent,omitempty"`
}

// readyAnnounce is the companion's first line: it has started and read its
// configuration. It names its version so a mismatched install is caught.
type readyAnnounce struct {
	Version int `json:"version"`
}

// protocolVersion changes whenever a wire type changes incompatibly.
const protocolVersion = 1

type wireConfig struct {
	Type         string            `json:"type"`
	BaseURL      string            `json:"base_url,omitempty"`
	APIKey       string            `json:"api_key,omitempty"`
	Headers      map[string]string `json:"headers,omitempty"`
	Stream       bool              `json:"stream"`
	MaxRetries   int               `json:"max_retries,omitempty"`
	RetryBackoff time.Duration     `json:"retry_backoff_ns,omitempty"`
	RetryMaxWait time.Duration     `json:"retry_max_wait_ns,omitempty"`
}

func configToWire(c provider.Config) *wireConfig {
	return &wireConfig{Type: c.Type, BaseURL: c.BaseURL, APIKey: c.APIKey, Headers: c.Headers, Stream: c.Stream,
		MaxRetries: c.MaxRetries, RetryBackoff: c.RetryBackoff, RetryMaxWait: c.RetryMaxWait}
}

func (w *wireConfig) config() provider.Config {
	return provider.Config{Type: w.Type, BaseURL: w.BaseURL, APIKey: w.APIKey, Headers: w.Headers, Stream: w.Stream,
		MaxRetries: w.MaxRetries, RetryBackoff: w.RetryBackoff, RetryMaxWait: w.RetryMaxWait}
}

type wireRequest struct {
	Model     string             `json:"model"`
	System    string             `json:"system,omitempty"`
	Messages  []message.Message  `json:"messages"`
	Tools     []provider.ToolDef `json:"tools,omitempty"`
	MaxTokens int                `json:"max_tokens,omitempty"`
}

func requestToWire(r provider.Request) *wireRequest {
	return &wireRequest{Model: r.Model, System: r.System, Messages: r.Messages, Tools: r.Tools, MaxTokens: r.MaxTokens}
}

func (w *wireRequest) request() provider.Request {
	return provider.Request{Model: w.Model, System: w.System, Messages: w.Messages, Tools: w.Tools, MaxTokens: w.MaxTokens}
}

type wireEvent struct {
	Type     provider.EventType `json:"type"`
	Text     string             `json:"text,omitempty"`
	ToolCall *message.ToolCall  `json:"tool_call,omitempty"`
	Err      *wireError         `json:"error,omitempty"`
	Attempt  int                `json:"attempt,omitempty"`
	Delay    time.Duration      `json:"delay_ns,omitempty"`
}

func eventToWire(e provider.Event) *wireEvent {
	return &wireEvent{Type: e.Type, Text: e.Text, ToolCall: e.ToolCall, Err: errorToWire(e.Err), Attempt: e.Attempt, Delay: e.Delay}
}

func (w *wireEvent) event() provider.Event {
	return provider.Event{Type: w.Type, Text: w.Text, ToolCall: w.ToolCall, Err: w.Err.err(), Attempt: w.Attempt, Delay: w.Delay}
}

type wireResponse struct {
	Message    message.Message `json:"message"`
	Usage      message.Usage   `json:"usage"`
	StopReason string          `json:"stop_reason"`
}

// wireError carries an error's text and, when it wraps one, the API error
// (status, the server's message, Retry-After) so errors.As still finds it.
type wireError struct {
	Message       string        `json:"message"`
	Status        int           `json:"status,omitempty"`
	APIMessage    string        `json:"api_message,omitempty"`
	RetryAfter    time.Duration `json:"retry_after_ns,omitempty"`
	HasRetryAfter bool          `json:"has_retry_after,omitempty"`
	Code          string        `json:"code,omitempty"`
}

// remoteError is an error that crossed the pipe: the same text, and the
// same *provider.APIError underneath when there was one.
type remoteError struct {
	msg string
	api *provider.APIError
}

func (e *remoteError) Error() string { return e.msg }

func (e *remoteError) Unwrap() error {
	if e.api == nil {
		return nil
	}
	return e.api
}

func (w *wireError) err() error {
	if w == nil {
		return nil
	}
	e := &remoteError{msg: w.Message}
	if w.Status != 0 {
		e.api = &provider.APIError{StatusCode: w.Status, Message: w.APIMessage, RetryAfter: w.RetryAfter, HasRetryAfter: w.HasRetryAfter, Code: w.Code}
	}
	return e
}
