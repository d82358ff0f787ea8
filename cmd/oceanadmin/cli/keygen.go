package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/oceancode/oceancode/signing"
)

type keygenOptions struct {
	out            string
	comment        string
	unencrypted    bool
	force          bool
	passphraseFile string
}

func newKeygenCmd(app *App) *cobra.Command {
	var o keygenOptions
	cmd := &cobra.Command{
		Use:   "keygen -o admin.key",
		Short: "Generate an ed25519 signing key pair",
		Long: `Writes a new ed25519 private key to FILE (mode 0600, encrypted with a
passphrase using scrypt + secretbox) and its public key to FILE with .key
replaced by .pub (mode 0644), and prints the key ID (hex SHA-256 of the key).

The passphrase comes from --passphrase-file, $OCEANADMIN_PASSPHRASE or a
terminal prompt. --unencrypted writes the key in clear, for automation that
keeps it in a secrets store.`,
		Example: `  oceanadmin keygen -o admin.key --comment "acme policy key 2026"`,
		Args:    args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runKeygen(app, o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.out, "output", "o", "", "private key file to write (required)")
	f.StringVar(&o.comment, "comment", "", "a comment stored with the key (who, what for)")
	f.BoolVar(&o.unencrypted, "unencrypted", false, "write the private key without a passphrase")
	f.BoolVar(&o.force, "force", false, "replace existing key files")
	f.StringVar(&o.passphraseFile, "passphrase-file", "", "read the passphrase from this file")
	_ = cmd.MarkFlagRequired("output")
	return cmd
}

func runKeygen(app *App, o keygenOptions) error {
	var pw []byte
	if !o.unencrypted {
		var err error
		pw, err = passphraseSource{app: app, file: o.passphraseFile}.get("Passphrase for the new key: ", true)
		if err != nil {
			return err
		}
	}
	k, err := signing.GenerateKey(trimComment(o.comment))
	if err != nil {
		return err
	}
	pub, err := signing.WriteKeyPairOptions{Force: o.force}.Write(o.out, k, pw)
	if err != nil {
		return err
	}
	enc := "encrypted"
	if o.unencrypted {
		enc = "UNENCRYPTED"
	}
	fmt.Fprintf(app.Stdout, "private key: %s (%s, mode 0600)\npublic key:  %s\nkey id:      %s\n", o.out, enc, pub, k.Public().ID())
	return nil
}
