package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/oceancode/oceancode/internal/atomicfile"
	"github.com/oceancode/oceancode/internal/exitcode"
	"github.com/oceancode/oceancode/packaging"
	"github.com/oceancode/oceancode/requirements"
	"github.com/oceancode/oceancode/schema"
)

type packageOptions struct {
	format       string
	requirements string
	managed      string
	trustedKeys  string
	out          string
}

func newPackageCmd(app *App) *cobra.Command {
	var o packageOptions
	cmd := &cobra.Command{
		Use:   "package --format mobileconfig|admx|reg|deb|rpm|dir --requirements FILE [--managed FILE] --trusted-keys FILE -o DIR",
		Short: "Package verified policy for MDM and configuration management",
		Long: `Verifies the inputs the way every oceancode will — the signed requirements
against the trusted keys (as 'oceanadmin verify'), the managed config against
the managed schema (as 'oceanadmin validate --kind managed') — and only then
writes the artefacts of one format into DIR (created if missing; each file
written atomically), printing each artefact's path on stdout, one per line:

  mobileconfig  oceancode-policy.mobileconfig (managed config and signed
                requirements for preference domain dev.oceancode) and
                oceancode-trusted-keys.mobileconfig (the trusted keys)
  admx          OceanCode.admx and en-US/OceanCode.adml for
                HKLM\SOFTWARE\Policies\OceanCode (Managed, Requirements,
                TrustedKeys)
  reg           OceanCode.reg (UTF-16LE, as regedit writes) and OceanCode.ps1
                setting the same values
  deb, rpm      oceancode-policy_SERIAL_all.deb / oceancode-policy-SERIAL-1.noarch.rpm
                installing /etc/oceancode/{managed.json,requirements.json,
                trusted_keys} root:root 0644, not conffiles, no scripts
  dir           etc/oceancode/, MANIFEST.json and Ansible, Puppet, Chef and
                Salt snippets that use oceanadmin as their validate hook

Rebuilding from the same inputs gives the same bytes: archive times come from
SOURCE_DATE_EPOCH, else the policy's issued_at. Every artefact names the
policy serial and payload SHA-256. docs/fleet.md walks through Jamf, Intune,
Ansible and a deb/rpm repository.

Exit status: 2 a bad flag or a missing input, 3 an invalid managed config,
4 requirements that do not verify, 1 DIR cannot be written.`,
		Example: `  oceanadmin package --format deb --requirements requirements.json --managed managed.json --trusted-keys trusted_keys -o dist
  oceanadmin package --format mobileconfig --requirements requirements.json --trusted-keys trusted_keys -o profiles`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runPackage(app, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.format, "format", "", "artefact format: "+strings.Join(packaging.Formats, ", "))
	f.StringVar(&o.requirements, "requirements", "", "the signed requirements.json")
	f.StringVar(&o.managed, "managed", "", "the managed config (managed.json); optional")
	f.StringVar(&o.trustedKeys, "trusted-keys", "", "the trusted public keys (trusted_keys) the requirements verify against")
	f.StringVarP(&o.out, "output", "o", "", "directory to write the artefacts into")
	for _, name := range []string{"format", "requirements", "trusted-keys", "output"} {
		_ = cmd.MarkFlagRequired(name)
	}
	return cmd
}

func runPackage(app *App, o packageOptions) error {
	if !packaging.KnownFormat(o.format) {
		return exitcode.With(exitcode.Usage, fmt.Errorf("package --format %q: %w: want one of %s", o.format, packaging.ErrFormat, strings.Join(packaging.Formats, ", ")))
	}
	epoch, err := sourceDateEpoch(app)
	if err != nil {
		return err
	}
	in, err := verifiedInputs(app, o)
	if err != nil {
		return err
	}
	in.Epoch = epoch
	arts, err := packaging.Build(o.format, in)
	if err != nil {
		return err
	}
	if err := makeOutputDir("package", o.out); err != nil {
		return err
	}
	for _, a := range arts {
		path := filepath.Join(o.out, filepath.FromSlash(a.Name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("package %s: %w: choose a writable -o", path, err)
		}
		if err := atomicfile.Write(path, a.Data, 0o644); err != nil {
			return fmt.Errorf("package: %w: choose a writable -o", err)
		}
		fmt.Fprintln(app.Stdout, path)
	}
	return nil
}

// verifiedInputs reads the inputs and checks them with the code verify and
// validate run, so an artefact never carries policy agents would refuse.
func verifiedInputs(app *App, o packageOptions) (packaging.Inputs, error) {
	var in packaging.Inputs
	if err := checkPublicKeyArgs([]string{o.trustedKeys}); err != nil {
		return in, err
	}
	keys, err := readInput(o.trustedKeys, "trusted keys")
	if err != nil {
		return in, err
	}
	anchors := requirements.KeysFromFlag([]string{o.trustedKeys})
	if anchors.Err != nil {
		return in, exitcode.With(exitcode.Usage, fmt.Errorf("package --trusted-keys %s: %w: give the public key list agents trust (trusted_keys)", o.trustedKeys, anchors.Err))
	}
	data, err := readInput(o.requirements, "requirements")
	if err != nil {
		return in, err
	}
	if len(data) > requirements.MaxSize {
		return in, fmt.Errorf("package --requirements %s: %w: larger than %d bytes", o.requirements, requirements.ErrTooLarge, requirements.MaxSize)
	}
	if err := notAnEnvelope(o.requirements, data); err != nil {
		return in, fmt.Errorf("package --requirements %w", err)
	}
	pol, _, sha, err := requirements.Verify(data, o.requirements, anchors, time.Now())
	switch {
	case err != nil && pol != nil:
		// Expired with on_expiry "warn": agents still apply it.
		fmt.Fprintf(app.Stderr, "oceanadmin: warning: %v\n", err)
	case err != nil:
		return in, fmt.Errorf("package --requirements %s: REFUSED: %w: every oceancode would refuse it; check it with 'oceanadmin verify --pubkey %s %s'", o.requirements, err, o.trustedKeys, o.requirements)
	}
	// Free text with a control character is refused before any artefact
	// embeds it (the formats escape what they embed; this fails closed).
	env, err := parseEnvelopeOrUnsigned(data)
	if err != nil {
		return in, fmt.Errorf("package --requirements %s: %w", o.requirements, err)
	}
	if err := refuseText(o.requirements+" (payload)", env.Payload); err != nil {
		return in, fmt.Errorf("package --requirements %s: REFUSED: %w\nfix the policy and sign it again ('oceanadmin validate %s' lists the problems)", o.requirements, err, o.requirements)
	}
	issued, _ := time.Parse(time.RFC3339, pol.IssuedAt)
	in = packaging.Inputs{Requirements: data, TrustedKeys: keys,
		Policy: packaging.Policy{Serial: pol.Serial, PayloadSHA256: sha, Org: pol.Org, IssuedAt: issued}}
	if o.managed != "" {
		r := validateOne(o.managed, schema.Managed)
		if !r.Valid {
			if r.Error != "" {
				return in, exitcode.With(r.code, fmt.Errorf("package --managed %s", strings.TrimPrefix(r.Error, "read file ")))
			}
			var lines []string
			for _, v := range r.Violations {
				lines = append(lines, v.Error())
			}
			return in, exitcode.With(exitcode.Invalid, fmt.Errorf("package --managed %s: invalid managed config: fix it ('oceanadmin validate --kind managed %s' checks it):\n%s", o.managed, o.managed, strings.Join(lines, "\n")))
		}
		if in.Managed, err = readInput(o.managed, "managed config"); err != nil {
			return in, err
		}
	}
	return in, nil
}

// sourceDateEpoch reads SOURCE_DATE_EPOCH (reproducible-builds.org); zero
// when unset, so the archives take the policy's issue time.
func sourceDateEpoch(app *App) (time.Time, error) {
	v := app.Getenv("SOURCE_DATE_EPOCH")
	if v == "" {
		return time.Time{}, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return time.Time{}, exitcode.With(exitcode.Usage, fmt.Errorf("package: SOURCE_DATE_EPOCH %q: want a non-negative number of seconds since 1970", v))
	}
	return time.Unix(n, 0).UTC(), nil
}

// makeOutputDir creates -o for verb; an existing file there is the
// caller's mistake.
func makeOutputDir(verb, dir string) error {
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return exitcode.With(exitcode.Usage, fmt.Errorf("%s -o %s: it is a file, not a directory: name a directory (it is created if missing)", verb, dir))
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s -o %s: %w: choose a writable directory", verb, dir, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("%s -o %s: %w: choose a writable directory", verb, dir, err)
	}
	return nil
}
