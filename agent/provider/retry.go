package provider

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Retry defaults, used where Config leaves a field zero.
const (
	DefaultMaxRetries   = 4
	DefaultRetryBackoff = 500 * time.Millisecond
	DefaultRetryMaxWait = 60 * time.Second
	// maxBackoffStep caps one computed backoff (not a server's Retry-After).
	maxBackoffStep = 16 * time.Second
)

// APIError is a model API answering with an HTTP error status. Providers
// return it (wrapped) for every non-2xx answer, so callers can branch on the
// status (401: the key is wrong; 429: rate limited) without knowing the SDK.
// It deliberately keeps nothing of the SDK's error, whose request carries the
// credential headers.
type APIError struct {
	StatusCode int
	// Message is the server's explanation, with the API key removed.
	Message string
	// Code is the vendor's error code when it sends one (OpenAI's
	// "code": "context_length_exceeded").
	Code string
	// RetryAfter is what the server asked us to wait (Retry-After or
	// retry-after-ms), when HasRetryAfter.
	RetryAfter    time.Duration
	HasRetryAfter bool
}

func (e *APIError) Error() string {
	s := strconv.Itoa(e.StatusCode)
	if t := http.StatusText(e.StatusCode); t != "" {
		s += " " + t
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// Temporary reports whether the same request may succeed later: 408, 429
// and every 5xx (including Anthropic's 529 "overloaded").
func (e *APIError) Temporary() bool {
	return e.StatusCode == http.StatusTooManyRequests || e.StatusCode == http.StatusRequestTimeout ||
		e.StatusCode >= 500
}

// NewAPIError builds an APIError from a status, the server's message and the
// response headers; secret (the API key) is removed from the message.
func NewAPIError(status int, msg string, h http.Header, secret string) *APIError {
	e := &APIError{StatusCode: status, Message: RedactString(strings.TrimSpace(msg), secret)}
	if h != nil {
		e.RetryAfter, e.HasRetryAfter = ParseRetryAfter(h)
	}
	return e
}

// ParseRetryAfter reads how long a server asked the client to wait:
// retry-after-ms (milliseconds, preferred when present), else Retry-After as
// delta-seconds or an HTTP date. Negative values count as zero.
func ParseRetryAfter(h http.Header) (time.Duration, bool) {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil {
			return max(0, time.Duration(ms*float64(time.Millisecond))), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		return max(0, time.Duration(s*float64(time.Second))), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, time.Until(t)), true
	}
	return 0, false
}

// Backoff is the wait before retry number attempt (from 1) without a
// Retry-After: base doubled per attempt, capped, with "equal jitter" (a
// random point in the upper half) so clients that failed together spread out.
func Backoff(base time.Duration, attempt int) time.Duration {
	if base <= 0 {
		base = DefaultRetryBackoff
	}
	d := base
	for i := 1; i < attempt && d < maxBackoffStep; i++ {
		d *= 2
	}
	d = min(d, maxBackoffStep)
	half := d / 2
	return half + rand.N(half+1)
}

// Retrier runs one model call with the retry policy of a Config: exactly one
// layer of retries for every provider (the SDKs' own retries are turned off).
type Retrier struct {
	MaxRetries int
	Backoff    time.Duration
	MaxWait    time.Duration
}

// RetrierFor returns the retry policy cfg asks for, with defaults filled in.
func RetrierFor(cfg Config) Retrier {
	r := Retrier{MaxRetries: cfg.MaxRetries, Backoff: cfg.RetryBackoff, MaxWait: cfg.RetryMaxWait}
	if r.MaxRetries == 0 {
		r.MaxRetries = DefaultMaxRetries
	}
	if r.MaxRetries < 0 {
		r.MaxRetries = 0
	}
	if r.Backoff <= 0 {
		r.Backoff = DefaultRetryBackoff
	}
	if r.MaxWait <= 0 {
		r.MaxWait = DefaultRetryMaxWait
	}
	return r
}

// Do calls try until it succeeds, fails with an error it does not mark
// retryable, runs out of retries or wait budget, or ctx ends (then ctx.Err()
// is returned). try reports retry=true only for a temporary failure that
// happened before anything was delivered to the caller (a 429 or 5xx answer,
// or an error event at the very start of a stream). Before each wait, Do
// sends a Retry event to on (which may be nil).
func (r Retrier) Do(ctx context.Context, on func(Event), try func(ctx context.Context) (retry bool, err error)) error {
	var waited time.Duration
	for attempt := 1; ; attempt++ {
		retry, err := try(ctx)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !retry || attempt > r.MaxRetries {
			return err
		}
		delay := Backoff(r.Backoff, attempt)
		var ae *APIError
		if errors.As(err, &ae) && ae.HasRetryAfter {
			delay = ae.RetryAfter
		}
		if waited+delay > r.MaxWait {
			return err
		}
		waited += delay
		if on != nil {
			on(Event{Type: Retry, Err: err, Attempt: attempt, Delay: delay})
		}
		if delay > 0 {
			t := time.NewTimer(delay)
			select {
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			case <-t.C:
			}
		}
	}
}

// RedactString replaces every occurrence of secret in s with "[redacted]".
// An empty or very short secret is left alone (it would match everywhere).
func RedactString(s, secret string) string {
	if len(secret) < 4 || !strings.Contains(s, secret) {
		return s
	}
	return strings.ReplaceAll(s, secret, "[redacted]")
}

// Redact returns err with secret removed from its text. The wrapper keeps
// err in its chain, so errors.Is and errors.As still see through it.
func Redact(err error, secret string) error {
	if err == nil || len(secret) < 4 {
		return err
	}
	msg := err.Error()
	if !strings.Contains(msg, secret) {
		return err
	}
	return &redacted{msg: RedactString(msg, secret), err: err}
}

type redacted struct {
	msg string
	err error
}

func (e *redacted) Error() string { return e.msg }
func (e *redacted) Unwrap() error { return e.err }

// HTTPClient returns the HTTP client a provider uses: its own clone of the
// default transport (so proxies from the environment apply and connections
// are reused across calls), with a bound on the wait for response headers
// but none on a stream's body.
func HTTPClient() *http.Client {
	t, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		return &http.Client{Transport: http.DefaultTransport}
	}
	t = t.Clone()
	t.ResponseHeaderTimeout = 10 * time.Minute
	return &http.Client{Transport: t}
}

