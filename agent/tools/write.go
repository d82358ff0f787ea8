package tools

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/oceancode/oceancode/agent/gate"
	"github.com/oceancode/oceancode/agent/provider"
)

// WriteTool creates or overwrites a file.
//
// The path goes through the boundary; the tracker refuses to overwrite a
// file the session has not read (except a small file the session itself
// created) or one that changed on disk since it was read. The write is
// atomic (temp file + rename) and keeps the replaced file's mode; missing
// parent directories are created 0755.
type WriteTool struct{}

type writeInput struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

var writeDef = provider.ToolDef{
	Name:        "write",
	Description: "Create or overwrite a file with content. An existing file must be read first. Prefer edit for changes.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"],"additionalProperties":false}`),
}

// Def implements Tool.
func (WriteTool) Def() provider.ToolDef { return writeDef }

// Kind implements Tool: its input names a file path.
func (WriteTool) Kind() gate.Kind { return gate.KindPath }

func parseWrite(input json.RawMessage) (writeInput, error) {
	var in writeInput
	err := decode("write", input, &in, "path", "content")
	return in, err
}

// Target implements Tool: the path as given (the gate resolves it).
func (WriteTool) Target(input json.RawMessage) (Target, error) {
	in, err := parseWrite(input)
	if err != nil {
		return Target{}, err
	}
	return Target{Tool: "write", Input: in.Path}, nil
}

// Run implements Tool.
func (WriteTool) Run(ctx context.Context, env *Env, input json.RawMessage) Result {
	in, err := parseWrite(input)
	if err != nil {
		return errorResult(err)
	}
	tr, err := tracker("write", env)
	if err != nil {
		return errorResult(err)
	}
	r, err := resolve("write", env, in.Path)
	if err != nil {
		return errorResult(err)
	}
	shown := env.display(r.Abs)
	if err := tr.CheckWrite(r.Abs); err != nil {
		return errResult("write: %s: %v", shown, unwrapGuard(err))
	}
	data := []byte(in.Content)
	created, err := writeAtomic(r.Abs, data)
	if err != nil {
		return errResult("write: %s: %v", shown, err)
	}
	tr.NoteWrite(r.Abs, data)
	verb := "overwrote"
	if created {
		verb = "created"
	}
	return Result{Content: fmt.Sprintf("%s %s (%d bytes)", verb, shown, len(data)),
		Meta: map[string]any{"path": r.Abs, "created": created, "bytes": len(data)}}
}
