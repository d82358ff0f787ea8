package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/oceancode/oceancode/internal/atomicfile"
	"github.com/oceancode/oceancode/internal/exitcode"
	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/signing"
)

func newSignProjectCmd(app *App) *cobra.Command {
	var o signOptions
	cmd := &cobra.Command{
		Use:   "sign-project -k repo.key [PROJECT]",
		Short: "Sign a repository's project config so it loosens under project_config signed",
		Long: `Signs the loosening config of the project at PROJECT (default: the working
directory): the keys of its .oceancode/oceancode.json,
.oceancode/oceancode.local.json and .mcp.json that loosen a session or run
code, as oceancode computes them. The DSSE envelope (payload type
` + layers.ProjectPayloadType + `, payload {"digest": "sha256:…"})
is written to ` + layers.ProjectSignatureFile + ` in the project; commit it with the
config. Under the requirements' project_config "signed", oceancode applies the
project's loosening keys only when this signature verifies under a key of
repo_signers and names the config as it is: any change to a loosening key
needs a new signature. Keys that only tighten may change freely.`,
		Example: `  oceanadmin keygen repo.key
  oceanadmin sign-project -k repo.key ~/src/service   # then commit .oceancode/oceancode.sig`,
		Args: args(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			dir := "."
			if len(a) == 1 {
				dir = a[0]
			}
			return runSignProject(app, o, dir)
		},
	}
	f := cmd.Flags()
	f.StringArrayVarP(&o.keys, "key", "k", nil, "private key file to sign with (repeat for several signatures)")
	f.StringVar(&o.passphraseFile, "passphrase-file", "", "read key passphrases from this file")
	_ = cmd.MarkFlagRequired("key")
	return cmd
}

func runSignProject(app *App, o signOptions, dir string) error {
	if !filepath.IsAbs(dir) {
		wd, err := app.WorkDir()
		if err != nil {
			return err
		}
		dir = filepath.Join(wd, dir)
	}
	keys, digest, err := layers.ProjectLoosening(dir)
	if err != nil {
		return exitcode.With(exitcode.Invalid, err)
	}
	if len(keys) == 0 {
		return exitcode.With(exitcode.Usage, fmt.Errorf("sign project %s: its config loosens nothing, so there is nothing to sign", dir))
	}
	priv, err := loadPrivateKeys(app, o)
	if err != nil {
		return err
	}
	if len(priv) == 0 {
		return exitcode.With(exitcode.Usage, errors.New("sign project: no -k key given"))
	}
	payload, err := json.Marshal(layers.ProjectSignaturePayload{Digest: digest})
	if err != nil {
		return err
	}
	env, err := signing.Sign(layers.ProjectPayloadType, payload, priv...)
	if err != nil {
		return err
	}
	out, err := env.Marshal()
	if err != nil {
		return err
	}
	path := filepath.Join(dir, layers.ProjectSignatureFile)
	if err := atomicfile.Write(path, append(out, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(app.Stdout, "signed the loosening config of %s (%s, %d key(s)) into %s:\n", dir, digest, len(keys), path)
	for _, k := range keys {
		fmt.Fprintf(app.Stdout, "  %s\n", k)
	}
	return nil
}
