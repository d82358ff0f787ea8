package tools

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/oceancode/oceancode/agent/gate"
	"github.com/oceancode/oceancode/agent/provider"
)

// TaskTool runs a sub-agent through Env.Task; the child gets the built-in
// tools only (never MCP or skill tools) and its final answer is the result.
type TaskTool struct{}

type taskInput struct {
	Agent  string `json:"agent,omitempty"`
	Prompt string `json:"prompt"`
}

var taskDef = provider.ToolDef{
	Name:        "task",
	Description: "Hand a self-contained task to a sub-agent (agent: explore for read-only search, default general); returns its final answer.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"agent":{"type":"string"},"prompt":{"type":"string"}},"required":["prompt"],"additionalProperties":false}`),
}

// Def implements Tool.
func (TaskTool) Def() provider.ToolDef { return taskDef }

// Kind implements Tool: nothing a guard reads.
func (TaskTool) Kind() gate.Kind { return gate.KindNone }

func parseTask(input json.RawMessage) (taskInput, error) {
	var in taskInput
	if err := decode("task", input, &in, "prompt"); err != nil {
		return in, err
	}
	if in.Prompt == "" {
		return in, errors.New("task: prompt is empty")
	}
	return in, nil
}

// Target implements Tool: the sub-agent's name ("" = the default).
func (TaskTool) Target(input json.RawMessage) (Target, error) {
	in, err := parseTask(input)
	if err != nil {
		return Target{}, err
	}
	return Target{Tool: "task", Input: in.Agent}, nil
}

// Run implements Tool.
func (TaskTool) Run(ctx context.Context, env *Env, input json.RawMessage) Result {
	in, err := parseTask(input)
	if err != nil {
		return errorResult(err)
	}
	if env.Task == nil {
		return errResult("sub-agents are not available here")
	}
	out, err := env.Task(ctx, in.Agent, in.Prompt)
	if err != nil {
		return errResult("task: %v", err)
	}
	text, cut := truncate(out, env.outputLimit())
	meta := map[string]any{"agent": in.Agent}
	if cut > 0 {
		meta["truncated_bytes"] = cut
	}
	return Result{Content: text, Meta: meta}
}
