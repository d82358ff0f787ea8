package tools

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oceancode/oceancode/agent/engineapi"
)

// TestCallTargetMatchesBuiltins holds engineapi's table of built-in tools
// (what a front end shows as a call's target without linking this package)
// to the tools themselves: the same names, and for valid inputs of each
// tool the target its Target method gives.
func TestCallTargetMatchesBuiltins(t *testing.T) {
	var names []string
	for _, tool := range Builtins() {
		names = append(names, tool.Def().Name)
	}
	slices.Sort(names)
	if diff := cmp.Diff(names, engineapi.BuiltinToolNames()); diff != "" {
		t.Errorf("engineapi's built-in tools differ from Builtins() (-tools +engineapi):\n%s", diff)
	}
	inputs := map[string][]string{
		"bash":  {`{"command":"git status"}`, `{"command":"ls -la","timeout_s":5}`},
		"read":  {`{"path":"src/main.go"}`, `{"path":"a.go","offset":3,"limit":10}`},
		"write": {`{"path":"new.txt","content":"x"}`},
		"edit":  {`{"path":"a.go","old_string":"a","new_string":"b"}`},
		"apply_patch": {
			`{"patch":"*** Begin Patch\n*** Add File: docs/new.md\n+hello\n*** End Patch\n"}`,
			`{"patch":"*** Begin Patch\n*** Delete File: old.txt\n*** Add File: b.go\n+x\n*** End Patch"}`,
			`{"patch":"*** Begin Patch\n*** Update File: a.go\n*** Move to: b.go\n@@\n-a\n+b\n*** End Patch"}`,
		},
		"grep":     {`{"pattern":"TODO"}`, `{"pattern":"x","path":"src","glob":"*.go"}`},
		"glob":     {`{"pattern":"*.go"}`, `{"pattern":"*.go","path":"agent"}`},
		"list":     {`{}`, `null`, ``, `{"path":"docs"}`},
		"webfetch": {`{"url":"https://example.com/docs"}`},
		"question": {`{"question":"Which one?"}`, `{"question":"Go on?","options":["yes","no"]}`},
		"todo":     {`{"todos":[{"text":"write the test","status":"pending"}]}`},
		"task":     {`{"prompt":"find the bug"}`, `{"prompt":"find the bug","agent":"explore"}`},
	}
	for _, tool := range Builtins() {
		name := tool.Def().Name
		if len(inputs[name]) == 0 {
			t.Errorf("%s: no sample input: add one here so engineapi's table is checked against it", name)
		}
		for _, in := range inputs[name] {
			want, err := tool.Target(json.RawMessage(in))
			if err != nil {
				t.Errorf("%s: sample %s is not valid: %v", name, in, err)
				continue
			}
			if got := engineapi.CallTarget(name, json.RawMessage(in)); got != want.Input {
				t.Errorf("engineapi.CallTarget(%s, %s) = %q, the tool's Target is %q", name, in, got, want.Input)
			}
		}
	}
}
