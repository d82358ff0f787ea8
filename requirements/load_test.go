package requirements

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/oceancode/oceancode/signing"
)

// TestFailureMatrix covers every row of docs/requirements-format.md's table.
func TestFailureMatrix(t *testing.T) {
	admin := testKey(t)
	other := testKey(t)
	good := envelope(t, PayloadType, payload(5, nil), admin)
	tests := []struct {
		name    string
		file    []byte // nil: no file
		dir     bool   // a directory where the file should be: unreadable
		anchors Anchors
		now     time.Time
		status  Status
		wantErr error
		reason  string
	}{
		{name: "verified", file: good, anchors: anchorsOf(admin), status: Verified},
		{name: "absent is refused", file: nil, anchors: anchorsOf(admin), status: Refused, wantErr: ErrMissing, reason: "file missing although trusted keys are configured (test)"},
		{name: "absent with an env key is refused", file: nil, anchors: Anchors{Keys: anchorsOf(admin).Keys, Source: "env:" + EnvPubkey}, status: Refused, wantErr: ErrMissing, reason: "env:" + EnvPubkey},
		{name: "issued in the future", file: envelope(t, PayloadType, payload(5, map[string]any{"issued_at": "2027-11-29T12:00:00Z", "expires_at": "2028-02-01T00:00:00Z"}), admin), anchors: anchorsOf(admin), status: Refused, wantErr: ErrNotYetValid, reason: "after this machine's clock"},
		{name: "issued just beyond the skew", file: envelope(t, PayloadType, payload(5, map[string]any{"issued_at": "2026-11-29T13:00:01Z"}), admin), anchors: anchorsOf(admin), status: Refused, wantErr: ErrNotYetValid},
		{name: "issued within the skew", file: envelope(t, PayloadType, payload(5, map[string]any{"issued_at": "2026-11-29T13:00:00Z"}), admin), anchors: anchorsOf(admin), status: Verified},
		{name: "expiry before issue", file: envelope(t, PayloadType, payload(5, map[string]any{"issued_at": "2026-11-01T00:00:00Z", "expires_at": "2026-10-01T00:00:00Z"}), admin), anchors: anchorsOf(admin), status: Refused, wantErr: ErrBadValidity, reason: "not after issued_at"},
		{name: "expiry equal to issue", file: envelope(t, PayloadType, payload(5, map[string]any{"expires_at": "2026-11-01T00:00:00Z"}), admin), anchors: anchorsOf(admin), status: Refused, wantErr: ErrBadValidity},
		{name: "inverted expiry with on_expiry warn", file: envelope(t, PayloadType, payload(5, map[string]any{"on_expiry": "warn", "expires_at": "2026-10-01T00:00:00Z"}), admin), anchors: anchorsOf(admin), status: Refused, wantErr: ErrBadValidity},
		{name: "unreadable (a directory) is refused", dir: true, anchors: anchorsOf(admin), status: Refused, reason: "read requirements"},
		{name: "unparsable time", file: envelope(t, PayloadType, payload(5, map[string]any{"issued_at": "yesterday"}), admin), anchors: anchorsOf(admin), status: Refused},
		{name: "no key configured", file: good, anchors: Anchors{}, status: NotEnforced, reason: "not enforced"},
		{name: "unsigned", file: []byte(`{"payloadType":"` + PayloadType + `","payload":"e30=","signatures":[]}`), anchors: anchorsOf(admin), status: Refused, wantErr: signing.ErrUnsigned},
		{name: "bad signature", file: []byte(strings.Replace(string(good), `"sig": "`, `"sig": "AA`, 1)), anchors: anchorsOf(admin), status: Refused},
		{name: "unknown key", file: envelope(t, PayloadType, payload(5, nil), other), anchors: anchorsOf(admin), status: Refused, wantErr: signing.ErrUnknownKey},
		{name: "wrong payloadType", file: envelope(t, "application/json", payload(5, nil), admin), anchors: anchorsOf(admin), status: Refused, wantErr: signing.ErrPayloadType},
		{name: "malformed", file: []byte(`{"payloadType":`), anchors: anchorsOf(admin), status: Refused, wantErr: signing.ErrMalformed},
		{name: "schema-invalid payload", file: envelope(t, PayloadType, payload(5, map[string]any{"rules": map[string]any{"allow": []any{"Bash"}}}), admin), anchors: anchorsOf(admin), status: Refused, wantErr: ErrInvalid},
		{name: "unknown payload key", file: envelope(t, PayloadType, payload(5, map[string]any{"surprise": true}), admin), anchors: anchorsOf(admin), status: Refused, wantErr: ErrInvalid},
		{name: "float in payload", file: envelope(t, PayloadType, []byte(strings.Replace(string(payload(5, nil)), `"serial":5`, `"serial":5.0`, 1)), admin), anchors: anchorsOf(admin), status: Refused, wantErr: ErrInvalid},
		{name: "big integer in payload", file: envelope(t, PayloadType, []byte(strings.Replace(string(payload(5, nil)), `"serial":5`, `"serial":9007199254740993`, 1)), admin), anchors: anchorsOf(admin), status: Refused, wantErr: ErrInvalid},
		{name: "duplicate key in payload", file: envelope(t, PayloadType, []byte(strings.Replace(string(payload(5, nil)), `"serial":5`, `"serial":5,"serial":6`, 1)), admin), anchors: anchorsOf(admin), status: Refused, wantErr: ErrInvalid},
		{name: "unsigned fields missing", file: envelope(t, PayloadType, payload(5, map[string]any{"serial": nil}), admin), anchors: anchorsOf(admin), status: Refused, wantErr: ErrInvalid},
		{name: "expired block", file: good, anchors: anchorsOf(admin), now: time.Date(2027, 3, 1, 0, 0, 0, 0, time.UTC), status: Refused, wantErr: ErrExpired},
		{name: "expired default is block", file: envelope(t, PayloadType, payload(5, map[string]any{"on_expiry": nil}), admin), anchors: anchorsOf(admin), now: time.Date(2027, 3, 1, 0, 0, 0, 0, time.UTC), status: Refused, wantErr: ErrExpired},
		{name: "expired warn", file: envelope(t, PayloadType, payload(5, map[string]any{"on_expiry": "warn"}), admin), anchors: anchorsOf(admin), now: time.Date(2027, 3, 1, 0, 0, 0, 0, time.UTC), status: ExpiredWarn, reason: "expired"},
		{name: "threshold not met", file: envelope(t, PayloadType, payload(5, map[string]any{"threshold": 2}), admin), anchors: anchorsOf(admin, other), status: Refused, wantErr: ErrThreshold},
		{name: "threshold met", file: envelope(t, PayloadType, payload(5, map[string]any{"threshold": 2}), admin, other), anchors: anchorsOf(admin, other), status: Verified},
		{name: "too large", file: append(good, make([]byte, MaxSize)...), anchors: anchorsOf(admin), status: Refused, wantErr: ErrTooLarge},
		{name: "anchor refused", file: good, anchors: Anchors{Keys: anchorsOf(admin).Keys, Err: signing.ErrAnchor}, status: Refused, wantErr: signing.ErrAnchor},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "requirements.json")
			switch {
			case tt.dir:
				if err := os.Mkdir(path, 0o755); err != nil {
					t.Fatal(err)
				}
			case tt.file != nil:
				writeFile(t, dir, "requirements.json", tt.file)
			}
			now := tt.now
			if now.IsZero() {
				now = testNow
			}
			r := Load(Options{Path: path, Anchors: tt.anchors, Now: now, StateDir: filepath.Join(dir, "state")})
			if r.Status != tt.status {
				t.Fatalf("status = %s (%s), want %s", r.Status, r.Reason, tt.status)
			}
			if tt.wantErr != nil && !errors.Is(r.Err, tt.wantErr) {
				t.Errorf("err = %v, want %v", r.Err, tt.wantErr)
			}
			if tt.reason != "" && !strings.Contains(r.Reason, tt.reason) {
				t.Errorf("reason = %q, want it to mention %q", r.Reason, tt.reason)
			}
			applied := r.Status == Verified || r.Status == ExpiredWarn
			if applied != (r.Policy != nil) {
				t.Errorf("policy applied = %v for status %s", r.Policy != nil, r.Status)
			}
			if r.Blocking() != (r.Status == Refused) {
				t.Errorf("Blocking() = %v for status %s", r.Blocking(), r.Status)
			}
		})
	}
}

