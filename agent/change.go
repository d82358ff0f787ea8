package agent

// readOnlyTools are the built-in tools that never change a file: no
// checkpoint is taken before them, so a turn that only reads costs nothing.
var readOnlyTools = map[string]bool{
	"read": true, "glob": true, "grep": true, "list": true, "webfetch": true, "question": true, "todo": true,
}

// MayChange reports whether a call of the tool named name may change files
// in the project: bash, the file-writing tools, the task tool's sub-agents
// and every MCP tool do.
func MayChange(name string) bool { return !readOnlyTools[name] }
