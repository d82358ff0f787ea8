package provider

import (
	"errors"
	"net/http"
	"strings"
)

// ErrContextTooLong is what errors.Is finds in a provider's error when the
// model API refused a request as longer than the model's context window:
// the turn loop compacts the conversation and retries once.
var ErrContextTooLong = errors.New("the request is longer than the model's context window")

// tooLong are the wire formats' ways of saying so, lower case: OpenAI's
// error code and message (400, "code": "context_length_exceeded", "This
// model's maximum context length is N tokens…"), Anthropic's messages (400
// invalid_request_error "prompt is too long: N tokens > M maximum", "input
// length and `max_tokens` exceed context limit: …"), and the compatible
// servers' variants of both.
var tooLong = []string{
	"context_length_exceeded",
	"maximum context length",
	"prompt is too long",
	"exceed context limit",
	"exceeds the context window",
	"context window exceeded",
}

// Is makes errors.Is(err, ErrContextTooLong) true for an API error that says
// the request is too long for the context window (or, 413, too large).
func (e *APIError) Is(target error) bool {
	return target == ErrContextTooLong && e.ContextTooLong()
}

// ContextTooLong reports whether e refuses the request for its length.
func (e *APIError) ContextTooLong() bool {
	switch e.StatusCode {
	case http.StatusRequestEntityTooLarge:
		return true
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
	default:
		return false
	}
	m := strings.ToLower(e.Code + " " + e.Message)
	for _, s := range tooLong {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}
