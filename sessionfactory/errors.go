package sessionfactory

import (
	"errors"
	"strings"

	"github.com/oceancode/oceancode/agent/session"
	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/sessionconfig"
)

// The kinds of error Open returns (errors.Is). Each keeps its cause's
// message and its cause (errors.Is layers.ErrRequirementsRefused, …).
// Other errors (the store cannot be opened, a model client cannot start)
// are none of them.
var (
	// ErrBadRequest: the request's own fields are wrong (a flag, an API
	// field: a model not PROVIDER/MODEL, an unknown mode or provider, an
	// MCP server name the configuration declares).
	ErrBadRequest = errors.New("bad request")
	// ErrNoModel: neither the request, the stored record nor the
	// configuration names a model. It is also ErrBadRequest.
	ErrNoModel = errors.New("no model")
	// ErrNotFound: the session to resume is not stored.
	ErrNotFound = errors.New("no such session")
	// ErrLocked: another live process holds the session to resume.
	ErrLocked = errors.New("session held by another process")
	// ErrRefused: the requirements refuse the session (a model or
	// provider outside the allowed sets; refused requirements).
	ErrRefused = errors.New("refused by requirements")
	// ErrInvalid: the configuration cannot be used.
	ErrInvalid = errors.New("invalid configuration")
)

// kindError tags an error with kinds without changing its message.
type kindError struct {
	kinds []error
	err   error
}

func (e *kindError) Error() string   { return e.err.Error() }
func (e *kindError) Unwrap() []error { return append([]error{e.err}, e.kinds...) }

// kinds are the factory's kinds for the errors of the packages it calls,
// first match wins.
var kinds = []struct {
	cause error
	kinds []error
}{
	{sessionconfig.ErrNoModel, []error{ErrNoModel, ErrBadRequest}},
	{sessionconfig.ErrUsage, []error{ErrBadRequest}},
	{layers.ErrRequirementsRefused, []error{ErrRefused}},
	{sessionconfig.ErrInvalid, []error{ErrInvalid}},
	{layers.ErrInvalidConfig, []error{ErrInvalid}},
	{session.ErrNotFound, []error{ErrNotFound}},
	{session.ErrHeld, []error{ErrLocked}},
}

// kindOf tags err with its kind (nil stays nil; an error of no kind is
// returned as it is).
func kindOf(err error) error {
	if err == nil {
		return nil
	}
	for _, k := range kinds {
		if errors.Is(err, k.cause) {
			return &kindError{kinds: k.kinds, err: err}
		}
	}
	return err
}

// gate is the check every session passes first: refused requirements
// (ErrRefused), settings of the request the layers refused (ErrBadRequest)
// or a broken configuration (ErrInvalid).
func gate(res *layers.Resolved) error {
	err := res.Err()
	switch {
	case err == nil:
		return nil
	case errors.Is(err, layers.ErrRequirementsRefused):
		return &kindError{kinds: []error{ErrRefused}, err: err}
	case fromRequest(res):
		return &kindError{kinds: []error{ErrBadRequest}, err: err}
	}
	return &kindError{kinds: []error{ErrInvalid}, err: err}
}

// fromRequest reports whether every error diagnostic comes from the
// request's settings: a flag ("flag:…") or an API field ("api:…",
// "pager:…").
func fromRequest(r *layers.Resolved) bool {
	n := 0
	for _, d := range r.Diagnostics {
		if d.Severity != layers.Error {
			continue
		}
		src, _, _ := strings.Cut(d.Source, ":")
		if src != "flag" && src != "api" && src != "pager" {
			return false
		}
		n++
	}
	return n > 0
}
