package requirements

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/oceancode/oceancode/signing"
)

var testNow = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func testKey(t testing.TB) signing.PrivateKey {
	t.Helper()
	k, err := signing.GenerateKey("test")
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// payload returns a valid signed payload with serial, overridable fields.
func payload(serial int64, extra map[string]any) []byte {
	p := map[string]any{
		"schema_version":             1,
		"serial":                     serial,
		"issued_at":                  "2026-11-01T00:00:00Z",
		"expires_at":                 "2027-02-01T00:00:00Z",
		"org":                        "acme",
		"disable_bypass_permissions": true,
		"pins":                       map[string]any{"sandbox.mode": "workspace-write"},
		"rules":                      map[string]any{"deny": []any{"Bash(curl:*)"}},
	}
	for k, v := range extra {
		if v == nil {
			delete(p, k)
		} else {
			p[k] = v
		}
	}
	b, _ := json.Marshal(p)
	return b
}

func envelope(t testing.TB, typ string, body []byte, keys ...signing.PrivateKey) []byte {
	t.Helper()
	env, err := signing.Sign(typ, body, keys...)
	if err != nil {
		t.Fatal(err)
	}
	b, err := env.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func anchorsOf(keys ...signing.PrivateKey) Anchors {
	a := Anchors{Source: "test"}
	for _, k := range keys {
		a.Keys = append(a.Keys, k.Public())
	}
	return a
}

func writeFile(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
