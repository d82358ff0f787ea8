package signing

import (
	"crypto/ed25519"
	"crypto/sha256"
	"errors"
	"strings"
	"testing"
)

// marshalFast is MarshalPrivateKey with the lowest work factor: most tests
// only need a valid scrypt setting, not a slow one;
// TestEncryptedDefaultWorkFactor covers the real one.
func marshalFast(k PrivateKey, passphrase []byte) ([]byte, error) {
	return marshalPrivateKey(k, passphrase, minScryptN)
}

// testKey is a deterministic key derived from name, so testdata (fuzz seeds)
// signed with it stay valid.
func testKey(name string) PrivateKey {
	seed := sha256.Sum256([]byte("oceancode signing test key " + name))
	return PrivateKey{Key: ed25519.NewKeyFromSeed(seed[:]), Comment: name}
}

const testType = "application/vnd.oceancode.requirements+json"

var testPayload = []byte(`{"allowed_permission_modes":["default","acceptEdits","plan"],"disable_bypass_permissions":true,"expires_at":"2027-02-27T12:00:00Z","issued_at":"2026-11-29T12:00:00Z","mcp":{"allowed_servers":[{"command":"/usr/local/bin/github-mcp","name":"github"}]},"on_expiry":"block","org":"acme","rules":{"deny":["Bash(curl:*)"]},"schema_version":1,"serial":7}`)

// marshalSigned signs testPayload with keys and marshals the envelope.
func marshalSigned(t testing.TB, keys ...PrivateKey) []byte {
	t.Helper()
	e, err := Sign(testType, testPayload, keys...)
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkErr checks err against a wanted sentinel (nil: no error wanted) and,
// if want is non-empty, a substring of the message. All messages must start
// with "signing: " (once) and never say "failed to".
func checkErr(t *testing.T, err, sentinel error, want string) {
	t.Helper()
	if sentinel == nil && want == "" {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	if err == nil {
		t.Fatalf("no error, want %v %q", sentinel, want)
	}
	if sentinel != nil && !errors.Is(err, sentinel) {
		t.Errorf("error %q does not wrap %v", err, sentinel)
	}
	if want != "" && !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not contain %q", err, want)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "signing: ") || strings.Count(msg, "signing: ") > 1 {
		t.Errorf("error %q does not start with \"signing: \" exactly once", msg)
	}
	if strings.Contains(msg, "failed to") {
		t.Errorf("error %q says \"failed to\"", msg)
	}
}
