package requirements

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oceancode/oceancode/signing"
)

func TestResolveAnchors(t *testing.T) {
	k1, k2, k3 := testKey(t), testKey(t), testKey(t)
	line := func(ks ...signing.PrivateKey) string {
		var s []string
		for _, k := range ks {
			s = append(s, k.Public().String())
		}
		return strings.Join(s, "\n") + "\n"
	}
	env := func(v string) func(string) string {
		return func(name string) string {
			if name == EnvPubkey {
				return v
			}
			return ""
		}
	}
	keyFile := filepath.Join(t.TempDir(), "keys.pub")
	os.WriteFile(keyFile, []byte(line(k2, k3)), 0o644)

	tests := []struct {
		name     string
		anchor   string // "" = no anchor file
		mode     os.FileMode
		uid      int
		env      string
		want     []string
		enforced bool
		errIs    error
		note     string
	}{
		{name: "nothing", want: nil},
		{name: "env one key", env: k1.Public().String(), want: ids(k1)},
		{name: "env list", env: k1.Public().String() + " , " + k2.Public().String(), want: ids(k1, k2)},
		{name: "env @file", env: "@" + keyFile, want: ids(k2, k3)},
		{name: "env garbage fails closed", env: "ed25519:nope", want: nil, errIs: signing.ErrInvalidKey},
		{name: "admin anchor", anchor: line(k1, k2), mode: 0o644, want: ids(k1, k2), enforced: true},
		{name: "admin anchor narrowed by env", anchor: line(k1, k2), mode: 0o644, env: k2.Public().String(), want: ids(k2), enforced: true},
		{name: "env cannot widen the admin anchor", anchor: line(k1), mode: 0o644, env: k1.Public().String() + "," + k3.Public().String(), want: ids(k1), enforced: true, note: "not in the admin anchor"},
		{name: "env outside the anchor is ignored", anchor: line(k1), mode: 0o644, env: k3.Public().String(), want: ids(k1), enforced: true, note: "names no key"},
		{name: "anchor group-writable refused", anchor: line(k1), mode: 0o664, enforced: true, errIs: signing.ErrAnchor},
		{name: "anchor world-writable refused", anchor: line(k1), mode: 0o646, enforced: true, errIs: signing.ErrAnchor},
		{name: "anchor wrong owner refused", anchor: line(k1), mode: 0o644, uid: 4242, enforced: true, errIs: signing.ErrAnchor},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			os.Chmod(dir, 0o755)
			if tt.anchor != "" {
				p := filepath.Join(dir, AnchorFile)
				if err := os.WriteFile(p, []byte(tt.anchor), 0o600); err != nil {
					t.Fatal(err)
				}
				os.Chmod(p, tt.mode)
				if tt.uid != 0 {
					if err := os.Chown(p, tt.uid, tt.uid); err != nil {
						t.Fatalf("chown (the test needs root): %v", err)
					}
				}
			}
			a := ResolveAnchors(AnchorOptions{ManagedDir: dir, Getenv: env(tt.env)})
			if a.Enforced != tt.enforced {
				t.Errorf("Enforced = %v, want %v", a.Enforced, tt.enforced)
			}
			if tt.errIs != nil {
				if !errors.Is(a.Err, tt.errIs) {
					t.Fatalf("Err = %v, want %v", a.Err, tt.errIs)
				}
				if len(a.Keys) != 0 {
					t.Errorf("keys returned with an error: %v", a.KeyIDs())
				}
				return
			}
			if a.Err != nil {
				t.Fatalf("Err = %v", a.Err)
			}
			if diff := cmp.Diff(tt.want, a.KeyIDs(), cmpNilEmpty); diff != "" {
				t.Errorf("keys (-want +got):\n%s", diff)
			}
			if tt.note != "" && !strings.Contains(strings.Join(a.Notes, "\n"), tt.note) {
				t.Errorf("notes %q do not mention %q", a.Notes, tt.note)
			}
		})
	}
}

var cmpNilEmpty = cmp.Comparer(func(a, b []string) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return cmp.Equal([]string(a), []string(b))
})

func ids(ks ...signing.PrivateKey) []string {
	a := anchorsOf(ks...)
	return a.KeyIDs()
}

func TestFingerprintIndependentOfOrder(t *testing.T) {
	k1, k2 := testKey(t), testKey(t)
	if anchorsOf(k1, k2).Fingerprint() != anchorsOf(k2, k1).Fingerprint() {
		t.Error("fingerprint depends on key order")
	}
	if anchorsOf(k1).Fingerprint() == anchorsOf(k1, k2).Fingerprint() {
		t.Error("fingerprint ignores a key")
	}
}
