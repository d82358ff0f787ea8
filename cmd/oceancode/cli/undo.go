package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/oceancode/oceancode/agent/checkpoint"
	"github.com/oceancode/oceancode/agent/engineapi"
	"github.com/oceancode/oceancode/agent/message"
	"github.com/oceancode/oceancode/agent/runner"
	"github.com/oceancode/oceancode/agent/session"
	"github.com/oceancode/oceancode/internal/exitcode"
	"github.com/oceancode/oceancode/internal/termtext"
	"github.com/oceancode/oceancode/layers"
)

type undoOptions struct {
	session    string
	to         int
	list, redo bool
	force      bool
	json       bool
}

// newUndoCmd is `oceancode undo`: the checkpoints of a stored session
// (--list), undo and redo, out of the session's process.
func newUndoCmd(app *App) *cobra.Command {
	var o undoOptions
	cmd := &cobra.Command{
		Use:   "undo [--session ID] [--to N] [--list] [--redo] [--force]",
		Short: "Undo the file changes of a session's last turn (or back to checkpoint N)",
		Long: `Restore the files a session's last turn changed (or every turn back to checkpoint
N) from its checkpoints, and tell the model in the conversation. A file changed
since the turn ended is not overwritten: undo refuses and lists them (--force
overwrites). --redo puts back what the last undo replaced. Without --session,
the most recent session of this directory. See docs/checkpoints.md.`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withStore(cmd.Context(), app, func(st *session.Store) error { return runUndo(cmd.Context(), app, st, o) })
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.session, "session", "", "the session (default: the most recent of this directory)")
	f.IntVar(&o.to, "to", 0, "undo every checkpoint back to number N (see --list)")
	f.BoolVar(&o.list, "list", false, "list the session's checkpoints")
	f.BoolVar(&o.redo, "redo", false, "redo the last undo")
	f.BoolVar(&o.force, "force", false, "overwrite files changed since")
	f.BoolVar(&o.json, "json", false, "print JSON")
	return cmd
}

func runUndo(ctx context.Context, app *App, st *session.Store, o undoOptions) error {
	id := o.session
	if id == "" {
		var err error
		if id, err = latestSession(ctx, st, app); err != nil {
			return err
		}
	}
	rec, err := st.Get(ctx, id)
	if err != nil {
		return notFound(id, err)
	}
	cs, err := checkpoint.OpenSession(checkpoint.Options{StateDir: layers.StateDir(app.Getenv)}, id)
	if errors.Is(err, checkpoint.ErrNoCheckpoints) {
		return exitcode.With(exitcode.Usage, fmt.Errorf("session %s has no checkpoints: none of its turns changed files", id))
	}
	if err != nil {
		return err
	}
	if o.list {
		return listCheckpoints(app, cs, o.json)
	}
	// The session's record gets the note the model reads: it must not be
	// running in another process (its history is that process's).
	lease, err := st.Claim(ctx, id)
	if err != nil {
		if errors.Is(err, session.ErrHeld) {
			return fmt.Errorf("undo session %s: it is running in another process: use /undo there, or POST /api/session/%s/undo: %w", id, id, err)
		}
		return err
	}
	status := rec.Status
	if status == session.Running {
		status = session.Interrupted
	}
	defer func() { _ = lease.Release(context.WithoutCancel(ctx), status) }()
	if err := checkNoPendingCalls(ctx, st, id); err != nil {
		return err
	}
	var res checkpoint.Result
	if o.redo {
		res, err = cs.Redo(ctx, o.force)
	} else {
		res, err = cs.Undo(ctx, checkpoint.UndoOptions{To: o.to, Force: o.force})
	}
	var ce *engineapi.ConflictError
	switch {
	case errors.As(err, &ce):
		return exitcode.With(exitcode.Error, fmt.Errorf("%w", err))
	case errors.Is(err, checkpoint.ErrNothingToUndo), errors.Is(err, checkpoint.ErrNothingToRedo):
		return exitcode.With(exitcode.Usage, err)
	case err != nil:
		return err
	}
	if _, err := st.AppendMessage(ctx, id, message.UserText(res.Note())); err != nil {
		return err
	}
	if o.json {
		return writeJSON(app, res)
	}
	printUndo(app.Stdout, res)
	return nil
}

// checkNoPendingCalls refuses a session whose last message is tool calls
// without results (a note after them would break the conversation).
func checkNoPendingCalls(ctx context.Context, st *session.Store, id string) error {
	msgs, err := st.Messages(ctx, id)
	if err != nil {
		return err
	}
	if n := len(msgs); n > 0 && len(msgs[n-1].ToolCalls()) > 0 {
		return fmt.Errorf("undo session %s: it waits for tool results: resume it and answer its asks first", id)
	}
	return nil
}

func listCheckpoints(app *App, cs *checkpoint.Session, asJSON bool) error {
	list, err := cs.List()
	if err != nil {
		return err
	}
	if asJSON {
		out := []engineapi.CheckpointEntry{}
		for _, c := range list {
			out = append(out, runner.EntryOf(c))
		}
		return writeJSON(app, struct {
			Version     int                         `json:"version"`
			Checkpoints []engineapi.CheckpointEntry `json:"checkpoints"`
		}{1, out})
	}
	tw := tabwriter.NewWriter(app.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "N\tTIME\tFILES\tSTATE\tPROMPT")
	for _, c := range list {
		state := ""
		if c.Undone {
			state = "undone"
		}
		fmt.Fprintf(tw, "%d\t%s\t%d\t%s\t%s\n", c.N, c.Time.Local().Format("2006-01-02 15:04"), len(c.Files), state, termtext.Line(c.Prompt))
	}
	return tw.Flush()
}

func printUndo(w io.Writer, res checkpoint.Result) {
	fmt.Fprintf(w, "%s of checkpoint %v:\n", res.Op, res.Checkpoints)
	for _, f := range res.Files {
		what := "restored"
		switch f.Status {
		case "deleted":
			what = "removed"
		case "added":
			what = "recreated"
		}
		fmt.Fprintf(w, "  %s %s\n", what, termtext.Line(f.Path))
	}
	for _, s := range res.NotRestored {
		fmt.Fprintf(w, "  not restored %s (%s)\n", termtext.Line(s.Path), s.Reason)
	}
}
