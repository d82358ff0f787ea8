package cli

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/oceancode/oceancode/requirements"
	"github.com/oceancode/oceancode/signing"
)

// TestValidateRefusesControlText: validate refuses a control character,
// line separator or bidirectional override in each free-text field of
// each kind, naming FILE:LINE:COL and the JSON Pointer; a line break in a
// multi-line field (instructions, an agent's prompt) stays valid.
func TestValidateRefusesControlText(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, tc := range []struct {
		file, content, want string
	}{
		{"policy.json", `{"schema_version": 1,` + "\n" + ` "org": "Acme\nInc"}`, `^policy.json:2:2: /org: line feed \(U\+000A\) at byte 4: `},
		{"policy.json", `{"schema_version": 1, "org": "Acme\u001b]52;c;eA==\u0007"}`, `^policy.json:1:23: /org: escape \(U\+001B\) at byte 4: `},
		{"policy.json", `{"schema_version": 1, "org": "Acme\u202eInc"}`, `/org: bidirectional override \(U\+202E\)`},
		{"policy.json", `{"schema_version": 1, "org": "Acme\u0085Inc"}`, `/org: C1 control character \(U\+0085\)`},
		{"policy.json", `{"schema_version": 1, "org": "Acme\u2028Inc"}`, `/org: line separator \(U\+2028\)`},
		{"policy.json", `{"schema_version": 1, "instructions": "Be careful.\u001b[2J"}`, `/instructions: escape \(U\+001B\)`},
		{"policy.json", `{"schema_version": 1, "scopes": [{"name": "ci", "match": {"groups": ["dev\u0000"]}, "require": {"disable_bypass_permissions": true}}]}`, `/scopes/0/match/groups/0: control character \(U\+0000\)`},
		{"managed.json", `{"agents": {"review": {"description": "Reviews\u2066 code", "prompt": "x"}}}`, `^managed.json:1:24: /agents/review/description: bidirectional override \(U\+2066\)`},
		{"oceancode.json", `{"agents": {"review": {"prompt": "x\u007fy"}}}`, `/agents/review/prompt: delete \(U\+007F\)`},
	} {
		if err := os.WriteFile(tc.file, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, _ := adminRun(nil, "validate", tc.file)
		if code != 3 || !regexp.MustCompile(`(?m)`+tc.want).MatchString(out) {
			t.Errorf("validate %s: exit %d, want 3 and %s:\n%s", tc.content, code, tc.want, out)
		}
	}
	for file, content := range map[string]string{
		"policy.json":  `{"schema_version": 1, "org": "Acme -- \"Inc\" ]]> $(id) {{x}} ` + "\u200f\u05e9" + `", "instructions": "Line 1.\n\tLine 2.\r\n"}`,
		"managed.json": `{"agents": {"review": {"description": "Reviews\ncode", "prompt": "You review.\n\n- one\n- two"}}}`,
	} {
		if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if code, out, errs := adminRun(nil, "validate", file); code != 0 {
			t.Errorf("validate %s: exit %d\n%s%s", content, code, out, errs)
		}
	}
}

// TestSignAndPackageRefuseControlText: sign writes no envelope for a policy
// whose org holds a line break; an envelope signed elsewhere with one (a
// newline then a registry key section and a PowerShell statement) is
// refused by package before any artefact, by validate, and by sign
// --append.
func TestSignAndPackageRefuseControlText(t *testing.T) {
	signedFixture(t)
	evilOrg := "Acme\r\n[HKEY_LOCAL_MACHINE\\SOFTWARE\\Evil]\r\nRemove-Item -Recurse C:\\ -- -->"
	policy, _ := json.Marshal(map[string]any{"schema_version": 1, "org": evilOrg})
	if err := os.WriteFile("evil-policy.json", policy, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := adminRun(nil, "sign", "-k", "admin.key", "evil-policy.json", "-o", "evil.json")
	if code != 3 || !strings.Contains(errs, "/org: carriage return (U+000D)") {
		t.Errorf("sign: exit %d, want 3 naming /org:\n%s", code, errs)
	}
	if _, err := os.Stat("evil.json"); err == nil {
		t.Error("sign wrote an envelope for a refused policy")
	}

	keyData, err := os.ReadFile("admin.key")
	if err != nil {
		t.Fatal(err)
	}
	key, err := signing.ParsePrivateKey(keyData, nil)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Second)
	payload, _ := json.Marshal(map[string]any{"schema_version": 1, "org": evilOrg, "serial": 9,
		"issued_at": now.Format(time.RFC3339), "expires_at": now.Add(24 * time.Hour).Format(time.RFC3339)})
	env, err := signing.Sign(requirements.PayloadType, payload, key)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := env.Marshal()
	if err := os.WriteFile("evil.json", data, 0o644); err != nil {
		t.Fatal(err)
	}
	mustAdmin(t, nil, "verify", "--pubkey", "trusted_keys", "evil.json") // it is validly signed
	for _, format := range []string{"reg", "mobileconfig", "admx", "deb", "rpm", "dir"} {
		code, out, errs := adminRun(nil, "package", "--format", format, "--requirements", "evil.json", "--trusted-keys", "trusted_keys", "-o", "dist-"+format)
		if code != 3 || out != "" || !strings.Contains(errs, "package --requirements evil.json: REFUSED:") || !strings.Contains(errs, "evil.json (payload):1:") || !strings.Contains(errs, "/org: carriage return") {
			t.Errorf("package --format %s: exit %d, want 3 naming /org\nstdout %q\n%s", format, code, out, errs)
		}
		if _, err := os.Stat("dist-" + format); err == nil {
			t.Errorf("package --format %s created its output directory for a refused policy", format)
		}
	}
	// A managed config with an escape sequence in an agent's description.
	if err := os.WriteFile("evil-managed.json", []byte(`{"agents": {"r": {"description": "x\u001b]0;owned\u0007"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := adminRun(nil, "package", "--format", "reg", "--requirements", "requirements.json", "--managed", "evil-managed.json", "--trusted-keys", "trusted_keys", "-o", "dist-managed")
	if code != 3 || out != "" || !strings.Contains(errs, "evil-managed.json:1:19: /agents/r/description: escape (U+001B)") {
		t.Errorf("package --managed: exit %d, want 3 naming the pointer\n%s", code, errs)
	}
	if _, err := os.Stat("dist-managed"); err == nil {
		t.Error("package created its output directory for a refused managed config")
	}
	if code, out, _ := adminRun(nil, "validate", "evil.json"); code != 3 || !strings.Contains(out, "evil.json (payload):1:") {
		t.Errorf("validate envelope: exit %d\n%s", code, out)
	}
	if code, _, errs := adminRun(nil, "sign", "--append", "-k", "admin.key", "evil.json"); code != 3 || !strings.Contains(errs, "/org: carriage return") {
		t.Errorf("sign --append: exit %d\n%s", code, errs)
	}
}
