package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gowebpki/jcs"
	"github.com/spf13/cobra"

	"github.com/oceancode/oceancode/internal/atomicfile"
	"github.com/oceancode/oceancode/internal/exitcode"
	"github.com/oceancode/oceancode/requirements"
	"github.com/oceancode/oceancode/signing"
)

type signOptions struct {
	keys           []string
	out            string
	expires        string
	serial         int64
	previous       string
	issuedAt       string
	appendSig      bool
	passphraseFile string
	allowLong      bool
}

func newSignCmd(app *App) *cobra.Command {
	var o signOptions
	cmd := &cobra.Command{
		Use:   "sign -k admin.key [-k second.key] policy.json -o requirements.json",
		Short: "Sign a requirements policy into a DSSE envelope",
		Long: `Validates policy.json against the requirements schema, fills in serial,
issued_at and expires_at, writes the payload in RFC 8785 canonical form (so one
policy always has one hash) and signs it with each -k key into a DSSE envelope.

The serial is raised above the previous one: the larger of the policy's own
serial and one more than the serial of the existing output file (or of
--previous FILE, the file last deployed). --serial N sets it explicitly.

--append adds the -k signatures to an existing envelope (the positional
argument) without changing its payload: the second person of a two-person
rule (threshold 2) signs this way.

The validity (--expires) is at most 400 days unless --allow-long-validity is
given, and --issued-at may not lie more than 1 hour in the future: agents
refuse a policy issued later than that.`,
		Example: `  oceanadmin sign -k admin.key policy.json -o requirements.json
  oceanadmin sign -k old.key -k new.key --expires 30d policy.json -o requirements.json
  oceanadmin sign --append -k second.key requirements.json`,
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			if o.appendSig {
				return runSignAppend(app, o, a[0])
			}
			return runSign(app, o, a[0])
		},
	}
	f := cmd.Flags()
	f.StringArrayVarP(&o.keys, "key", "k", nil, "private key file to sign with (repeat for several signatures)")
	f.StringVarP(&o.out, "output", "o", "", "envelope file to write (default: requirements.json; with --append: the input)")
	f.StringVar(&o.expires, "expires", "90d", "validity: a duration (90d, 36h) or an RFC 3339 time")
	f.Int64Var(&o.serial, "serial", 0, "set the serial explicitly instead of raising it")
	f.StringVar(&o.previous, "previous", "", "the envelope last deployed, whose serial the new one must exceed")
	f.StringVar(&o.issuedAt, "issued-at", "", "issue time (RFC 3339), for reproducible builds; default now")
	f.BoolVar(&o.appendSig, "append", false, "add signatures to an existing envelope")
	f.StringVar(&o.passphraseFile, "passphrase-file", "", "read key passphrases from this file")
	f.BoolVar(&o.allowLong, "allow-long-validity", false, "allow a validity above 400 days")
	_ = cmd.MarkFlagRequired("key")
	return cmd
}

