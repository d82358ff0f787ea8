package sessionconfig

import (
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/agent/jev"
	"github.com/oceancode/oceancode/agent/mcp"
	"github.com/oceancode/oceancode/agent/sandbox"
	"github.com/oceancode/oceancode/layers"
)

// TestRegistryKeysClassified: every key the runtime reads says whether it
// tightens, loosens or is neutral when a project sets it (layers'
// classTable), so a key added to the registry cannot reach a session from
// an untrusted repository unclassified.
func TestRegistryKeysClassified(t *testing.T) {
	for _, k := range Registry() {
		if !layers.Classified(k.Segments()) {
			t.Errorf("registered key %s has no row in layers' classTable (layers/classify.go)", k.Path())
		}
	}
}

// TestMCPServerFieldsExact: the .mcp.json fields decoded are exactly
// mcp.Server's JSON names, so a renamed or added field is not dropped.
func TestMCPServerFieldsExact(t *testing.T) {
	var want []string
	st := reflect.TypeOf(mcp.Server{})
	for i := range st.NumField() {
		name, _, _ := strings.Cut(st.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			want = append(want, name)
		}
	}
	if !slices.Equal(mcpServerFields, want) {
		t.Fatalf("mcpServerFields = %v, mcp.Server's JSON fields are %v", mcpServerFields, want)
	}
}

// TestBoundDefaults: the defaults layers compares a project's bounds with
// are the runtime's, so a project cannot raise a bound by setting it to a
// value layers thinks is the default.
func TestBoundDefaults(t *testing.T) {
	d := sandbox.DefaultLimits
	want := map[string]int64{
		"sandbox.limits.processes":        int64(d.Processes),
		"sandbox.limits.address_space_mb": int64(d.AddressSpaceMB),
		"sandbox.limits.file_size_mb":     int64(d.FileSizeMB),
		"sandbox.limits.open_files":       int64(d.OpenFiles),
		"jev.deadline_ms":                 jev.DefaultDeadline.Milliseconds(),
		"limits.max_turns":                50, // agent.Config's MaxTurns default (agent/agent.go)
	}
	if !maps.Equal(layers.BoundDefaults, want) {
		t.Fatalf("layers.BoundDefaults = %v, the runtime's defaults are %v", layers.BoundDefaults, want)
	}
}
