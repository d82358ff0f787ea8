package provider

import (
	"errors"
	"fmt"
	"testing"
)

// TestContextTooLong: the wire formats' real refusals (OpenAI's code and
// message, Anthropic's messages, a 413) are ErrContextTooLong through any
// wrapping; other 400s and other statuses are not.
func TestContextTooLong(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		e    APIError
		want bool
	}{
		{APIError{StatusCode: 400, Code: "context_length_exceeded", Message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 8227 tokens. Please reduce the length of the messages."}, true},
		{APIError{StatusCode: 400, Message: "prompt is too long: 208310 tokens > 200000 maximum"}, true},
		{APIError{StatusCode: 400, Message: "input length and `max_tokens` exceed context limit: 199759 + 8192 > 200000, decrease input length or `max_tokens` and try again"}, true},
		{APIError{StatusCode: 413, Message: "request_too_large"}, true},
		{APIError{StatusCode: 400, Message: "max_tokens: 10000 > 4096, which is the maximum allowed number of output tokens"}, false},
		{APIError{StatusCode: 429, Message: "maximum context length"}, false},
	} {
		err := fmt.Errorf("openai: stream chat completion: %w", Redact(&tc.e, "sk-secret-key"))
		if got := errors.Is(err, ErrContextTooLong); got != tc.want {
			t.Errorf("%d %q: too long = %t, want %t", tc.e.StatusCode, tc.e.Message, got, tc.want)
		}
	}
}
