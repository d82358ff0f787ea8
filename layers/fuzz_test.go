package layers_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/layers/layerstest"
	"github.com/oceancode/oceancode/provenance"
)

// FuzzResolveUserConfig feeds arbitrary bytes as the user's config file:
// loading never panics, a broken file never gets half-applied, and whatever
// is applied agrees between koanf and the provenance.
func FuzzResolveUserConfig(f *testing.F) {
	for _, s := range []string{
		`{}`,
		`{"permission_mode": "plan", "sandbox": {"mode": "read-only", "deny": [".git"]}}`,
		`{"permission": {"bash": {"*": "ask", "git status": "allow"}, "edit": "deny"}}`,
		`{"shell": {"allow": ["Bash(make:*)"], "safe_list_extra": ["make -n"]}}`,
		`{"mcp": {"servers": {"gh": {"command": "/usr/bin/gh-mcp", "args": ["--x"]}}}}`,
		`{"agents": {"rev": {"permission": {"edit": "deny"}, "permission_mode": "plan"}}}`,
		`{"modle": "x/y"}`,
		`{"sandbox": {}, "permission": {}, "mcp": {"servers": {}}}`,
		`{"sandbox": {"mode": 3}}`,
		`{"a": 1, "a": 2}`,
		`[`,
	} {
		f.Add([]byte(s))
	}
	m := layerstest.Full(f)
	userFile := filepath.Join(m.Home, ".config", "oceancode", "oceancode.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(userFile, data, 0o644); err != nil {
			t.Fatal(err)
		}
		r := m.Resolve()
		userUsed, userInvalid := false, false
		for _, l := range r.Layers {
			if l.Source == userFile {
				userUsed = l.Status == layers.StatusUsed
				userInvalid = l.Status == layers.StatusInvalid
			}
		}
		for _, k := range r.Entries.Keys() {
			e := r.Entries[k]
			if userInvalid && e.Origin.Source == userFile {
				t.Fatalf("%s applied from an invalid user file", k)
			}
			segs, err := provenance.SplitKey(k)
			if err != nil {
				t.Fatalf("entry key %q does not split: %v", k, err)
			}
			if got := r.K.Get(strings.Join(segs, layers.Delim)); !reflect.DeepEqual(got, e.Value) {
				t.Fatalf("%s: koanf %#v, provenance %#v", k, got, e.Value)
			}
		}
		if userInvalid && r.Err() == nil {
			t.Fatal("an invalid user file did not refuse sessions")
		}
		// Requirements always win: the pin holds whatever the user wrote.
		if e := r.Entries["sandbox.mode"]; e == nil || e.Value != "workspace-write" {
			t.Fatalf("pinned sandbox.mode = %+v (user file used: %v)", e, userUsed)
		}
	})
}

// BenchmarkResolve is the in-process load path of inspect: four layers and
// a 2-signature requirements file, every file validated. Allocations are
// reported (docs/benchmarks.md).
func BenchmarkResolve(b *testing.B) {
	m := layerstest.Full(b)
	m.Extra = append(m.Extra, layerstest.FixedKey("second admin"))
	m.Anchor()
	m.Requirements(8, map[string]any{"threshold": 2, "pins": map[string]any{"sandbox.mode": "workspace-write"}})
	if r := m.Resolve(); r.Err() != nil || len(r.Requirements.Signers) != 2 {
		b.Fatalf("fixture: %v, signers %v", r.Err(), r.Requirements.Signers)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.Resolve()
	}
}
