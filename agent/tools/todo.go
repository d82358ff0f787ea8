package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/oceancode/oceancode/agent/gate"
	"github.com/oceancode/oceancode/agent/provider"
)

// TodoList is the session's todo list, kept by the todo tool.
type TodoList struct {
	mu    sync.Mutex
	items []Todo
}

// Todo is one item.
type Todo struct {
	Text   string `json:"text"`
	Status string `json:"status"` // pending, in_progress, done
}

// Set replaces the list.
func (l *TodoList) Set(items []Todo) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.items = append([]Todo(nil), items...)
}

// Items returns a copy of the list.
func (l *TodoList) Items() []Todo {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Todo(nil), l.items...)
}

// TodoTool replaces the session's todo list and shows it.
type TodoTool struct{}

type todoInput struct {
	Todos []Todo `json:"todos"`
}

var todoDef = provider.ToolDef{
	Name:        "todo",
	Description: "Replace your todo list for multi-step work; send every item each time.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"todos":{"type":"array","items":{"type":"object","properties":{"text":{"type":"string"},"status":{"enum":["pending","in_progress","done"]}},"required":["text","status"],"additionalProperties":false}}},"required":["todos"],"additionalProperties":false}`),
}

// Def implements Tool.
func (TodoTool) Def() provider.ToolDef { return todoDef }

// Kind implements Tool: nothing a guard reads.
func (TodoTool) Kind() gate.Kind { return gate.KindNone }

func parseTodo(input json.RawMessage) ([]Todo, error) {
	var in todoInput
	if err := decode("todo", input, &in, "todos"); err != nil {
		return nil, err
	}
	for i, t := range in.Todos {
		if strings.TrimSpace(t.Text) == "" {
			return nil, fmt.Errorf("todo: item %d has no text", i+1)
		}
		switch t.Status {
		case "pending", "in_progress", "done":
		default:
			return nil, fmt.Errorf("todo: item %d: status must be pending, in_progress or done, not %q", i+1, t.Status)
		}
	}
	return in.Todos, nil
}

// Target implements Tool.
func (TodoTool) Target(input json.RawMessage) (Target, error) {
	if _, err := parseTodo(input); err != nil {
		return Target{}, err
	}
	return Target{Tool: "todo"}, nil
}

// Run implements Tool.
func (TodoTool) Run(ctx context.Context, env *Env, input json.RawMessage) Result {
	items, err := parseTodo(input)
	if err != nil {
		return errorResult(err)
	}
	if env.Todos == nil {
		return errResult("todo: no todo list in this run")
	}
	env.Todos.Set(items)
	var sb strings.Builder
	done := 0
	for _, t := range items {
		mark := "[ ]"
		switch t.Status {
		case "in_progress":
			mark = "[~]"
		case "done":
			mark = "[x]"
			done++
		}
		sb.WriteString(mark + " " + t.Text + "\n")
	}
	if len(items) == 0 {
		return Result{Content: "todo list cleared", Meta: map[string]any{"todos": items}}
	}
	fmt.Fprintf(&sb, "(%d/%d done)", done, len(items))
	return Result{Content: sb.String(), Meta: map[string]any{"todos": items}}
}
