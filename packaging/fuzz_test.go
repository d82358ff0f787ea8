package packaging_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/oceancode/oceancode/packaging"
)

// fuzzImport: any input either fails with ErrImport or gives two JSON
// objects and a report sorted by key; it never panics.
func fuzzImport(f *testing.F, seedFile string, seeds []string, conv func([]byte) (*packaging.Imported, error)) {
	if data, err := os.ReadFile(filepath.Join("testdata", "import", seedFile)); err == nil {
		f.Add(data)
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := conv(data)
		if err != nil {
			return
		}
		for _, out := range [][]byte{res.Managed, res.Policy} {
			var m map[string]any
			if err := json.Unmarshal(out, &m); err != nil {
				t.Fatalf("output is not a JSON object: %v\n%s", err, out)
			}
		}
		if !slices.IsSortedFunc(res.Unmapped, func(a, b packaging.Unmapped) int {
			if a.Key < b.Key {
				return -1
			}
			if a.Key > b.Key {
				return 1
			}
			return 0
		}) {
			t.Fatalf("report not sorted: %v", res.Unmapped)
		}
	})
}

func FuzzImportClaude(f *testing.F) {
	fuzzImport(f, "claude/managed-settings.json", []string{
		`{"permissions": {"allow": ["Bash(", "mcp__", "mcp____x", "Read(//)", "(x)"]}}`,
		`{"allowedMcpServers": [null, 1, {"serverName": "a", "serverCommand": []}]}`,
		`{"sandbox": {"network": {"allowedDomains": "x"}}, "env": {"": "x", "A": 1}}`,
	}, packaging.ImportClaude)
}

func FuzzImportCodex(f *testing.F) {
	fuzzImport(f, "codex/requirements.toml", []string{
		"[rules]\nprefix_rules = [{ pattern = [], decision = \"forbidden\" }, { pattern = [[]], decision = \"prompt\" }]\n",
		"mcp_servers = 1\nallowed_sandbox_modes = \"read-only\"\n",
		"[permissions]\nfilesystem = 3\n",
	}, packaging.ImportCodex)
}
