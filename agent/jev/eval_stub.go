package jev

// STUB (h-jevint): minimal stand-ins, with h-jevcore's exact names and
// signatures, for its evaluation API (eval.go), so that `oceancode jev
// eval` builds on this branch. DELETE this file when h-jevcore's eval.go
// is merged: it declares the same names.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/oceancode/oceancode/agent/provider"
)

// Case is one labelled command of an eval set.
type Case struct {
	Command  string `json:"command"`
	Cwd      string `json:"cwd,omitempty"`
	User     string `json:"user"`
	Expect   string `json:"expect"`
	Category string `json:"category"`
	Note     string `json:"note,omitempty"`
}

// DefaultSet is the labelled set shipped in the repository.
func DefaultSet() ([]Case, error) { return nil, errors.New("jev: default set: not on this branch") }

// LoadSet reads an eval set (JSON lines).
func LoadSet(r io.Reader) ([]Case, error) {
	var out []Case
	dec := json.NewDecoder(r)
	for dec.More() {
		var c Case
		if err := dec.Decode(&c); err != nil {
			return nil, fmt.Errorf("load set: %w", err)
		}
		out = append(out, c)
	}
	return out, nil
}

// EvalConfig configures Eval.
type EvalConfig struct {
	Advisor     *Advisor
	Provider    provider.Provider
	Model       string
	ProjectRoot string
	Concurrency int
	Deadline    time.Duration
}

// Report is an eval's result.
type Report struct {
	Version int    `json:"version"`
	Model   string `json:"model,omitempty"`
	N       int    `json:"n"`
}

// Eval runs set against cfg's model (the stub only advises each case and
// counts them).
func Eval(ctx context.Context, cfg EvalConfig, set []Case) (Report, error) {
	a := cfg.Advisor
	if a == nil {
		var err error
		if a, err = New(Config{Mode: Act, Deadline: cfg.Deadline, Provider: cfg.Provider, Model: cfg.Model}); err != nil {
			return Report{}, err
		}
	}
	for _, c := range set {
		a.Advise(ctx, Request{Command: c.Command, UserMessages: []string{c.User}})
	}
	return Report{Version: 1, Model: cfg.Model, N: len(set)}, nil
}

// WriteJSON writes the report as indented JSON.
func (r Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteText writes the report for people.
func (r Report) WriteText(w io.Writer) error {
	_, err := fmt.Fprintf(w, "jev eval: %d cases\n", r.N)
	return err
}
