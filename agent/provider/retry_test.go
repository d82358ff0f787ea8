package provider_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/oceancode/oceancode/agent/provider"
)

func TestParseRetryAfter(t *testing.T) {
	for _, tc := range []struct {
		h    http.Header
		want time.Duration
		ok   bool
	}{
		{http.Header{}, 0, false},
		{http.Header{"Retry-After": {"3"}}, 3 * time.Second, true},
		{http.Header{"Retry-After": {"0"}}, 0, true},
		{http.Header{"Retry-After": {"-5"}}, 0, true},
		{http.Header{"Retry-After": {"2"}, "Retry-After-Ms": {"150"}}, 150 * time.Millisecond, true},
		{http.Header{"Retry-After": {"soon"}}, 0, false},
		{http.Header{"Retry-After": {time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat)}}, 0, true},
	} {
		got, ok := provider.ParseRetryAfter(tc.h)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%v: got %v %t, want %v %t", tc.h, got, ok, tc.want, tc.ok)
		}
	}
}

func TestBackoff(t *testing.T) {
	base := 100 * time.Millisecond
	for attempt := 1; attempt <= 10; attempt++ {
		step := base << (attempt - 1)
		step = min(step, 16*time.Second)
		for range 50 {
			d := provider.Backoff(base, attempt)
			if d < step/2 || d > step {
				t.Fatalf("attempt %d: %v outside [%v, %v]", attempt, d, step/2, step)
			}
		}
	}
}

func TestRetrierDo(t *testing.T) {
	temp := provider.NewAPIError(503, "busy", nil, "")
	perm := provider.NewAPIError(400, "bad", nil, "")
	r := provider.Retrier{MaxRetries: 3, Backoff: time.Microsecond, MaxWait: time.Second}

	t.Run("until success", func(t *testing.T) {
		var tries, events int
		err := r.Do(context.Background(), func(ev provider.Event) {
			events++
			if ev.Type != provider.Retry || ev.Attempt != events || !errors.Is(ev.Err, temp) {
				t.Errorf("event %+v", ev)
			}
		}, func(context.Context) (bool, error) {
			tries++
			if tries < 3 {
				return true, temp
			}
			return false, nil
		})
		if err != nil || tries != 3 || events != 2 {
			t.Errorf("err %v tries %d events %d", err, tries, events)
		}
	})
	t.Run("gives up", func(t *testing.T) {
		var tries int
		err := r.Do(context.Background(), nil, func(context.Context) (bool, error) { tries++; return true, temp })
		if !errors.Is(err, temp) || tries != 4 {
			t.Errorf("err %v tries %d, want the last error after 1+3 tries", err, tries)
		}
	})
	t.Run("not retryable", func(t *testing.T) {
		var tries int
		err := r.Do(context.Background(), nil, func(context.Context) (bool, error) { tries++; return false, perm })
		if !errors.Is(err, perm) || tries != 1 {
			t.Errorf("err %v tries %d", err, tries)
		}
	})
	t.Run("cancelled while waiting", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		slow := provider.Retrier{MaxRetries: 3, Backoff: time.Hour, MaxWait: 10 * time.Hour}
		err := slow.Do(ctx, func(provider.Event) { cancel() }, func(context.Context) (bool, error) { return true, temp })
		if err != context.Canceled {
			t.Errorf("err %v, want context.Canceled itself", err)
		}
	})
	t.Run("retry-after beyond budget", func(t *testing.T) {
		h := http.Header{"Retry-After": {"120"}}
		e := provider.NewAPIError(429, "", h, "")
		var tries int
		err := r.Do(context.Background(), nil, func(context.Context) (bool, error) { tries++; return true, e })
		if !errors.Is(err, e) || tries != 1 {
			t.Errorf("err %v tries %d", err, tries)
		}
	})
}

func TestRetrierFor(t *testing.T) {
	r := provider.RetrierFor(provider.Config{})
	if r.MaxRetries != provider.DefaultMaxRetries || r.Backoff != provider.DefaultRetryBackoff || r.MaxWait != provider.DefaultRetryMaxWait {
		t.Errorf("defaults %+v", r)
	}
	if r := provider.RetrierFor(provider.Config{MaxRetries: -1}); r.MaxRetries != 0 {
		t.Errorf("MaxRetries -1 gave %d, want 0 (retries off)", r.MaxRetries)
	}
}

func TestRedact(t *testing.T) {
	const key = "sk-secret-123456"
	inner := provider.NewAPIError(401, "bad key "+key, nil, key)
	if strings.Contains(inner.Error(), key) {
		t.Errorf("APIError kept the key: %v", inner)
	}
	err := provider.Redact(fmt.Errorf("op: %w: %s", inner, key), key)
	if strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "[redacted]") {
		t.Errorf("Redact: %v", err)
	}
	var ae *provider.APIError
	if !errors.As(err, &ae) {
		t.Errorf("Redact broke the error chain")
	}
	if provider.Redact(nil, key) != nil {
		t.Error("Redact(nil) != nil")
	}
	if got := provider.RedactString("abc", ""); got != "abc" {
		t.Errorf("empty secret: %q", got)
	}
}
