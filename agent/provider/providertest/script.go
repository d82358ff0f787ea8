package providertest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/oceancode/oceancode/agent/message"
)

// Script is what a server plays: its turns in order, one per model request.
// It is JSON-serialisable (see docs/providers.md) so a standalone mock model
// (Serve) can load it from a file.
type Script struct {
	Turns []Turn `json:"turns"`
	// Loop starts the turns over when they run out (benchmarks); without it
	// a request past the last turn is answered 400 and, under a test, fails it.
	Loop bool `json:"loop,omitempty"`
}

// Turn is the answer to one request: text and/or tool calls, or an injected
// failure. The same Turn is rendered in whichever wire format the request
// used (Anthropic Messages or OpenAI Chat Completions).
type Turn struct {
	// Text is the assistant's text; streamed one word per delta.
	Text string `json:"text,omitempty"`
	// ToolCalls are the tool calls, in order after the text; each input is
	// streamed in several fragments.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// Usage is reported as given; nil reports an estimate (request bytes/4 in,
	// answer bytes/4 out).
	Usage *message.Usage `json:"usage,omitempty"`
	// StopReason in the runtime's vocabulary (end_turn, tool_use,
	// max_tokens); "" = tool_use when there are tool calls, else end_turn.
	StopReason string `json:"stop_reason,omitempty"`

	// Status, when 400 or more, answers with that HTTP status and the
	// vendor's error body instead of a message.
	Status int `json:"status,omitempty"`
	// RetryAfter is sent with Status as Retry-After (whole seconds, rounded
	// up) and retry-after-ms.
	RetryAfter Duration `json:"retry_after,omitempty"`
	// Error is the error message for Status; "{{api_key}}" in it is replaced
	// by the key the client presented (to test that clients redact it).
	Error string `json:"error,omitempty"`
	// ErrorCode is the OpenAI error body's "code" for Status (absent:
	// null), as OpenAI sends "context_length_exceeded" with a 400; the
	// Anthropic body has no code (its "type" follows Status).
	ErrorCode string `json:"error_code,omitempty"`

	// Delay stalls the answer: streamed, after the start of the message and
	// the first text delta have been flushed; otherwise before anything is
	// written. The stall ends early when the client goes away.
	Delay Duration `json:"delay,omitempty"`
	// Cut aborts the connection half-way through the answer (stream or
	// body), as a crashed server or a dropped proxy would.
	Cut bool `json:"cut,omitempty"`
	// Truncate ends the answer cleanly half-way: the HTTP response is
	// complete but the stream lacks its end marker (or the body is half a
	// JSON document), as a proxy that times out long responses would.
	Truncate bool `json:"truncate,omitempty"`
}

// ToolCall is one scripted tool call. An empty ID gets a generated one
// (toolu_… for Anthropic, call_… for OpenAI).
type ToolCall struct {
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input,omitempty"`
}

// Text is a turn that answers with text.
func Text(s string) Turn { return Turn{Text: s} }

// Call is a turn that makes one tool call with input (marshalled to JSON).
func Call(name string, input any) Turn {
	b, err := json.Marshal(input)
	if err != nil {
		panic(fmt.Sprintf("providertest: tool call input: %v", err))
	}
	return Turn{ToolCalls: []ToolCall{{Name: name, Input: b}}}
}

// Duration is a time.Duration that reads and writes JSON as a Go duration
// string ("250ms", "2s"); a bare number is seconds.
type Duration time.Duration

// MarshalJSON writes d as a duration string.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// UnmarshalJSON reads a duration string or a number of seconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		v, err := time.ParseDuration(s)
		if err != nil {
			if f, ferr := strconv.ParseFloat(s, 64); ferr == nil {
				*d = Duration(f * float64(time.Second))
				return nil
			}
			return fmt.Errorf("duration %q: %w", s, err)
		}
		*d = Duration(v)
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("duration %s: want a string like \"2s\" or a number of seconds", b)
	}
	*d = Duration(f * float64(time.Second))
	return nil
}

// ParseScript reads a Script from JSON, strictly (unknown fields are errors).
func ParseScript(data []byte) (Script, error) {
	var s Script
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return Script{}, fmt.Errorf("parse script: %w", err)
	}
	if err := s.Validate(); err != nil {
		return Script{}, err
	}
	return s, nil
}

// LoadScript reads a Script from a JSON file.
func LoadScript(path string) (Script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Script{}, fmt.Errorf("load script: %w", err)
	}
	s, err := ParseScript(data)
	if err != nil {
		return Script{}, fmt.Errorf("load script %s: %w", path, err)
	}
	return s, nil
}

// Validate checks that every turn can be played.
func (s Script) Validate() error {
	if len(s.Turns) == 0 {
		return errors.New("script has no turns")
	}
	for i, t := range s.Turns {
		if t.Status != 0 && (t.Status < 400 || t.Status > 599) {
			return fmt.Errorf("turn %d: status %d is not an HTTP error status", i, t.Status)
		}
		for j, c := range t.ToolCalls {
			if c.Name == "" {
				return fmt.Errorf("turn %d: tool call %d has no name", i, j)
			}
			if len(c.Input) > 0 && !json.Valid(c.Input) {
				return fmt.Errorf("turn %d: tool call %s: input is not JSON", i, c.Name)
			}
		}
		if t.Delay < 0 {
			return fmt.Errorf("turn %d: negative delay", i)
		}
	}
	return nil
}
