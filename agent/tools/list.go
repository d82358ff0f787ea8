package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/oceancode/oceancode/agent/gate"
	"github.com/oceancode/oceancode/agent/provider"
)

// ListTool shows a directory tree two levels deep.
//
// The path (the working directory by default) goes through the boundary;
// .git and node_modules are named but not entered; directories end in
// "/", symlinks in "@"; output is capped.
type ListTool struct{}

// List limits.
const (
	listDepth      = 2
	MaxListEntries = 500
	maxListPerDir  = 100
)

type listInput struct {
	Path string `json:"path,omitempty"`
}

var listDef = provider.ToolDef{
	Name:        "list",
	Description: "List a directory as a tree, 2 levels deep.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"default ."}},"additionalProperties":false}`),
}

// Def implements Tool.
func (ListTool) Def() provider.ToolDef { return listDef }

// Kind implements Tool: its input names a file path.
func (ListTool) Kind() gate.Kind { return gate.KindPath }

func parseList(input json.RawMessage) (listInput, error) {
	var in listInput
	if t := strings.TrimSpace(string(input)); t == "" || t == "null" {
		input = json.RawMessage(`{}`) // no arguments at all
	}
	if err := decode("list", input, &in); err != nil {
		return in, err
	}
	if in.Path == "" {
		in.Path = "."
	}
	return in, nil
}

// Target implements Tool: the directory listed (the gate resolves it).
func (ListTool) Target(input json.RawMessage) (Target, error) {
	in, err := parseList(input)
	if err != nil {
		return Target{}, err
	}
	return Target{Tool: "list", Input: in.Path}, nil
}

// Run implements Tool.
func (ListTool) Run(ctx context.Context, env *Env, input json.RawMessage) Result {
	in, err := parseList(input)
	if err != nil {
		return errorResult(err)
	}
	r, err := resolve("list", env, in.Path)
	if err != nil {
		return errorResult(err)
	}
	fi, err := os.Stat(r.Abs)
	if err != nil {
		return errResult("list: %s: %v", in.Path, err)
	}
	if !fi.IsDir() {
		return errResult("list: %s is a file (use read)", in.Path)
	}
	var sb strings.Builder
	sb.WriteString(env.display(r.Abs) + "/\n")
	entries := 0
	capped := false
	limit := env.outputLimit()
	var walk func(dir, indent string, depth int)
	walk = func(dir, indent string, depth int) {
		ents, err := os.ReadDir(dir)
		if err != nil {
			fmt.Fprintf(&sb, "%s(unreadable: %v)\n", indent, err)
			return
		}
		sort.SliceStable(ents, func(i, j int) bool {
			if ents[i].IsDir() != ents[j].IsDir() {
				return ents[i].IsDir()
			}
			return ents[i].Name() < ents[j].Name()
		})
		for i, e := range ents {
			if capped || ctx.Err() != nil {
				return
			}
			if i == maxListPerDir {
				fmt.Fprintf(&sb, "%s… %d more\n", indent, len(ents)-i)
				return
			}
			if entries == MaxListEntries || sb.Len() > limit-200 {
				capped = true
				return
			}
			entries++
			name := e.Name()
			switch {
			case e.Type()&os.ModeSymlink != 0:
				sb.WriteString(indent + name + "@\n")
			case e.IsDir():
				if skipDir(name) {
					sb.WriteString(indent + name + "/ (not listed)\n")
					continue
				}
				sb.WriteString(indent + name + "/\n")
				if depth < listDepth {
					walk(filepath.Join(dir, name), indent+"  ", depth+1)
				}
			default:
				sb.WriteString(indent + name + "\n")
			}
		}
	}
	walk(r.Abs, "  ", 1)
	out := strings.TrimSuffix(sb.String(), "\n")
	if capped {
		out += fmt.Sprintf("\n(stopped at %d entries; list a subdirectory)", entries)
	}
	return Result{Content: out, Meta: map[string]any{"entries": entries, "truncated": capped}}
}
