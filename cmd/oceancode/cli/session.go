package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/oceancode/oceancode/agent/session"
	"github.com/oceancode/oceancode/internal/exitcode"
	"github.com/oceancode/oceancode/internal/termtext"
)

func newSessionCmd(app *App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "session list|show|export|close|delete",
		Short: "List, show, export or delete stored sessions",
	}
	var listJSON bool
	list := &cobra.Command{
		Use: "list", Short: "List stored sessions, newest first", Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withStore(cmd.Context(), app, func(st *session.Store) error {
				ss, err := st.List(cmd.Context(), session.ListOptions{})
				if err != nil {
					return err
				}
				if listJSON {
					return writeJSON(app, struct {
						Version  int                `json:"version"`
						Sessions []*session.Session `json:"sessions"`
					}{1, ss})
				}
				tw := tabwriter.NewWriter(app.Stdout, 0, 0, 2, ' ', 0)
				fmt.Fprintln(tw, "ID\tSTATUS\tAGENT\tMODEL\tMESSAGES\tUPDATED\tDIRECTORY")
				for _, s := range ss {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\n", s.ID, s.Status, s.Agent, s.Model, s.Messages, s.Updated.Local().Format("2006-01-02 15:04"), s.Cwd)
				}
				return tw.Flush()
			})
		},
	}
	list.Flags().BoolVar(&listJSON, "json", false, "print JSON")
	show := &cobra.Command{
		Use: "show ID", Short: "Show a session's record and messages", Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			return withStore(cmd.Context(), app, func(st *session.Store) error {
				s, err := st.Get(cmd.Context(), a[0])
				if err != nil {
					return notFound(a[0], err)
				}
				msgs, err := st.Messages(cmd.Context(), a[0])
				if err != nil {
					return err
				}
				fmt.Fprintf(app.Stdout, "session %s  %s  agent %s  model %s  mode %s\n  directory %s\n  tokens in %d, out %d\n\n",
					s.ID, s.Status, termtext.Line(s.Agent), termtext.Line(s.Model), s.Mode, termtext.Line(s.Cwd), s.Usage.InputTokens, s.Usage.OutputTokens)
				for _, m := range msgs {
					for _, p := range m.Parts {
						switch {
						case p.Text != "":
							fmt.Fprintf(app.Stdout, "%s: %s\n", m.Role, termtext.Text(p.Text))
						case p.ToolCall != nil:
							fmt.Fprintf(app.Stdout, "%s → %s %s\n", m.Role, termtext.Line(p.ToolCall.Name), termtext.Line(compact(p.ToolCall.Input)))
						case p.ToolResult != nil:
							fmt.Fprintf(app.Stdout, "  ← %s\n", termtext.Line(firstLine(p.ToolResult.Content)))
						}
					}
				}
				return nil
			})
		},
	}
	export := &cobra.Command{
		Use: "export ID", Short: "Write a session as a versioned JSON document", Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			return withStore(cmd.Context(), app, func(st *session.Store) error {
				return notFound(a[0], st.Export(cmd.Context(), a[0], app.Stdout))
			})
		},
	}
	del := &cobra.Command{
		Use: "delete ID...", Short: "Delete sessions (not one a live process holds)", Args: args(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			return withStore(cmd.Context(), app, func(st *session.Store) error {
				for _, id := range a {
					if err := st.Delete(cmd.Context(), id); err != nil {
						return notFound(id, err)
					}
					fmt.Fprintf(app.Stdout, "deleted %s\n", id)
				}
				return nil
			})
		},
	}
	closeCmd := &cobra.Command{
		Use: "close ID...", Short: "Mark sessions left running interrupted (keeps their records; ended sessions are left as they are)", Args: args(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			return withStore(cmd.Context(), app, func(st *session.Store) error {
				for _, id := range a {
					s, err := st.Get(cmd.Context(), id)
					if err != nil {
						return notFound(id, err)
					}
					// Only a session left running is closed: one that ended
					// keeps the status it ended with.
					if s.Status != session.Running {
						fmt.Fprintf(app.Stdout, "left %s as it is: it is %s, not running (close marks only a session left running as interrupted)\n", id, s.Status)
						continue
					}
					if err := st.CloseSession(cmd.Context(), id, session.Interrupted); err != nil {
						return notFound(id, err)
					}
					fmt.Fprintf(app.Stdout, "closed %s (interrupted)\n", id)
				}
				return nil
			})
		},
	}
	cmd.AddCommand(list, show, export, closeCmd, del)
	return cmd
}

func withStore(ctx context.Context, app *App, f func(*session.Store) error) error {
	if ctx == nil {
		ctx = context.Background()
	}
	st, err := session.Open(ctx, sessionsDB(app))
	if err != nil {
		return err
	}
	defer st.Close()
	return f(st)
}

func notFound(id string, err error) error {
	if errors.Is(err, session.ErrNotFound) {
		return exitcode.With(exitcode.Usage, fmt.Errorf("session %s: no such session ('oceancode session list' shows them)", id))
	}
	return err
}

func writeJSON(app *App, v any) error {
	enc := json.NewEncoder(app.Stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
