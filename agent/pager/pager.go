package pager

import (
	"context"
	"errors"
	"io"
)

// Options is what Run needs. CONTRACT (the CLI fills it; the model's
// author owns Run).
type Options struct {
	Engine Engine
	// In and Out are the terminal (os.Stdin, os.Stdout); tests pass pipes
	// with Width/Height set.
	In  io.Reader
	Out io.Writer
	// Width and Height fix the size (0: the terminal's).
	Width, Height int
	// Dark selects the dark theme (the CLI asks the terminal).
	Dark bool
	// Root and Refs are the project root and @ref aliases for completion;
	// HistoryFile keeps prompt history.
	Root        string
	Refs        map[string]string
	HistoryFile string
	// Resume opens another stored session (/sessions) and New a fresh one
	// (/clear); nil: the command says it is unavailable. The pager closes
	// the old Engine after switching.
	Resume func(ctx context.Context, id string) (Engine, error)
	New    func(ctx context.Context) (Engine, error)
}

// Run runs the pager until the user exits (/exit, Ctrl+C twice, Ctrl+D on
// an empty prompt) or ctx ends. CONTRACT stub.
func Run(ctx context.Context, o Options) error {
	return errors.New("pager: not implemented")
}
