// Package tools holds the built-in tools the model can call and the
// registry that offers them. A tool says what it would touch (Target) so the
// turn loop can put the call through the permission gate before it runs, and
// then runs it. File tools go through the filesystem guards; bash goes
// through the shell guard, the sandbox when it is on, and the composed child
// environment.
package tools

import (
	"context"
	"encoding/json"

	"github.com/oceancode/oceancode/agent/provider"
)

// Tool is one built-in tool.
type Tool interface {
	// Def is what the model is told: name, a short precise description
	// (every byte is paid for on every request) and the input schema.
	Def() provider.ToolDef
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
}

// Result is what a tool gives back to the model.
type Result struct {
	Content string
	IsError bool
	// Meta is structured detail for events and output formats (exit status,
	// truncation, files changed); it is not sent to the model.
	Meta map[string]any
}