func runSign(app *App, o signOptions, policyPath string) error {
	if o.out == "" {
		o.out = "requirements.json"
	}
	data, err := readInput(policyPath, "policy")
	if err != nil {
		return err
	}
	// The kind comes from the content: a signed envelope or a config file
	// given by mistake would fail the schema with a confusing message.
	switch content, _ := contentKind(data); {
	case content == contentEnvelope || looksLikeEnvelope(data):
		return exitcode.With(exitcode.Usage, fmt.Errorf("sign %s: the file is already a signed envelope; sign the policy (payload) file, or use --append to add a signature", policyPath))
	case content == contentConfig:
		return exitcode.With(exitcode.Invalid, fmt.Errorf("sign %s: the content is a config file, not a requirements policy (it has none of schema_version, pins, rules, …): managed config is deployed as managed.json unsigned; a policy starts with {\"schema_version\": 1, …} ('oceanadmin validate %s' checks it)", policyPath, policyPath))
	}
	pol, err := requirements.Parse(data, requirements.ParseOptions{File: policyPath})
	if err != nil {
		return err
	}
	if err := refuseText(policyPath, data); err != nil {
		return err
	}
	issued := time.Now().UTC().Truncate(time.Second)
	if o.issuedAt != "" {
		if issued, err = time.Parse(time.RFC3339, o.issuedAt); err != nil {
			return exitcode.With(exitcode.Usage, fmt.Errorf("parse --issued-at %q: want an RFC 3339 time such as 2026-11-29T12:00:00Z", o.issuedAt))
		}
		issued = issued.UTC()
	}
	expires, err := parseExpiry(o.expires, issued)
	if err != nil {
		return err
	}
	// The time rules every agent applies, and the validity cap.
	if err := requirements.CheckValidity(issued, expires, time.Now(), o.allowLong); err != nil {
		return exitcode.With(exitcode.Usage, fmt.Errorf("sign %s: %w", policyPath, err))
	}
	serial, err := nextSerial(o, pol.Serial)
	if err != nil {
		return err
	}
	if n := pol.EffectiveThreshold(); len(o.keys) < n {
		fmt.Fprintf(app.Stderr, "oceanadmin: warning: the policy requires %d signatures and %d key(s) were given; agents refuse it until more are added with 'oceanadmin sign --append -k …'\n", n, len(o.keys))
	}

	var payload map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&payload); err != nil {
		return fmt.Errorf("read policy %s: %w", policyPath, err)
	}
	delete(payload, "$schema")
	payload["serial"] = serial
	payload["issued_at"] = issued.Format(time.RFC3339)
	payload["expires_at"] = expires.Format(time.RFC3339)
	raw, err := json.Marshal(payload)
	if err != nil {
		return fmt.Errorf("encode payload: %w", err)
	}
	canon, err := jcs.Transform(raw)
	if err != nil {
		return fmt.Errorf("canonicalise payload: %w", err)
	}
	if _, err := requirements.Parse(canon, requirements.ParseOptions{File: policyPath, Signed: true}); err != nil {
		return err
	}
	keys, err := loadPrivateKeys(app, o)
	if err != nil {
		return err
	}
	env, err := signing.Sign(requirements.PayloadType, canon, keys...)
	if err != nil {
		return err
	}
	out, err := env.Marshal()
	if err != nil {
		return err
	}
	if err := atomicfile.Write(o.out, out, 0o644); err != nil {
		return err
	}
	sum := sha256.Sum256(canon)
	fmt.Fprintf(app.Stdout, "signed %s\n  serial          %d\n  issued at       %s\n  expires at      %s\n  payload sha256  %s\n",
		o.out, serial, issued.Format(time.RFC3339), expires.Format(time.RFC3339), hex.EncodeToString(sum[:]))
	for _, k := range keys {
		fmt.Fprintf(app.Stdout, "  signed by       %s\n", k.Public().ID())
	}
	return nil
}

