package engineapi

import (
	"encoding/json"
	"testing"
)

// TestCallTargetEdges: what CallTarget says where the tools' own Target
// (held to this table by agent/tools' TestCallTargetMatchesBuiltins) is not
// asked: tools that are not built in, inputs that are not JSON objects,
// and a patch that names no file.
func TestCallTargetEdges(t *testing.T) {
	for _, c := range []struct {
		name, input, want string
	}{
		{"mcp__srv__echo", `{"path":"x"}`, ""},
		{"bash", `not json`, ""},
		{"bash", `{"command":7}`, ""},
		{"bash", `{}`, ""},
		{"grep", `{"pattern":"x","path":""}`, "."},
		{"todo", `{"todos":[]}`, ""},
		{"apply_patch", `{"patch":"*** Begin Patch\n*** End Patch"}`, ""},
		{"apply_patch", `{"patch":"*** Begin Patch\n*** Update File:  a b.go \n@@\n-a\n+b\n*** End Patch"}`, "a b.go"},
	} {
		if got := CallTarget(c.name, json.RawMessage(c.input)); got != c.want {
			t.Errorf("CallTarget(%s, %s) = %q, want %q", c.name, c.input, got, c.want)
		}
	}
}
