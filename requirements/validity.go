package requirements

import (
	"errors"
	"fmt"
	"time"
)

// The time rules of a signed policy (docs/requirements-format.md#time). Every
// agent and oceanadmin verify apply MaxClockSkew and the order of the two
// times; oceanadmin sign also applies MaxValidity unless the administrator
// passes --allow-long-validity.
const (
	// MaxClockSkew is how far issued_at may lie after the verifier's clock:
	// more than any NTP-synced machine or a laptop just resumed from sleep
	// drifts, far less than a wrong date (a policy "issued" next month or
	// next year is refused). A machine that refuses a policy for this keeps
	// its last-known-good policy until its clock catches up.
	MaxClockSkew = time.Hour
	// MaxValidity is the longest expires_at − issued_at oceanadmin sign
	// writes without --allow-long-validity: 400 days, a yearly renewal with a
	// month to spare (the CA/Browser Forum caps TLS certificates near it).
	MaxValidity = 400 * 24 * time.Hour
)

// Sentinels of the time rules, for errors.Is.
var (
	ErrNotYetValid = errors.New("issued in the future")
	ErrBadValidity = errors.New("invalid validity period")
)

// CheckTimes applies the time rules every verifier applies to a signed
// policy's issued_at and expires_at at time now: both are RFC 3339, issued_at
// is at most MaxClockSkew after now, and expires_at is after issued_at.
// Expiry itself (expires_at before now) is not checked here: on_expiry
// decides what it means.
func CheckTimes(issuedAt, expiresAt string, now time.Time) error {
	issued, err := time.Parse(time.RFC3339, issuedAt)
	if err != nil {
		return fmt.Errorf("%w: issued_at %q is not an RFC 3339 time", ErrBadValidity, issuedAt)
	}
	expires, err := time.Parse(time.RFC3339, expiresAt)
	if err != nil {
		return fmt.Errorf("%w: expires_at %q is not an RFC 3339 time", ErrBadValidity, expiresAt)
	}
	if !expires.After(issued) {
		return fmt.Errorf("%w: expires_at %s is not after issued_at %s: re-sign the policy with oceanadmin sign", ErrBadValidity, expiresAt, issuedAt)
	}
	if issued.Sub(now) > MaxClockSkew {
		return fmt.Errorf("%w: issued_at %s is %s after this machine's clock (%s), more than the %s allowed for clock skew: check the clock here and on the signing machine, or re-sign without a future --issued-at",
			ErrNotYetValid, issuedAt, issued.Sub(now).Round(time.Second), now.UTC().Format(time.RFC3339), MaxClockSkew)
	}
	return nil
}

// CheckValidity is what oceanadmin sign checks before it signs a policy
// issued at issued and expiring at expires: the rules of CheckTimes (with
// now the signing machine's clock), and a validity of at most MaxValidity
// unless allowLong.
func CheckValidity(issued, expires, now time.Time, allowLong bool) error {
	if err := CheckTimes(issued.UTC().Format(time.RFC3339), expires.UTC().Format(time.RFC3339), now); err != nil {
		return err
	}
	if d := expires.Sub(issued); d > MaxValidity && !allowLong {
		return fmt.Errorf("%w: a validity of %s is more than the %d days allowed: sign with a shorter --expires, or pass --allow-long-validity if the policy really must outlive a yearly renewal",
			ErrBadValidity, days(d), int(MaxValidity/(24*time.Hour)))
	}
	return nil
}

func days(d time.Duration) string {
	if d%(24*time.Hour) == 0 {
		return fmt.Sprintf("%d days", int(d/(24*time.Hour)))
	}
	return fmt.Sprintf("%.1f days", d.Hours()/24)
}
