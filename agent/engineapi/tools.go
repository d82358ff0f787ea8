package engineapi

import (
	"encoding/json"
	"sort"
	"strings"
)

// ToolTarget says where a built-in tool's input names what its call
// touches as the permission rules see it (the command, the path, the URL:
// agent/tools' Tool.Target), so that a front end shows a call's target
// without linking the tools. Field is the input's JSON key ("" when the
// tool names no target), Default the target when the key is absent or
// empty; Patch marks apply_patch, whose input is a patch and whose target
// is the first path the patch names.
type ToolTarget struct {
	Field   string
	Default string
	Patch   bool
}

// builtinTools are the built-in tools (agent/tools.Builtins: a test there
// holds the two together) and where each one's input names its target.
var builtinTools = map[string]ToolTarget{
	"bash":        {Field: "command"},
	"read":        {Field: "path"},
	"write":       {Field: "path"},
	"edit":        {Field: "path"},
	"apply_patch": {Field: "patch", Patch: true},
	"grep":        {Field: "path", Default: "."},
	"glob":        {Field: "path", Default: "."},
	"list":        {Field: "path", Default: "."},
	"webfetch":    {Field: "url"},
	"question":    {Field: "question"},
	"todo":        {},
	"task":        {Field: "agent"},
}

// BuiltinTool is where the built-in tool name's input names its target;
// false when no built-in tool has that name.
func BuiltinTool(name string) (ToolTarget, bool) {
	t, ok := builtinTools[name]
	return t, ok
}

// BuiltinToolNames are the built-in tools' names, sorted.
func BuiltinToolNames() []string {
	out := make([]string, 0, len(builtinTools))
	for n := range builtinTools {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// CallTarget is what a call of the built-in tool name touches, read from
// its input ("" when the tool is not built in, names no target, or the
// input does not say).
func CallTarget(name string, input json.RawMessage) string {
	t, ok := builtinTools[name]
	if !ok || t.Field == "" {
		return ""
	}
	var in map[string]json.RawMessage
	if s := strings.TrimSpace(string(input)); s != "" && s != "null" {
		if json.Unmarshal(input, &in) != nil {
			return ""
		}
	}
	var v string
	if raw, ok := in[t.Field]; ok && json.Unmarshal(raw, &v) != nil {
		return ""
	}
	if t.Patch {
		return firstPatchPath(v)
	}
	if v == "" {
		return t.Default
	}
	return v
}

// firstPatchPath is the first path a patch in the "*** Begin Patch" format
// names: its first Add, Update or Delete File header's.
func firstPatchPath(patch string) string {
	for l := range strings.SplitSeq(patch, "\n") {
		for _, p := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: "} {
			if rest, ok := strings.CutPrefix(l, p); ok {
				return strings.TrimSpace(rest)
			}
		}
	}
	return ""
}