func runSignAppend(app *App, o signOptions, envPath string) error {
	if o.out == "" {
		o.out = envPath
	}
	data, err := readInput(envPath, "envelope")
	if err != nil {
		return err
	}
	if err := notAnEnvelope(envPath, data); err != nil {
		return exitcode.With(exitcode.Usage, fmt.Errorf("sign --append: %w; --append adds signatures to an envelope 'oceanadmin sign' wrote", err))
	}
	env, err := parseEnvelopeOrUnsigned(data)
	if err != nil {
		return fmt.Errorf("read envelope %s: %w", envPath, err)
	}
	if env.PayloadType != requirements.PayloadType {
		return fmt.Errorf("read envelope %s: payload type %q is not %q: %w", envPath, env.PayloadType, requirements.PayloadType, signing.ErrPayloadType)
	}
	if _, err := requirements.Parse(env.Payload, requirements.ParseOptions{File: envPath + " (payload)", Signed: true}); err != nil {
		return err
	}
	if err := refuseText(envPath+" (payload)", env.Payload); err != nil {
		return err
	}
	keys, err := loadPrivateKeys(app, o)
	if err != nil {
		return err
	}
	for _, k := range keys {
		if err := env.AddSignature(k); err != nil {
			return err
		}
	}
	out, err := env.Marshal()
	if err != nil {
		return err
	}
	if err := atomicfile.Write(o.out, out, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(app.Stdout, "added %d signature(s) to %s; it now carries %d\n", len(keys), o.out, len(env.Signatures))
	return nil
}

func loadPrivateKeys(app *App, o signOptions) ([]signing.PrivateKey, error) {
	pw := passphraseSource{app: app, file: o.passphraseFile}
	var keys []signing.PrivateKey
	for _, path := range o.keys {
		data, err := readInput(path, "private key")
		if err != nil {
			return nil, err
		}
		if err := publicKeyGivenAsPrivate(path, data); err != nil {
			return nil, err
		}
		k, err := signing.ParsePrivateKey(data, func() ([]byte, error) {
			return pw.get("Passphrase for "+path+": ", false)
		})
		if err != nil {
			// A wrong passphrase or a file that is no key is the caller's
			// input, not an I/O failure.
			return nil, exitcode.With(exitcode.Usage, fmt.Errorf("read private key %s: %w", path, err))
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// nextSerial raises the serial above the previous envelope's, unless --serial
// sets it.
func nextSerial(o signOptions, policySerial int64) (int64, error) {
	prevPath := o.previous
	if prevPath == "" {
		prevPath = o.out
	}
	prev, err := envelopeSerial(prevPath, o.previous != "")
	if err != nil {
		return 0, err
	}
	if o.serial > 0 {
		if o.serial <= prev {
			return 0, exitcode.With(exitcode.Usage, fmt.Errorf("sign: --serial %d is not above serial %d of %s: every agent that saw %d would refuse it as a rollback", o.serial, prev, prevPath, prev))
		}
		return o.serial, nil
	}
	if policySerial > prev {
		return policySerial, nil
	}
	return prev + 1, nil
}

// envelopeSerial reads the serial of an existing envelope's payload, without
// verifying it (it only chooses the next number). A missing file is 0.
func envelopeSerial(path string, required bool) (int64, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) && !required {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read previous envelope %s: %w", path, err)
	}
	env, err := signing.ParseEnvelope(data)
	if err != nil {
		if required {
			return 0, fmt.Errorf("read previous envelope %s: %w", path, err)
		}
		return 0, exitcode.With(exitcode.Usage, fmt.Errorf("sign: the output %s exists and is not a requirements envelope (%v): choose another -o or remove it", path, err))
	}
	var p struct {
		Serial int64 `json:"serial"`
	}
	_ = json.Unmarshal(env.Payload, &p)
	return p.Serial, nil
}

// parseExpiry accepts "90d", Go durations ("36h") and RFC 3339 times.
func parseExpiry(s string, from time.Time) (time.Time, error) {
	bad := exitcode.With(exitcode.Usage, fmt.Errorf("parse --expires %q: want a duration such as 90d or 36h, or an RFC 3339 time", s))
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		if !t.After(from) {
			return time.Time{}, exitcode.With(exitcode.Usage, fmt.Errorf("parse --expires %q: the time is not after the issue time %s", s, from.Format(time.RFC3339)))
		}
		return t.UTC(), nil
	}
	var d time.Duration
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil {
			return time.Time{}, bad
		}
		d = time.Duration(n) * 24 * time.Hour
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return time.Time{}, bad
		}
	}
	if d <= 0 {
		return time.Time{}, bad
	}
	return from.Add(d), nil
}

func looksLikeEnvelope(data []byte) bool {
	var probe map[string]json.RawMessage
	if json.Unmarshal(data, &probe) != nil {
		return false
	}
	_, a := probe["payloadType"]
	_, b := probe["signatures"]
	return a && b
}
