package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/oceancode/oceancode/internal/exitcode"
	"github.com/oceancode/oceancode/signing"
)

func newFingerprintCmd(app *App) *cobra.Command {
	return &cobra.Command{
		Use:   "fingerprint KEYFILE...",
		Short: "Print the key ID of public or private key files",
		Long: `Prints "KEYID  FILE" for each key in each file: public key files in any
accepted format (ed25519:, OpenSSH ssh-ed25519, minisign), key lists such as
trusted_keys, and private key files (read without the passphrase).`,
		Args: args(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, files []string) error {
			for _, f := range files {
				keys, err := keysOfFile(f)
				if err != nil {
					return err
				}
				for _, k := range keys {
					fmt.Fprintf(app.Stdout, "%s  %s\n", k.ID(), f)
				}
			}
			return nil
		},
	}
}

func keysOfFile(path string) ([]signing.PublicKey, error) {
	data, err := readInput(path, "key")
	if err != nil {
		return nil, err
	}
	if strings.HasPrefix(strings.TrimSpace(string(data)), "{") {
		k, err := signing.PrivateKeyFilePublic(data)
		if err != nil {
			return nil, exitcode.With(exitcode.Invalid, fmt.Errorf("read key %s: %w", path, err))
		}
		return []signing.PublicKey{k}, nil
	}
	keys, err := signing.ParsePublicKeys(data)
	if err != nil {
		return nil, exitcode.With(exitcode.Invalid, fmt.Errorf("read key %s: %w", path, err))
	}
	return keys, nil
}
