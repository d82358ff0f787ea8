package layers_test

import (
	"testing"

	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/layers/layerstest"
	"github.com/oceancode/oceancode/provenance"
)

// TestProjectBoundsOnlyLower: a project may lower a bound (sandbox limits,
// the turn limit, the advisor's deadline) but not raise it above the
// built-in default in an untrusted workspace: a raised bound is ignored
// and named, one at or below the default applies.
func TestProjectBoundsOnlyLower(t *testing.T) {
	t.Parallel()
	cases := []struct {
		key, json string
		loosens   bool
	}{
		{"sandbox.limits.processes", `{"sandbox": {"limits": {"processes": 1000000}}}`, true},
		{"sandbox.limits.processes", `{"sandbox": {"limits": {"processes": 1024}}}`, false},
		{"sandbox.limits.address_space_mb", `{"sandbox": {"limits": {"address_space_mb": 1048576}}}`, true},
		{"sandbox.limits.address_space_mb", `{"sandbox": {"limits": {"address_space_mb": 512}}}`, false},
		{"sandbox.limits.file_size_mb", `{"sandbox": {"limits": {"file_size_mb": 8193}}}`, true},
		{"sandbox.limits.open_files", `{"sandbox": {"limits": {"open_files": 65536}}}`, true},
		{"sandbox.limits.open_files", `{"sandbox": {"limits": {"open_files": 64}}}`, false},
		{"limits.max_turns", `{"limits": {"max_turns": 100000}}`, true},
		{"limits.max_turns", `{"limits": {"max_turns": 10}}`, false},
		{"limits.timeout_s", `{"limits": {"timeout_s": 999999}}`, false},
		{"jev.deadline_ms", `{"jev": {"deadline_ms": 60000}}`, true},
		{"jev.deadline_ms", `{"jev": {"deadline_ms": 200}}`, false},
	}
	for _, c := range cases {
		t.Run(c.json, func(t *testing.T) {
			m := layerstest.New(t)
			m.ProjectConfig(c.json)
			r := m.Resolve()
			if err := r.Err(); err != nil {
				t.Fatal(err)
			}
			applied := r.Entries[c.key] != nil && r.Entries[c.key].Origin.Layer == provenance.Project
			named := false
			for _, k := range r.Workspace.Ignored {
				named = named || k.Key == c.key
			}
			if c.loosens == applied || c.loosens != named {
				t.Fatalf("%s: applied %v, named as ignored %v; want loosening=%v (workspace %+v)", c.key, applied, named, c.loosens, r.Workspace)
			}
			if c.loosens {
				m.TrustProject()
				if r := m.Resolve(); r.Entries[c.key] == nil || r.Entries[c.key].Origin.Layer != provenance.Project {
					t.Fatalf("%s: not applied once trusted", c.key)
				}
			}
		})
	}
	if len(layers.BoundDefaults) != 6 {
		t.Fatalf("BoundDefaults has %d entries; add a case above for a new one", len(layers.BoundDefaults))
	}
}