// Call makes one model call through r: once runs a single attempt with the
// prepared params and says whether its failure may be retried. A cancelled
// ctx returns ctx.Err() itself; any other error is scrubbed of key. Both
// vendors' clients use it, so retries, cancellation and redaction behave
// the same for every provider.
func Call[P any](ctx context.Context, r Retrier, key string, on func(Event), params P,
	once func(ctx context.Context, params P, on func(Event)) (Response, bool, error)) (Response, error) {
	var resp Response
	err := r.Do(ctx, on, func(ctx context.Context) (bool, error) {
		var retry bool
		var err error
		resp, retry, err = once(ctx, params, on)
		return retry, err
	})
	if err != nil {
		if ctx.Err() != nil {
			return Response{}, ctx.Err()
		}
		return Response{}, Redact(err, key)
	}
	return resp, nil
}

// Emit sends ev to on, which may be nil.
func Emit(on func(Event), ev Event) {
	if on != nil {
		on(ev)
	}
}

// StreamAttempt turns the outcome of one streamed attempt into what Call's
// once returns. A cancelled ctx is ctx.Err() and never retried; any other
// error is classified (by the vendor's classify), wrapped as "op: cause",
// and retried only if nothing had been delivered to the caller yet
// (emitted), since a retry would repeat it.
func StreamAttempt(ctx context.Context, resp Response, emitted bool, err error, classify func(error) (bool, error), op string) (Response, bool, error) {
	if err == nil {
		return resp, false, nil
	}
	if ctx.Err() != nil {
		return Response{}, false, ctx.Err()
	}
	retry, err := classify(err)
	return Response{}, retry && !emitted, fmt.Errorf("%s: %w", op, err)
}