func TestRollbackAndLastKnownGood(t *testing.T) {
	admin := testKey(t)
	a := anchorsOf(admin)
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	path := filepath.Join(dir, "requirements.json")
	load := func(file []byte) *Result {
		t.Helper()
		writeFile(t, dir, "requirements.json", file)
		return Load(Options{Path: path, Anchors: a, Now: testNow, StateDir: state})
	}

	v7 := envelope(t, PayloadType, payload(7, nil), admin)
	if r := load(v7); r.Status != Verified || r.Policy.Serial != 7 {
		t.Fatalf("serial 7: %s %s", r.Status, r.Reason)
	}
	// The state is written 0600 in the state dir.
	for _, f := range []string{StateFile, "requirements-lkg-" + a.Fingerprint()[:16] + ".json"} {
		fi, err := os.Stat(filepath.Join(state, f))
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("state file %s: %v %v", f, err, fi)
		}
	}
	// Loading the same file again is fine.
	if r := load(v7); r.Status != Verified {
		t.Fatalf("serial 7 again: %s %s", r.Status, r.Reason)
	}
	// An older serial is refused; the last-known-good serial 7 stands in.
	r := load(envelope(t, PayloadType, payload(6, nil), admin))
	if r.Status != LastKnownGood || !errors.Is(r.Err, ErrRollback) || r.Policy.Serial != 7 {
		t.Fatalf("serial 6: status %s err %v policy %+v", r.Status, r.Err, r.Policy)
	}
	// The same serial with different content is refused.
	r = load(envelope(t, PayloadType, payload(7, map[string]any{"org": "evil"}), admin))
	if r.Status != LastKnownGood || !errors.Is(r.Err, ErrRollback) || r.Policy.Org != "acme" {
		t.Fatalf("serial 7 equivocation: status %s err %v", r.Status, r.Err)
	}
	// A tampered file falls back too.
	r = load([]byte(strings.Replace(string(v7), `"payload": "e`, `"payload": "f`, 1)))
	if r.Status != LastKnownGood || r.Policy.Serial != 7 {
		t.Fatalf("tampered: status %s reason %s", r.Status, r.Reason)
	}
	// A deleted file (a failed MDM push) is a refusal too: serial 7 stays
	// in force, and so does it when the path cannot be read.
	os.Remove(path)
	r = Load(Options{Path: path, Anchors: a, Now: testNow, StateDir: state})
	if r.Status != LastKnownGood || !errors.Is(r.Err, ErrMissing) || r.Policy.Serial != 7 || r.Blocking() {
		t.Fatalf("deleted: status %s err %v", r.Status, r.Err)
	}
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	r = Load(Options{Path: path, Anchors: a, Now: testNow, StateDir: state})
	if r.Status != LastKnownGood || r.Policy.Serial != 7 || !strings.Contains(r.Reason, "read requirements") {
		t.Fatalf("unreadable: status %s reason %s", r.Status, r.Reason)
	}
	os.Remove(path)
	// A newer serial is accepted and raises the high-water mark.
	if r := load(envelope(t, PayloadType, payload(8, nil), admin)); r.Status != Verified {
		t.Fatalf("serial 8: %s %s", r.Status, r.Reason)
	}
	if r := load(v7); r.Status != LastKnownGood || r.Policy.Serial != 8 {
		t.Fatalf("serial 7 after 8: %s %v", r.Status, r.Policy)
	}
	// A tampered last-known-good file is not used: the result is refused.
	lkg := filepath.Join(state, "requirements-lkg-"+a.Fingerprint()[:16]+".json")
	data, _ := os.ReadFile(lkg)
	os.WriteFile(lkg, []byte(strings.Replace(string(data), `"payload": "e`, `"payload": "f`, 1)), 0o600)
	if r := load(v7); r.Status != Refused || !r.Blocking() {
		t.Fatalf("tampered last-known-good: %s %s", r.Status, r.Reason)
	}
	// Rotating to a new key set starts a new high-water mark (TUF's
	// fast-forward recovery): the new key's serial 1 is accepted.
	newKey := testKey(t)
	r = Load(Options{Path: writeFile(t, dir, "requirements.json", envelope(t, PayloadType, payload(1, nil), newKey)),
		Anchors: anchorsOf(newKey), Now: testNow, StateDir: state})
	if r.Status != Verified {
		t.Fatalf("new key set: %s %s", r.Status, r.Reason)
	}
}

