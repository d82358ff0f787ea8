// Package tools holds the built-in tools the model can call (Builtins). A
// tool says what kind of thing its input names (Kind) and what it would
// touch (Target) so the turn loop can put the call through the permission
// gate before it runs, and then runs it. File tools go through the filesystem guards; bash goes
// through the shell guard, the sandbox when it is on, and the composed child
// environment.
//
// The loop runs the gate on the Target (TargetsOf, for a tool such as
// apply_patch that touches several paths: every one must be allowed), never
// on the raw input. A file tool's Target is the path as the model wrote it;
// the gate resolves it (symlinks, "..", @ref aliases) and judges where it
// lands, and Run resolves it again through Env.Boundary and opens exactly
// the resolved path. Run also enforces what holds whatever the rules say:
// .env files are never read, a write needs a fresh read of the file, and a
// bash command that cannot be confined when the sandbox is on is refused.
// Inputs are checked strictly against each tool's schema, in Target and
// in Run. docs/tools.md describes every tool, its limits and its guards.
package tools

import (
	"context"
	"encoding/json"

	"github.com/oceancode/oceancode/agent/gate"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/provider"
)

// Tool is one built-in tool.
type Tool interface {
	// Def is what the model is told: name, a short precise description
	// (every byte is paid for on every request) and the input schema.
	Def() provider.ToolDef
	// Kind says what a Target's Input names (a file path, a command, a
	// URL, nothing a guard reads), so the gate runs the guard for it.
	Kind() gate.Kind
	// Target parses the input and says what the call touches, for the
	// permission gate: the tool's permission key ("bash", "read", "edit", …)
	// and the input the rules match (the command, the path). An input that
	// does not parse is an error the model is told about.
	Target(input json.RawMessage) (Target, error)
	// Run executes an allowed call.
	Run(ctx context.Context, env *Env, input json.RawMessage) Result
}

// Target is what a call touches.
type Target struct {
	Tool  string // the permission key's tool name: bash, read, write, edit, apply_patch, grep, glob, list, webfetch, …
	Input string // the command, path, URL, … the rules match
	// Cwd is the working directory the call names ("" = the session's).
	Cwd string
	// MCPOrigin is the MCP server's origin (Tool "mcp"): it decides a call
	// no mcp rule decides.
	MCPOrigin permission.MCPOrigin
	// MCPIdentity is a digest of the server's definition and executable: an
	// "always" answer is bound to it.
	MCPIdentity string
	// Kind, if set, is what this Target's Input names when it differs from
	// the tool's Kind (the skill tool: its "skill" target names a skill,
	// its "read" target a file).
	Kind gate.Kind
}

// MCPTool is implemented by an MCP server's tool (agent/mcp): whether it is
// offered is the permission engine's OfferedMCP(server, tool), so a tool
// whose last rule is a "* deny" never reaches the model.
type MCPTool interface {
	MCPName() (server, tool string)
}

// Result is what a tool gives back to the model.
type Result struct {
	Content string
	IsError bool
	// Meta is structured detail for events and output formats (exit status,
	// truncation, files changed); it is not sent to the model.
	Meta map[string]any
}

// MultiTarget is implemented by a tool whose one call can touch several
// things (apply_patch: every file it adds, updates, deletes or moves). The
// turn loop must put each of them through the permission gate and run the
// call only when all are allowed; Target then returns the first of them.
type MultiTarget interface {
	Targets(input json.RawMessage) ([]Target, error)
}

// TargetsOf returns everything a call touches: Targets for a MultiTarget,
// else the one Target.
func TargetsOf(t Tool, input json.RawMessage) ([]Target, error) {
	if m, ok := t.(MultiTarget); ok {
		return m.Targets(input)
	}
	tg, err := t.Target(input)
	if err != nil {
		return nil, err
	}
	return []Target{tg}, nil
}
