package jev

// STUB (h-jevint): minimal stand-ins, by name, for h-jevcore's evaluation
// API so that `oceancode jev eval` builds on this branch. h-jevcore's
// implementation replaces this file.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Case is one labelled command of an evaluation set.
type Case struct {
	Command string `json:"command"`
	Safe    bool   `json:"safe"` // the expected safe-class answer
}

// Set is a labelled command set.
type Set struct {
	Cases []Case `json:"cases"`
}

// DefaultSet is the set shipped in the repository.
func DefaultSet() Set { return Set{} }

// LoadSet reads a set.
func LoadSet(r io.Reader) (Set, error) {
	var s Set
	if err := json.NewDecoder(r).Decode(&s); err != nil {
		return Set{}, fmt.Errorf("load set: %w", err)
	}
	return s, nil
}

// Report is an evaluation's figures.
type Report struct {
	Cases int `json:"cases"`
}

// Eval runs set against the model of cfg.
func Eval(ctx context.Context, cfg Config, set Set) (Report, error) {
	return Report{}, errors.New("jev eval: not implemented on this branch")
}

// WriteText writes the report for a terminal.
func (r Report) WriteText(w io.Writer) error {
	_, err := fmt.Fprintf(w, "%d cases\n", r.Cases)
	return err
}