func TestReadOnlyDoesNotWriteState(t *testing.T) {
	admin := testKey(t)
	dir := t.TempDir()
	path := writeFile(t, dir, "requirements.json", envelope(t, PayloadType, payload(3, nil), admin))
	r := Load(Options{Path: path, Anchors: anchorsOf(admin), Now: testNow, StateDir: filepath.Join(dir, "state"), ReadOnly: true})
	if r.Status != Verified {
		t.Fatal(r.Reason)
	}
	if _, err := os.Stat(filepath.Join(dir, "state")); err == nil {
		t.Error("read-only load wrote the state dir")
	}
}

func TestCorruptStateWarnsAndReseeds(t *testing.T) {
	admin := testKey(t)
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	os.MkdirAll(state, 0o700)
	os.WriteFile(filepath.Join(state, StateFile), []byte("{not json"), 0o600)
	path := writeFile(t, dir, "requirements.json", envelope(t, PayloadType, payload(3, nil), admin))
	r := Load(Options{Path: path, Anchors: anchorsOf(admin), Now: testNow, StateDir: state})
	if r.Status != Verified || len(r.Warnings) == 0 || !strings.Contains(strings.Join(r.Warnings, " "), "corrupt") {
		t.Fatalf("status %s warnings %q", r.Status, r.Warnings)
	}
}

func TestKeyRotation(t *testing.T) {
	old, nu := testKey(t), testKey(t)
	both := envelope(t, PayloadType, payload(4, nil), old, nu)
	for name, a := range map[string]Anchors{"old only": anchorsOf(old), "new only": anchorsOf(nu), "both": anchorsOf(old, nu)} {
		dir := t.TempDir()
		r := Load(Options{Path: writeFile(t, dir, "r.json", both), Anchors: a, Now: testNow})
		if r.Status != Verified {
			t.Errorf("%s: %s %s", name, r.Status, r.Reason)
		}
	}
}
