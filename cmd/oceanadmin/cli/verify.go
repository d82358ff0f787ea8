package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/oceancode/oceancode/internal/exitcode"
	"github.com/oceancode/oceancode/requirements"
	"github.com/oceancode/oceancode/signing"
)

type verifyOptions struct {
	pubkeys []string
	json    bool
	at      string
}

// verifyReport is the --json shape of verify (docs/cli.md); stable, versioned.
type verifyReport struct {
	Version       int             `json:"version"`
	File          string          `json:"file"`
	OK            bool            `json:"ok"`
	Error         string          `json:"error,omitempty"`
	Warning       string          `json:"warning,omitempty"`
	PayloadType   string          `json:"payload_type,omitempty"`
	Serial        int64           `json:"serial,omitempty"`
	IssuedAt      string          `json:"issued_at,omitempty"`
	ExpiresAt     string          `json:"expires_at,omitempty"`
	OnExpiry      string          `json:"on_expiry,omitempty"`
	Threshold     int             `json:"threshold,omitempty"`
	Signers       []string        `json:"signers,omitempty"`
	TrustedKeys   []string        `json:"trusted_keys"`
	PayloadSHA256 string          `json:"payload_sha256,omitempty"`
	Payload       json.RawMessage `json:"payload,omitempty"`
}

func newVerifyCmd(app *App) *cobra.Command {
	var o verifyOptions
	cmd := &cobra.Command{
		Use:   "verify --pubkey admin.pub requirements.json",
		Short: "Verify a signed requirements.json as every agent will",
		Long: `Checks the envelope exactly as oceancode does before applying it: payload
type, signatures from the trusted keys (--pubkey: a key file, a key list such as
trusted_keys, or a key string; repeatable), the policy's threshold, the strict
payload schema, the time rules (issued_at at most 1 hour after the clock,
expires_at after issued_at) and expiry. Prints serial, expiry, signers and the
payload.

Exit status 4 on any failure, so it can serve as the validate hook of Ansible
(validate:), Puppet (validate_cmd) or Chef (verify). An expired policy whose
on_expiry is "warn" verifies with a warning.`,
		Example: `  oceanadmin verify --pubkey admin.pub requirements.json
  oceanadmin verify --pubkey /etc/oceancode/trusted_keys --json requirements.json`,
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			return runVerify(app, o, a[0])
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&o.pubkeys, "pubkey", nil, "trusted public key: file or key string (repeatable)")
	f.BoolVar(&o.json, "json", false, "print a JSON report")
	f.StringVar(&o.at, "at", "", "check issue time and expiry at this RFC 3339 time instead of now")
	_ = cmd.MarkFlagRequired("pubkey")
	return cmd
}

func runVerify(app *App, o verifyOptions, file string) error {
	now := time.Now()
	if o.at != "" {
		t, err := time.Parse(time.RFC3339, o.at)
		if err != nil {
			return exitcode.With(exitcode.Usage, fmt.Errorf("parse --at %q: want an RFC 3339 time", o.at))
		}
		now = t
	}
	if err := checkPublicKeyArgs(o.pubkeys); err != nil {
		return err
	}
	anchors := requirements.KeysFromFlag(o.pubkeys)
	if anchors.Err != nil {
		// A --pubkey that names no key is a usage error, not a refusal.
		return exitcode.With(exitcode.Usage, fmt.Errorf("verify: --pubkey: %w", anchors.Err))
	}
	rep := verifyReport{Version: 1, File: file, TrustedKeys: anchors.KeyIDs(), PayloadType: requirements.PayloadType}
	err := anchors.Err
	var pol *requirements.Policy
	if err == nil {
		var data []byte
		if data, err = readInput(file, "requirements"); err != nil {
			return err
		}
		if len(data) > requirements.MaxSize {
			err = fmt.Errorf("read %s: %w: larger than %d bytes", file, requirements.ErrTooLarge, requirements.MaxSize)
		}
		if err == nil {
			err = notAnEnvelope(file, data)
		}
		if err == nil {
			var signers []string
			pol, signers, rep.PayloadSHA256, err = requirements.Verify(data, file, anchors, now)
			rep.Signers = signers
		}
	}
	if pol != nil {
		rep.Serial, rep.IssuedAt, rep.ExpiresAt, rep.OnExpiry, rep.Threshold = pol.Serial, pol.IssuedAt, pol.ExpiresAt, orDefault(pol.OnExpiry, "block"), pol.EffectiveThreshold()
		rep.Payload, _ = json.Marshal(pol)
	}
	if err != nil && pol != nil {
		// Expired with on_expiry "warn": agents still apply it.
		rep.Warning = err.Error()
		err = nil
	}
	rep.OK = err == nil
	if err != nil {
		rep.Error = err.Error()
	}
	if o.json {
		b, _ := json.MarshalIndent(rep, "", "  ")
		fmt.Fprintf(app.Stdout, "%s\n", b)
		if err != nil {
			return &exitcode.Err{Code: exitcode.Refused, Err: err, Silent: true}
		}
		return nil
	}
	if err != nil {
		return exitcode.With(exitcode.Refused, fmt.Errorf("verify %s: REFUSED: %w", file, err))
	}
	w := app.Stdout
	fmt.Fprintf(w, "OK %s\n", file)
	fmt.Fprintf(w, "  payload type    %s\n", rep.PayloadType)
	fmt.Fprintf(w, "  serial          %d\n", rep.Serial)
	fmt.Fprintf(w, "  issued at       %s\n", rep.IssuedAt)
	fmt.Fprintf(w, "  expires at      %s (on expiry: %s)\n", rep.ExpiresAt, rep.OnExpiry)
	fmt.Fprintf(w, "  threshold       %d of %d trusted signature(s) verified\n", len(rep.Signers), rep.Threshold)
	for _, s := range rep.Signers {
		fmt.Fprintf(w, "  signed by       %s\n", s)
	}
	fmt.Fprintf(w, "  payload sha256  %s\n", rep.PayloadSHA256)
	if rep.Warning != "" {
		fmt.Fprintf(w, "  WARNING         %s\n", rep.Warning)
	}
	pretty, _ := json.MarshalIndent(pol, "  ", "  ")
	fmt.Fprintf(w, "  payload:\n  %s\n", strings.TrimSpace(string(pretty)))
	return nil
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// notAnEnvelope explains a file that is not a signed envelope at all (a
// policy not yet signed, a config file), which every oceancode refuses as
// unsigned or malformed.
func notAnEnvelope(file string, data []byte) error {
	switch content, _ := contentKind(data); content {
	case contentPayload:
		return fmt.Errorf("%s: %w: the file is a requirements policy that is not signed, and every oceancode refuses it: sign it with 'oceanadmin sign -k KEY %s -o requirements.json' and deploy that", file, signing.ErrUnsigned, file)
	case contentConfig:
		return fmt.Errorf("%s: %w: the file is a config file, not a signed requirements envelope: check it with 'oceanadmin validate %s'", file, signing.ErrMalformed, file)
	}
	return nil
}
