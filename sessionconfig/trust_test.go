package sessionconfig

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/agent/mcp"
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
