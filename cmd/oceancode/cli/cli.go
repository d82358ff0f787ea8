// Package cli is the oceancode command tree (cobra): it parses flags, loads
// the configuration layers, has sessionconfig turn the resolved
// configuration into the runtime's plain values and renders results. Exit statuses are decided in
// one place, classify.
package cli

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/fsguard"
	"github.com/oceancode/oceancode/internal/cliapp"
	"github.com/oceancode/oceancode/internal/exitcode"
	"github.com/oceancode/oceancode/internal/secretenv"
	"github.com/oceancode/oceancode/internal/version"
	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/sessionconfig"
)

// App carries the process's surroundings (streams, environment, directory).
type App = cliapp.App

// StdIO returns an App bound to the process's standard streams and environment.
// A printed error is redacted of the secrets internal/secretenv holds and
// of credential shapes.
func StdIO() *App {
	a := cliapp.StdIO()
	a.Redact = secretenv.Scrub
	return a
}

// args wraps a cobra argument validator into a usage error.
var args = cliapp.Args

// Options are what a main chooses for the command tree, passed in rather
// than set on package variables.
type Options struct {
	// RunPager draws the pager (cmd/oceancode/cli/pagerui.Run). Only the
	// oceancode-pager companion sets it: the pager's libraries (glamour
	// with chroma's lexers and styles, bluemonday, goldmark) cost about
	// 16 ms of package initialisation, which every other command —
	// `--version`, `inspect`, each sandboxed command — would pay. nil: the
	// pager's commands, once the terminal and the arguments are checked,
	// exec oceancode-pager beside this binary with the same arguments and
	// environment.
	RunPager func(ctx context.Context, h PagerHost) error
	// OnEvent, if set, sees each event of `oceancode run` after it is
	// rendered: end-to-end tests panic at a chosen event with it to prove
	// crash reports. Production mains leave it nil.
	OnEvent func(agent.Event)
}

// Main runs oceancode with args (without the program name) and returns the
// process exit status.
func Main(ctx context.Context, argv []string, app *App, opts Options) int {
	if len(argv) > 0 && argv[0] == sandboxHelperArg {
		// The sandbox re-executes this binary to apply Landlock to itself
		// just before it execs the confined command; no cobra, no config.
		return cliapp.ExitCode(runSandboxHelper(argv[1:]), app, "oceancode", classify)
	}
	return cliapp.Execute(ctx, newRootCmd(app, opts), argv, app, classify)
}

// classify is oceancode's one map from errors to exit statuses (docs/cli.md),
// for errors that do not carry one already.
func classify(err error) int {
	switch {
	case errors.Is(err, layers.ErrRequirementsRefused):
		return exitcode.Refused
	case errors.Is(err, layers.ErrInvalidConfig), errors.Is(err, sessionconfig.ErrInvalid):
		return exitcode.Invalid
	case errors.Is(err, sessionconfig.ErrUsage):
		return exitcode.Usage
	case errors.Is(err, agent.ErrAdvisorBreaker):
		return exitcode.Breaker
	}
	return exitcode.Error
}

// newRootCmd builds the command tree. Every verb is listed here, in one
// place: a command file holds its constructor, its options and its run
// func, and registers nothing itself (TestNoInitInCmd).
func newRootCmd(app *App, opts Options) *cobra.Command {
	root := &cobra.Command{
		Use:   "oceancode",
		Short: "OceanCode, the coding agent you can trust on every laptop",
		Long: `OceanCode is a coding agent with permission rules, a shell guard, filesystem
guards and a kernel sandbox, under configuration an administrator can sign.

Configuration layers, lowest first: default < project < user < session <
managed < requirements. "oceancode inspect" shows which layer set each key.

With no command, on a terminal, oceancode opens the pager: an interactive
session (--session ID resumes one, --continue the most recent of this
directory). Without a terminal, use "oceancode run PROMPT".`,
		Version: version.String(),
	}
	cliapp.Setup(root, app)
	// The state and config directories are secrets paths (read, grep, the
	// shell guard) for every command that decides a tool call.
	fsguard.SetSecretDirs(layers.StateDir(app.Getenv), layers.UserConfigDir(app.Getenv))
	pagerRoot(root, app, opts.RunPager)
	root.SetVersionTemplate("oceancode {{.Version}}\n")
	root.AddCommand(
		newVersionCmd(app),
		newInspectCmd(app),
		newDoctorCmd(app),
		newRunCmd(app, opts.OnEvent),
		newServeCmd(app),
		newAttachCmd(app, opts.RunPager),
		newSessionCmd(app),
		newTrustCmd(app),
		newPermissionCmd(app),
		newSandboxCmd(app),
		newMCPCmd(app),
		newJevCmd(app),
		newInitCmd(app),
		newUndoCmd(app),
	)
	return root
}

func newVersionCmd(app *App) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := app.Stdout.Write([]byte("oceancode " + version.String() + "\n"))
			return err
		},
	}
}
