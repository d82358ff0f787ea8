package requirements

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/oceancode/oceancode/signing"
)

// Status is what happened to the requirements file.
type Status string

// The statuses of the failure matrix of docs/requirements-format.md (inspect
// --json).
const (
	Verified Status = "verified" // signed, trusted, valid, current: applied
	// (A missing file while a key is trusted is a refusal — Refused or
	// LastKnownGood with ErrMissing — so there is no "absent" status.)
	Refused       Status = "refused"         // not applied, and no last-known-good policy: sessions refused
	NotEnforced   Status = "not_enforced"    // no trusted key configured
	ExpiredWarn   Status = "expired_warn"    // expired with on_expiry "warn": applied, with a warning
	LastKnownGood Status = "last_known_good" // the file was refused; the last verified policy applies
)

// Sentinel causes a refusal wraps, for callers and tests that branch on them.
var (
	ErrExpired    = errors.New("expired")
	ErrMissing    = errors.New("file missing")
	ErrUnreadable = errors.New("file unreadable")
	ErrRollback   = errors.New("rollback")
	ErrTooLarge   = errors.New("file too large")
	ErrThreshold  = errors.New("threshold not met")
)

// Options are the inputs of Load.
type Options struct {
	Path string // the requirements file
	// Data, when not nil, is the envelope itself, read from an OS-native
	// managed source (macOS managed preferences, the Windows policy
	// registry); Path then only names it.
	Data    []byte
	Anchors Anchors   // trusted keys
	Now     time.Time // the clock (zero = time.Now)
	// StateDir holds the anti-rollback state and the last-known-good
	// envelope; "" disables both (oceanadmin simulate and verify).
	StateDir string
	// ReadOnly checks against the state but never writes it.
	ReadOnly bool
}

// Result is the outcome of Load.
type Result struct {
	Status Status
	// Reason says why, whenever Status is not Verified.
	Reason string
	// Err is the refusal's cause (for errors.Is), also when a last-known-good
	// policy stands in.
	Err  error
	Path string
	// Policy is the policy in effect (nil when none is).
	Policy *Policy
	// PayloadSHA256 is the hex SHA-256 of the payload in effect.
	PayloadSHA256 string
	// Signers are the trusted key IDs whose signatures verified.
	Signers []string
	// TrustedKeys are the IDs requirements were checked against, and
	// TrustSource where they came from.
	TrustedKeys []string
	TrustSource string
	// Warnings are non-fatal remarks (expiry soon, anchor notes, state).
	Warnings []string
	// LastKnownGood is this machine's anti-rollback record for the trusted
	// key set once Load is done: the highest serial verified here and its
	// payload hash, whose envelope stands in when a later file is refused
	// (nil: no state, or nothing verified yet).
	LastKnownGood *Mark
}

// Mark is an anti-rollback high-water mark.
type Mark struct {
	Serial        int64
	PayloadSHA256 string
}

// Blocking reports whether sessions must be refused: requirements are
// configured, and no verified policy is in effect.
func (r *Result) Blocking() bool { return r.Status == Refused }

// Load reads and verifies the requirements file per docs/requirements-format.md.
// It never panics on bad input and never returns a weaker policy than the
// one last verified on this machine.
func Load(o Options) *Result {
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	r := &Result{Path: o.Path, TrustedKeys: o.Anchors.KeyIDs(), TrustSource: o.Anchors.Source}
	r.Warnings = append(r.Warnings, o.Anchors.Notes...)
	if o.Anchors.Err != nil {
		r.refuse(fmt.Errorf("the trust anchor cannot be used, so no policy can be verified: %w", o.Anchors.Err))
		return r
	}
	if len(o.Anchors.Keys) == 0 {
		r.Status = NotEnforced
		r.Reason = "no trusted key is configured (no admin anchor " + AnchorFile + ", no $" + EnvPubkey + "): requirements are not enforced"
		if o.Path != "" {
			if _, err := os.Stat(o.Path); err == nil {
				r.Reason += "; the file " + o.Path + " exists but is ignored"
			}
		}
		return r
	}
	var st *state
	if o.StateDir != "" {
		var err error
		st, err = loadState(o.StateDir)
		if err != nil {
			r.Warnings = append(r.Warnings, err.Error()+"; anti-rollback starts again from this policy")
		}
	}
	fp := o.Anchors.Fingerprint()
	if st != nil {
		defer func() {
			if rec, ok := st.Keysets[fp]; ok {
				r.LastKnownGood = &Mark{Serial: rec.Serial, PayloadSHA256: rec.PayloadSHA256}
			}
		}()
	}

	data, err := o.Data, error(nil)
	if data == nil {
		data, err = readCapped(o.Path)
	} else if len(data) > MaxSize {
		err = fmt.Errorf("read requirements %s: %w: larger than %d bytes", o.Path, ErrTooLarge, MaxSize)
	}
	if errors.Is(err, fs.ErrNotExist) {
		// A failed MDM push or a deleted file never means "no policy".
		err = fmt.Errorf("requirements: %s: %w although trusted keys are configured (%s)", orDefault(o.Path, "(no path)"), ErrMissing, o.Anchors.Source)
	}
	if err != nil {
		r.fallback(err, o, st, fp, now)
		return r
	}
	cand, err := verify(data, o.Path, o.Anchors, now)
	if err == nil && st != nil {
		err = st.check(fp, cand)
	}
	if err != nil {
		r.fallback(err, o, st, fp, now)
		return r
	}
	r.apply(cand)
	if cand.expired {
		r.Status = ExpiredWarn
		r.Reason = fmt.Sprintf("policy serial %d expired at %s; applied because its on_expiry is \"warn\": ask your administrator for a renewed requirements.json", cand.policy.Serial, cand.policy.ExpiresAt)
	} else {
		r.Status = Verified
		if left := cand.policy.Expires().Sub(now); left < 14*24*time.Hour {
			r.Warnings = append(r.Warnings, fmt.Sprintf("policy serial %d expires in %s (%s)", cand.policy.Serial, left.Round(time.Hour), cand.policy.ExpiresAt))
		}
	}
	if st != nil && !o.ReadOnly {
		if err := st.record(o.StateDir, fp, cand); err != nil {
			r.Warnings = append(r.Warnings, err.Error())
		}
	}
	return r
}

