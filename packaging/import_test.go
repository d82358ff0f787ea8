package packaging_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/packaging"
	"github.com/oceancode/oceancode/requirements"
	"github.com/oceancode/oceancode/schema"
)

// TestImportGolden converts realistic Claude Code and Codex policies and
// compares the managed config, the policy and the report of unmapped keys
// with their golden files (-update rewrites them); both outputs must pass
// the schema checks every oceancode runs (cmd/oceanadmin/cli's TestImport
// runs the whole of oceanadmin validate on them).
func TestImportGolden(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		from, input string
		conv        func([]byte) (*packaging.Imported, error)
	}{
		{"claude", "managed-settings.json", packaging.ImportClaude},
		{"codex", "requirements.toml", packaging.ImportCodex},
	} {
		t.Run(c.from, func(t *testing.T) {
			dir := filepath.Join("testdata", "import", c.from)
			data, err := os.ReadFile(filepath.Join(dir, c.input))
			if err != nil {
				t.Fatal(err)
			}
			res, err := c.conv(data)
			if err != nil {
				t.Fatal(err)
			}
			var report strings.Builder
			for _, u := range res.Unmapped {
				report.WriteString(u.String() + "\n")
			}
			got := map[string][]byte{"managed.json": res.Managed, "policy.json": res.Policy, "report.txt": []byte(report.String())}
			for name, data := range got {
				p := filepath.Join(dir, "want."+name)
				if *update {
					if err := os.WriteFile(p, data, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(p)
				if err != nil {
					t.Fatalf("%v (go test ./packaging -update writes it)", err)
				}
				if string(want) != string(data) {
					t.Errorf("%s differs from %s:\n%s", name, p, data)
				}
			}
			viol, err := schema.Validate(schema.Managed, "managed.json", res.Managed)
			if err != nil || len(viol) > 0 {
				t.Errorf("managed.json does not validate: %v %v", err, viol)
			}
			if _, err := requirements.Parse(res.Policy, requirements.ParseOptions{File: "policy.json"}); err != nil {
				t.Errorf("policy.json does not validate: %v", err)
			}
		})
	}
}

// TestImportMapping pins single mappings and the fail-closed choices.
func TestImportMapping(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, from, in  string
		managed, policy []string // substrings of the outputs
		report          []string // substrings of the report
	}{
		{"allow goes to managed, deny and ask to the policy", "claude",
			`{"permissions": {"allow": ["Bash"], "deny": ["Edit(//etc/**)"], "ask": ["mcp__db__drop"]}}`,
			[]string{`"bash": {`, `"*": "allow"`}, []string{`"Edit(/etc/**)"`, `"mcp(db/drop)"`}, nil},
		{"an MCP allow-list that does not map allows no server", "claude",
			`{"allowedMcpServers": [{"serverName": "jira"}]}`,
			nil, []string{`"allowed_servers": []`}, []string{"not mapped: allowedMcpServers[0]"}},
		{"a bypass lock-out other than disable is reported", "claude",
			`{"permissions": {"disableBypassPermissionsMode": "enable"}}`,
			nil, nil, []string{"permissions.disableBypassPermissionsMode"}},
		{"an unknown mode is reported", "claude",
			`{"permissions": {"defaultMode": "auto"}}`,
			nil, nil, []string{`mode "auto" has no OceanCode equivalent`}},
		{"the weakest allowed sandbox mode is the floor", "codex",
			`allowed_sandbox_modes = ["read-only"]`,
			nil, []string{`"min_sandbox_mode": "read-only"`}, nil},
		{"never allowed locks nothing", "codex",
			`allowed_approval_policies = ["never", "on-request"]`,
			nil, nil, []string{"nothing to lock out"}},
		{"a relative MCP command allows no server", "codex",
			"[mcp_servers.x]\nidentity = { command = \"npx\" }\n",
			nil, []string{`"allowed_servers": []`}, []string{"not an absolute path"}},
		{"prefix rules expand their alternatives", "codex",
			"[rules]\nprefix_rules = [{ pattern = [\"terraform\", [\"apply\", \"destroy\"]], decision = \"forbidden\" }]\n",
			nil, []string{`"Bash(terraform apply:*)"`, `"Bash(terraform destroy:*)"`}, nil},
	}
	conv := map[string]func([]byte) (*packaging.Imported, error){"claude": packaging.ImportClaude, "codex": packaging.ImportCodex}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := conv[c.from]([]byte(c.in))
			if err != nil {
				t.Fatal(err)
			}
			var report strings.Builder
			for _, u := range res.Unmapped {
				report.WriteString(u.String() + "\n")
			}
			for _, w := range c.managed {
				if !strings.Contains(string(res.Managed), w) {
					t.Errorf("managed.json lacks %s:\n%s", w, res.Managed)
				}
			}
			for _, w := range c.policy {
				if !strings.Contains(string(res.Policy), w) {
					t.Errorf("policy.json lacks %s:\n%s", w, res.Policy)
				}
			}
			for _, w := range c.report {
				if !strings.Contains(report.String(), w) {
					t.Errorf("report lacks %q:\n%s", w, report.String())
				}
			}
			if _, err := requirements.Parse(res.Policy, requirements.ParseOptions{File: "policy.json"}); err != nil {
				t.Errorf("policy.json does not validate: %v", err)
			}
		})
	}
	for from, bad := range map[string]string{"claude": "[1, 2]", "codex": "a = [1,"} {
		if _, err := conv[from]([]byte(bad)); !errors.Is(err, packaging.ErrImport) {
			t.Errorf("%s: %q: err %v, want ErrImport", from, bad, err)
		}
	}
}
