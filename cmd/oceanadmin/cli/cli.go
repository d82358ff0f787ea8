// Package cli is the oceanadmin command tree (cobra): keygen, sign, verify,
// validate, schema, simulate, fingerprint, package and import. Each verb
// lives in its own file (constructor + options + run function); exit
// statuses are decided in one place, classify. It never imports the agent
// runtime.
package cli

import (
	"context"
	"errors"
	"io/fs"

	"github.com/spf13/cobra"

	"github.com/oceancode/oceancode/internal/cliapp"
	"github.com/oceancode/oceancode/internal/exitcode"
	"github.com/oceancode/oceancode/internal/version"
	"github.com/oceancode/oceancode/requirements"
	"github.com/oceancode/oceancode/schema"
	"github.com/oceancode/oceancode/signing"
)

// App carries the process's surroundings (streams, environment, directory).
type App = cliapp.App

// StdIO returns an App bound to the process's standard streams and environment.
func StdIO() *App { return cliapp.StdIO() }

var args = cliapp.Args

// Main runs oceanadmin with argv (without the program name) and returns the
// process exit status.
func Main(ctx context.Context, argv []string, app *App) int {
	return cliapp.Execute(ctx, newRootCmd(app), argv, app, classify)
}

// classify is oceanadmin's one map from errors to exit statuses (docs/cli.md).
func classify(err error) int {
	switch {
	case errors.Is(err, requirements.ErrInvalid), errors.Is(err, schema.ErrTooLarge):
		return exitcode.Invalid
	case errors.Is(err, signing.ErrExists), errors.Is(err, signing.ErrWrongPassphrase), errors.Is(err, fs.ErrNotExist):
		// The caller's input is wrong: another path, the right passphrase.
		return exitcode.Usage
	case errors.Is(err, signing.ErrMalformed), errors.Is(err, signing.ErrUnsigned),
		errors.Is(err, signing.ErrUnknownKey), errors.Is(err, signing.ErrBadSignature),
		errors.Is(err, signing.ErrThreshold), errors.Is(err, signing.ErrPayloadType),
		errors.Is(err, signing.ErrAnchor), errors.Is(err, requirements.ErrExpired),
		errors.Is(err, requirements.ErrThreshold), errors.Is(err, requirements.ErrTooLarge):
		return exitcode.Refused
	}
	return exitcode.Error
}

func newRootCmd(app *App) *cobra.Command {
	root := &cobra.Command{
		Use:   "oceanadmin",
		Short: "Sign, verify, validate and simulate OceanCode fleet policy",
		Long: `oceanadmin is the administrators' toolchain for OceanCode: generate ed25519
signing keys, sign requirements.json, verify it the way every oceancode will,
validate managed configs against the JSON Schemas, and simulate a machine's
effective configuration offline.

Exit status (docs/cli.md): 0 ok, 1 I/O or internal error, 2 usage (a bad flag
or argument, a file that does not exist, a key of the wrong kind, a wrong
passphrase), 3 validation failed (the file is invalid or its policy would stop
sessions), 4 signature or requirements refused.`,
		Version: version.String(),
	}
	cliapp.Setup(root, app)
	root.SetVersionTemplate("oceanadmin {{.Version}}\n")
	root.AddCommand(
		newKeygenCmd(app),
		newSignCmd(app),
		newVerifyCmd(app),
		newValidateCmd(app),
		newSchemaCmd(app),
		newSimulateCmd(app),
		newFingerprintCmd(app),
		newPackageCmd(app),
		newImportCmd(app),
		newSignProjectCmd(app),
	)
	return root
}
