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

// Main runs oceancode with args (without the program name) and returns the
// process exit status.
func Main(ctx context.Context, argv []string, app *App) int {
	if len(argv) > 0 && argv[0] == sandboxHelperArg {
		// The sandbox re-executes this binary to apply Landlock to itself
		// just before it execs the confined command; no cobra, no config.
		return cliapp.ExitCode(runSandboxHelper(argv[1:]), app, "oceancode", classify)
	}
	return cliapp.Execute(ctx, newRootCmd(app), argv, app, classify)
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

func newRootCmd(app *App) *cobra.Command {
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
	pagerRoot(root, app)
	root.SetVersionTemplate("oceancode {{.Version}}\n")
	root.AddCommand(newVersionCmd(app), newInspectCmd(app))
	for _, add := range extraCommands {
		root.AddCommand(add(app))
	}
	return root
}

// extraCommands lets each command file register itself, so that adding a
// verb touches only its own file.
var extraCommands []func(*App) *cobra.Command

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
