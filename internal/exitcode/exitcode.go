// Package exitcode holds the exit statuses both binaries share
// (docs/cli.md) and an error type that carries one to main.
package exitcode

import (
	"errors"
	"strconv"
)

// The exit statuses of oceancode and oceanadmin.
const (
	OK          = 0
	Error       = 1   // I/O, network, internal
	Usage       = 2   // bad flag or argument
	Invalid     = 3   // schema violation, invalid config
	Refused     = 4   // requirements refused or signature invalid
	Denied      = 5   // denied by policy
	Breaker     = 6   // oceancode run: the Jev advisor's circuit breaker stopped the run
	Interrupted = 130 // interrupted
)

// Err attaches an exit status to an error. Each CLI's single mapping
// function turns sentinels into these; commands may also return one directly.
type Err struct {
	Code int
	Err  error
	// Silent means the message was already written (for example a report on
	// stdout) and main should only exit.
	Silent bool
}

func (e *Err) Error() string {
	if e.Err == nil {
		return "exit status " + strconv.Itoa(e.Code)
	}
	return e.Err.Error()
}

func (e *Err) Unwrap() error { return e.Err }

// With wraps err with code; a nil err stays nil.
func With(code int, err error) error {
	if err == nil {
		return nil
	}
	return &Err{Code: code, Err: err}
}

// Code returns the status carried by err, or def when it carries none.
func Code(err error, def int) int {
	var e *Err
	if errors.As(err, &e) {
		return e.Code
	}
	return def
}