type candidate struct {
	policy  *Policy
	data    []byte // the envelope bytes
	sha     string // payload SHA-256
	signers []string
	expired bool
}

// Verify checks an envelope against anchors at time now, with no state:
// signature, payload type, threshold, strict payload, the time rules of
// CheckTimes and expiry. It is what oceanadmin verify runs, and the same
// checks every agent runs before the anti-rollback state.
func Verify(data []byte, file string, a Anchors, now time.Time) (*Policy, []string, string, error) {
	c, err := verify(data, file, a, now)
	if err != nil {
		return nil, nil, "", err
	}
	if c.expired {
		return c.policy, c.signers, c.sha, fmt.Errorf("requirements: %s: %w: policy serial %d expired at %s (on_expiry warn: agents still apply it)", file, ErrExpired, c.policy.Serial, c.policy.ExpiresAt)
	}
	return c.policy, c.signers, c.sha, nil
}

func verify(data []byte, file string, a Anchors, now time.Time) (*candidate, error) {
	if a.Err != nil {
		return nil, a.Err
	}
	env, err := signing.ParseEnvelope(data)
	if err != nil {
		return nil, fmt.Errorf("requirements: %s: %w", file, err)
	}
	v, err := signing.Verify(env, PayloadType, a.Keys, 1)
	if err != nil {
		return nil, fmt.Errorf("requirements: %s: %w", file, err)
	}
	p, err := Parse(v.Payload, ParseOptions{File: file + " (payload)", Signed: true})
	if err != nil {
		return nil, err
	}
	if n := p.EffectiveThreshold(); len(v.Signers) < n {
		return nil, fmt.Errorf("requirements: %s: %w: the policy requires %d signatures from distinct trusted keys, %d verified (%s): add signatures with oceanadmin sign --append -k …",
			file, ErrThreshold, n, len(v.Signers), shortIDs(v.Signers))
	}
	if err := CheckTimes(p.IssuedAt, p.ExpiresAt, now); err != nil {
		return nil, fmt.Errorf("requirements: %s: %w", file, err)
	}
	sum := sha256.Sum256(v.Payload)
	c := &candidate{policy: p, data: data, sha: hex.EncodeToString(sum[:]), signers: v.Signers}
	if exp := p.Expires(); !now.Before(exp) {
		if p.OnExpiry != "warn" {
			return nil, fmt.Errorf("requirements: %s: %w: policy serial %d expired at %s and its on_expiry is %q: ask your administrator for a renewed requirements.json",
				file, ErrExpired, p.Serial, p.ExpiresAt, orDefault(p.OnExpiry, "block"))
		}
		c.expired = true
	}
	return c, nil
}

func (r *Result) apply(c *candidate) {
	r.Policy = c.policy
	r.PayloadSHA256 = c.sha
	r.Signers = c.signers
}

func (r *Result) refuse(err error) {
	r.Status = Refused
	r.Err = err
	r.Reason = err.Error()
}

// fallback handles a refused file: the last-known-good envelope, re-verified
// from its signed bytes, stands in; without one the result is Refused.
func (r *Result) fallback(cause error, o Options, st *state, fp string, now time.Time) {
	r.refuse(cause)
	if st == nil {
		return
	}
	rec, ok := st.Keysets[fp]
	if !ok {
		return
	}
	data, err := os.ReadFile(lkgPath(o.StateDir, fp))
	if err != nil {
		r.Warnings = append(r.Warnings, fmt.Sprintf("no usable last-known-good policy: %v", err))
		return
	}
	c, err := verify(data, lkgPath(o.StateDir, fp), o.Anchors, now)
	if err != nil {
		r.Warnings = append(r.Warnings, fmt.Sprintf("last-known-good policy refused too: %v", err))
		return
	}
	if c.policy.Serial != rec.Serial || c.sha != rec.PayloadSHA256 {
		r.Warnings = append(r.Warnings, "last-known-good policy does not match the recorded high-water mark: not used")
		return
	}
	r.apply(c)
	r.Status = LastKnownGood
	r.Reason = fmt.Sprintf("%v; applying the last-known-good policy serial %d verified earlier on this machine", cause, c.policy.Serial)
}

func readCapped(path string) ([]byte, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("read requirements %s: %w: %w", path, ErrUnreadable, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return nil, fmt.Errorf("read requirements %s: %w: %w", path, ErrUnreadable, err)
	}
	if len(data) > MaxSize {
		return nil, fmt.Errorf("read requirements %s: %w: larger than %d bytes", path, ErrTooLarge, MaxSize)
	}
	return data, nil
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func shortIDs(ids []string) string {
	short := make([]string, len(ids))
	for i, id := range ids {
		short[i] = signing.ShortID(id)
	}
	return strings.Join(short, ", ")
}
