package sessionfactory

import (
	"errors"
	"fmt"
	"testing"

	"github.com/oceancode/oceancode/agent/provider"
	"github.com/oceancode/oceancode/agent/session"
	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/sessionconfig"
)

// TestClientKey: two provider configurations share a client exactly when
// they are equal, headers compared as maps.
func TestClientKey(t *testing.T) {
	base := provider.Config{Type: "openai", BaseURL: "http://a", APIKey: "k", Stream: true,
		Headers: map[string]string{"X-A": "1", "X-B": "2"}}
	same := base
	same.Headers = map[string]string{"X-B": "2", "X-A": "1"}
	if keyOf(base) != keyOf(same) {
		t.Error("equal configurations give two keys")
	}
	for name, change := range map[string]func(*provider.Config){
		"type":     func(c *provider.Config) { c.Type = "anthropic" },
		"base_url": func(c *provider.Config) { c.BaseURL = "http://b" },
		"api key":  func(c *provider.Config) { c.APIKey = "other" },
		"stream":   func(c *provider.Config) { c.Stream = false },
		"header":   func(c *provider.Config) { c.Headers = map[string]string{"X-A": "1", "X-B": "3"} },
		// A value that holds what would be the next pair of a naive join.
		"joined": func(c *provider.Config) { c.Headers = map[string]string{"X-A": "1\x00X-B\x002"} },
	} {
		c := base
		change(&c)
		if keyOf(c) == keyOf(base) {
			t.Errorf("%s differs, the key does not", name)
		}
	}
}

// TestKinds: the errors of the packages the factory calls come out typed,
// with their message and their cause kept.
func TestKinds(t *testing.T) {
	cases := []struct {
		cause error
		want  []error
	}{
		{fmt.Errorf("wrap: %w", sessionconfig.ErrNoModel), []error{ErrNoModel, ErrBadRequest}},
		{sessionconfig.ErrUsage, []error{ErrBadRequest}},
		{fmt.Errorf("x: %w", layers.ErrRequirementsRefused), []error{ErrRefused}},
		{sessionconfig.ErrInvalid, []error{ErrInvalid}},
		{fmt.Errorf("get ses_1: %w", session.ErrNotFound), []error{ErrNotFound}},
		{fmt.Errorf("claim ses_1: %w", session.ErrHeld), []error{ErrLocked}},
	}
	for _, c := range cases {
		err := kindOf(c.cause)
		for _, k := range c.want {
			if !errors.Is(err, k) {
				t.Errorf("%v: not %v", c.cause, k)
			}
		}
		if !errors.Is(err, c.cause) || err.Error() != c.cause.Error() {
			t.Errorf("%v: the cause or its message is lost: %v", c.cause, err)
		}
	}
	plain := errors.New("disk full")
	if kindOf(plain) != plain || kindOf(nil) != nil {
		t.Error("an error of no kind is changed")
	}
}

// TestFromRequest: only diagnostics of the request's own settings make a
// bad request; one from a file makes the configuration invalid.
func TestFromRequest(t *testing.T) {
	diag := func(src string) layers.Diagnostic { return layers.Diagnostic{Severity: layers.Error, Source: src} }
	for _, c := range []struct {
		diags []layers.Diagnostic
		want  bool
	}{
		{[]layers.Diagnostic{diag("flag:--model")}, true},
		{[]layers.Diagnostic{diag("api:model"), diag("pager:model")}, true},
		{[]layers.Diagnostic{diag("api:model"), diag("/p/.oceancode/config.json")}, false},
		{nil, false},
	} {
		if got := fromRequest(&layers.Resolved{Diagnostics: c.diags}); got != c.want {
			t.Errorf("%v: %v, want %v", c.diags, got, c.want)
		}
	}
}
