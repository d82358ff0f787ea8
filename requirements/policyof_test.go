package requirements

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// decoderPolicy is how Parse used to read an accepted payload, and what policyOf must give.
func decoderPolicy(data []byte) (*Policy, error) {
	var p Policy
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(&p); err != nil {
		return nil, err
	}
	return &p, nil
}

// checkPolicyOf requires that whatever Parse accepts, it reads as encoding/json would.
func checkPolicyOf(t *testing.T, data []byte) bool {
	t.Helper()
	for _, signed := range []bool{false, true} {
		p, err := Parse(data, ParseOptions{Signed: signed})
		if err != nil {
			continue
		}
		want, err := decoderPolicy(data)
		if err != nil {
			t.Fatalf("%s: Parse accepts what encoding/json refuses: %v", data, err)
		}
		if diff := cmp.Diff(want, p); diff != "" {
			t.Fatalf("%s: policy differs from encoding/json's (-want +got):\n%s", data, diff)
		}
		return true
	}
	return false
}

func TestPolicyOfMatchesDecoder(t *testing.T) {
	payloads := [][]byte{
		payload(1, nil),
		[]byte(`{"schema_version":1}`),
		[]byte(`{"schema_version":1,"pins":{},"rules":{},"mcp":{}}`),
		[]byte(`{"schema_version":1,"rules":{"deny":[],"ask":["Read(*.env)"]},"mcp":{"allowed_servers":[]}}`),
		payload(9007199254740991, map[string]any{
			"threshold": 16, "on_expiry": "warn", "min_sandbox_mode": "read-only", "org": "a \"q\" \u00e9 \u2028",
			"allowed_permission_modes": []any{"default", "plan"},
			"mcp": map[string]any{"allowed_servers": []any{
				map[string]any{"name": "gh", "command": "/usr/bin/gh-mcp", "sha256": strings.Repeat("ab", 32)},
				map[string]any{"name": "web", "url": "https://mcp.example.com/x"},
			}},
			"pins": map[string]any{
				"sandbox.mode": "read-only", "sandbox.deny": []any{".git", "secrets"}, "jev.deadline_ms": 900,
				"permission.bash": map[string]any{"*": "ask"}, "sandbox": map[string]any{"limits": map[string]any{"processes": 10}},
				"child_env.set": map[string]any{}, "mcp.servers": map[string]any{"x": map[string]any{"command": "/bin/x", "args": []any{}}},
			},
			"rules": map[string]any{"deny": []any{"Bash(curl:*)", "WebFetch"}, "ask": []any{}},
		}),
		payload(2, map[string]any{"pins": nil, "rules": nil, "org": nil}),
	}
	// And every payload of the fuzz corpus.
	files, _ := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzParse", "*"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		_, lit, ok := strings.Cut(string(b), "[]byte(")
		if !ok {
			continue
		}
		s, err := strconv.Unquote(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(lit), ")")))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		payloads = append(payloads, []byte(s))
	}
	accepted := 0
	for _, data := range payloads {
		if checkPolicyOf(t, data) {
			accepted++
		}
	}
	if accepted < 6 {
		t.Errorf("only %d of %d payloads accepted; the comparison proves little", accepted, len(payloads))
	}
	t.Logf("%d payloads, %d accepted", len(payloads), accepted)
}
