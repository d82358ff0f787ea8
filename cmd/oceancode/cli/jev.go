package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/jev"
	"github.com/oceancode/oceancode/agent/provider"
	"github.com/oceancode/oceancode/agent/provider/remote"
	"github.com/oceancode/oceancode/agent/session"
	"github.com/oceancode/oceancode/internal/exitcode"
	"github.com/oceancode/oceancode/sessionconfig"
)

func newJevCmd(app *App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "jev export|eval",
		Short: "The Jev permission advisor: export labelled decisions, evaluate a model",
	}
	var sessionID, out string
	export := &cobra.Command{
		Use:   "export",
		Short: "Write the labelled advised decisions as JSON lines",
		Long: `Writes every advised decision that has a label (the user's answer to the
advised ask, or "jev" when the advice approved the call) as one JSON object
per line, oldest first, from every session in the state dir's store, or one
(--session). See docs/jev.md.`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withStore(cmd.Context(), app, func(st *session.Store) error {
				return jevExport(cmd.Context(), app, st, sessionID, out)
			})
		},
	}
	export.Flags().StringVar(&sessionID, "session", "", "only this session's decisions")
	export.Flags().StringVar(&out, "out", "", "write to FILE instead of stdout")
	var model, set string
	var asJSON bool
	eval := &cobra.Command{
		Use:   "eval",
		Short: "Run the labelled command set against a model and report its error rates",
		Long: `Runs a labelled command set (the one shipped in the repository, or --set FILE)
against the configured model (or --model PROVIDER/MODEL) and reports the
false-approve and false-hold rates with 95 % intervals, latency p50/p99 and
tokens per decision. See docs/jev.md for how to read the figures.`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return jevEval(cmd.Context(), app, model, set, asJSON)
		},
	}
	eval.Flags().StringVar(&model, "model", "", "PROVIDER/MODEL to evaluate (default: the configured model)")
	eval.Flags().StringVar(&set, "set", "", "a labelled set FILE instead of the shipped one")
	eval.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	cmd.AddCommand(export, eval)
	return cmd
}

func jevExport(ctx context.Context, app *App, st *session.Store, id, out string) error {
	if id != "" {
		if _, err := st.Get(ctx, id); err != nil {
			return notFound(id, err)
		}
	}
	if out == "" {
		return st.ExportLabels(ctx, id, app.Stdout)
	}
	f, err := os.OpenFile(appPath(app, out), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("jev export %s: %w", out, err)
	}
	if err := st.ExportLabels(ctx, id, f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func jevEval(ctx context.Context, app *App, model, setFile string, asJSON bool) error {
	if ctx == nil {
		ctx = context.Background()
	}
	var set []jev.Case
	if setFile != "" {
		f, err := os.Open(appPath(app, setFile))
		if err != nil {
			return exitcode.With(exitcode.Usage, fmt.Errorf("--set %s: %w", setFile, err))
		}
		set, err = jev.LoadSet(f)
		f.Close()
		if err != nil {
			return exitcode.With(exitcode.Invalid, fmt.Errorf("--set %s: %w", setFile, err))
		}
	}
	res, err := loadConfig(app, sessionconfig.Request{Model: model}.Settings())
	if err != nil {
		return err
	}
	if err := sessionGate(res); err != nil {
		return err
	}
	client := remote.Start()
	defer client.Close()
	cwd, err := app.WorkDir()
	if err != nil {
		return err
	}
	prov, name, js, err := sessionconfig.AdvisorProvider(res, sessionconfig.Host{Getenv: app.Getenv, WorkDir: cwd,
		Provider: func(cfg provider.Config) (provider.Provider, error) {
			if err := client.Configure(cfg); err != nil {
				return nil, err
			}
			return client, nil
		}})
	if err != nil {
		return err
	}
	if set == nil {
		if set, err = jev.DefaultSet(); err != nil {
			return err
		}
	}
	rep, err := jev.Eval(ctx, jev.EvalConfig{Provider: prov, Model: name, Deadline: js.Deadline}, set)
	if err != nil {
		return err
	}
	if asJSON {
		return rep.WriteJSON(app.Stdout)
	}
	return rep.WriteText(app.Stdout)
}

// appPath resolves a file argument against the command's working directory.
func appPath(app *App, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	if cwd, err := app.WorkDir(); err == nil {
		return filepath.Join(cwd, p)
	}
	return p
}

// adviceLine is an advice event as run's text output shows it on stderr:
// "  jev unsafe (act): destructive 90, …; destructive 90 >= 20".
func adviceLine(e agent.Event) string {
	a := e.Advice
	if a == nil {
		return "  jev: no advice"
	}
	line := fmt.Sprintf("  jev %s (%s", a.Status, a.Mode)
	if a.Cached {
		line += ", cached"
	}
	if a.Acted {
		line += ", approved"
	}
	line += ")"
	if s := a.Scores; s != nil {
		line += fmt.Sprintf(": destructive %d, network_egress %d, easily_undone %d, blast_radius %s", s.Destructive, s.Egress, s.Undoable, s.Blast)
	}
	if len(a.Reasons) > 0 {
		line += "; " + strings.Join(a.Reasons, "; ")
	}
	return line
}
