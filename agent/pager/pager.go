package pager

import (
	"context"
	"errors"
	"fmt"
	"io"

	tea "charm.land/bubbletea/v2"
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
// an empty prompt) or ctx ends (then it returns nil).
//
// It is inline, not full-screen: finished output is printed into the
// terminal's own scrollback and only the live region (the streaming tail,
// the dialog or composer, the status line) is redrawn. o.Engine stays the
// caller's unless the user switched away from it (/sessions ID, /clear):
// every engine switched away from is closed when the switch happens, and
// the one opened last when Run returns.
func Run(ctx context.Context, o Options) error {
	if o.Engine == nil {
		return errors.New("pager: run: no engine")
	}
	m := newModel(ctx, o)
	// 120 frames a second (bubbletea's most): a key's effect is on screen
	// within 8 ms of its update; the cell diff keeps each frame small.
	opts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithFPS(120)}
	if o.In != nil {
		opts = append(opts, tea.WithInput(o.In))
	}
	if o.Out != nil {
		opts = append(opts, tea.WithOutput(o.Out))
	}
	if o.Width > 0 && o.Height > 0 {
		opts = append(opts, tea.WithWindowSize(o.Width, o.Height))
	}
	_, err := tea.NewProgram(m, opts...).Run()
	if m.sub != nil {
		m.sub.Close()
	}
	var cerr error
	if m.eng != o.Engine {
		cerr = m.eng.Close()
	}
	if err != nil && !(errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil) {
		return fmt.Errorf("pager: run: %w", err)
	}
	if cerr != nil {
		return fmt.Errorf("pager: close the session: %w", cerr)
	}
	return nil
}
