// Package cliapp holds what the two command trees (oceancode, oceanadmin)
// share: the process surroundings a command runs in, the wrapper that turns
// cobra's argument complaints into usage errors, and the final mapping of an
// error to an exit status and a message.
package cliapp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/oceancode/oceancode/internal/exitcode"
	"github.com/oceancode/oceancode/internal/secretenv"
	"github.com/oceancode/oceancode/internal/termtext"
)

// App carries the process's surroundings so commands can run in tests
// without touching the real terminal or environment.
type App struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Getenv reads the environment (in production internal/secretenv's
	// Getenv: os.Getenv, and the secret-named variables it took out of the
	// process's environment at start).
	Getenv func(string) string
	// Dir is the working directory ("" = the process's).
	Dir string
	// Redact, if set, is applied to the error ExitCode prints (oceancode
	// redacts the secrets it knows and credential shapes).
	Redact func(string) string
	// ManagedDir and ManagedPreferences point the configuration loader at
	// a managed dir and an OS-managed plist of a test's own
	// (layers.Options.ManagedDir, ManagedPreferences); "" = the system's.
	// Set by Go code only: no flag or environment variable reaches them.
	ManagedDir, ManagedPreferences string
}

// StdIO returns an App bound to the process's standard streams and environment.
func StdIO() *App {
	return &App{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: secretenv.Getenv}
}

// WorkDir returns the working directory.
func (a *App) WorkDir() (string, error) {
	if a.Dir != "" {
		return a.Dir, nil
	}
	return os.Getwd()
}

// Args wraps a cobra argument validator so that its complaint exits with the
// usage status (2) rather than the generic error status.
func Args(v cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, a []string) error {
		if err := v(cmd, a); err != nil {
			return exitcode.With(exitcode.Usage, fmt.Errorf("%w (see '%s --help')", err, cmd.CommandPath()))
		}
		return nil
	}
}

// Setup applies the settings both trees want on their root command: quiet
// cobra, streams from app, flag errors as usage errors.
func Setup(root *cobra.Command, app *App) {
	root.SilenceUsage = true
	root.SilenceErrors = true
	root.CompletionOptions = cobra.CompletionOptions{DisableDefaultCmd: true}
	root.SetIn(app.Stdin)
	root.SetOut(app.Stdout)
	root.SetErr(app.Stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return exitcode.With(exitcode.Usage, fmt.Errorf("%w (see '%s --help')", err, c.CommandPath()))
	})
}

// Execute runs root with args and returns the exit status. classify maps
// errors that carry no explicit status (the binary's one exit-code map); the
// error is printed to stderr prefixed with the program's name unless it was
// already reported.
func Execute(ctx context.Context, root *cobra.Command, args []string, app *App, classify func(error) int) int {
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err != nil && ctx.Err() != nil {
		err = exitcode.With(exitcode.Interrupted, err)
	}
	return ExitCode(err, app, root.Name(), classify)
}

// ExitCode maps err to a status and reports it.
func ExitCode(err error, app *App, name string, classify func(error) int) int {
	if err == nil {
		return exitcode.OK
	}
	code := exitcode.Code(err, -1)
	if code == -1 {
		switch {
		case errors.Is(err, context.Canceled):
			code = exitcode.Interrupted
		case isCobraUsageError(err):
			code = exitcode.Usage
		case classify != nil:
			code = classify(err)
		default:
			code = exitcode.Error
		}
	}
	var e *exitcode.Err
	if !(errors.As(err, &e) && e.Silent) {
		msg := err.Error()
		if app.Redact != nil {
			msg = app.Redact(msg)
		}
		// An error may quote a tool, a server or a file: text, never
		// terminal control.
		fmt.Fprintf(app.Stderr, "%s: %s\n", name, termtext.Text(msg))
	}
	return code
}

// isCobraUsageError recognises the usage errors cobra raises before any of
// our code runs: an unknown sub-command or flag.
func isCobraUsageError(err error) bool {
	s := err.Error()
	for _, p := range []string{"unknown command ", "unknown flag", "unknown shorthand flag", "required flag(s) ", "invalid argument "} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
