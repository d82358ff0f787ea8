package agent

import (
	"fmt"
	"runtime"
	"strings"
	"time"
)

// Built-in agents.
const (
	Build   = "build"
	Plan    = "plan"
	Explore = "explore"
)

// basePrompt is sent on every request: every byte is paid for, so it says
// only what changes the model's behaviour.
const basePrompt = `You are OceanCode, a coding agent working in the user's project.
Work in small verified steps: read before you edit, run the tests you touch, and say what you changed.
Use the tools; never invent file contents or command output. Paths are relative to the project root unless absolute.
A tool call may be refused by the user's permission rules; the result says which rule decided. Do not retry a refused call unchanged: choose another approach or explain what you need.
Be concise.`

var agentPrompts = map[string]string{
	Build:   "You may read, edit and run commands to complete the task.",
	Plan:    "Plan only: read and investigate, then write the plan to a file under .oceancode/plans/ and summarise it. Do not change other files.",
	Explore: "Explore only: read and search to answer the question. You cannot edit files or run commands.",
}

// managedHeading introduces the organisation's instructions.
const managedHeading = "Organisation instructions (set by the administrator; they take precedence over the user's and the project's):\n"

// SystemPrompt builds the system prompt for an agent. custom is a custom
// agent's own prompt (replacing the built-in line for its role).
// instructions are the user's and the project's instruction files as
// agent/instructions renders them ("" = none): after the environment,
// before the organisation's. managed is
// the organisation's instructions from the signed requirements (""
// = none): they are appended last, for every agent and sub-agent, and
// nothing the agent's definition says replaces them.
func SystemPrompt(agent, custom, instructions, managed, projectRoot, cwd string, now time.Time) string {
	var b strings.Builder
	b.WriteString(basePrompt)
	b.WriteString("\n\n")
	role := agentPrompts[agent]
	if custom != "" {
		role = custom
	}
	if role == "" {
		role = agentPrompts[Build]
	}
	b.WriteString(role)
	fmt.Fprintf(&b, "\n\nProject root: %s\nWorking directory: %s\nPlatform: %s/%s\nDate: %s\n",
		projectRoot, cwd, runtime.GOOS, runtime.GOARCH, now.Format("2006-01-02"))
	if instructions != "" {
		b.WriteString("\n")
		b.WriteString(instructions)
	}
	if managed != "" {
		b.WriteString("\n")
		b.WriteString(managedHeading)
		b.WriteString(managed)
		b.WriteString("\n")
	}
	return b.String()
}
