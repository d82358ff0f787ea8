package tools

import (
	"context"
	"net/http"
	"time"

	"github.com/oceancode/oceancode/agent/fsguard"
	"github.com/oceancode/oceancode/agent/sandbox"
)

// Env is what tools run with: the session's surroundings, as plain values.
type Env struct {
	// Boundary holds the project root and the @ref aliases; file tools
	// resolve every path through it and open the resolved path.
	Boundary fsguard.Boundary
	// Cwd is the session's working directory (absolute).
	Cwd string
	// Tracker enforces read-before-write and stale detection for the session.
	Tracker *fsguard.Tracker
	// Sandbox is the policy bash runs under (EffectiveMode "" = off). When it
	// is confined and cannot be set up, bash refuses the command.
	Sandbox sandbox.Policy
	// ChildEnv is the composed environment of child processes (secret-named
	// variables already stripped).
	ChildEnv []string
	// BashTimeout bounds one bash command (0 = 2 minutes).
	BashTimeout time.Duration
	// OutputLimit bounds what a tool returns to the model, in bytes (0 =
	// 30,000); longer output is cut with a note saying how much was left out.
	OutputLimit int
	// HTTPClient fetches for webfetch (nil = a client with a 30 s timeout).
	HTTPClient *http.Client
	// Ask puts a structured question to the user (question tool); nil in
	// headless runs, where the tool tells the model no one can answer.
	Ask func(ctx context.Context, q Question) (string, error)
	// Task runs a sub-agent with the built-in tools only and returns its
	// final answer (task tool); nil where sub-agents are not available.
	Task func(ctx context.Context, agent, prompt string) (string, error)
	// Todos is the session's todo list (todo tool).
	Todos *TodoList
}

// Question is what the question tool asks.
type Question struct {
	Text    string   `json:"question"`
	Options []string `json:"options,omitempty"`
}
