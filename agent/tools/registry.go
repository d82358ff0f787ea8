package tools

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/oceancode/oceancode/agent/provider"
)

// Builtins returns the built-in tools, in the order they are offered to the
// model (a stable order keeps the request prefix cacheable).
func Builtins() []Tool {
	return []Tool{
		BashTool{}, ReadTool{}, WriteTool{}, EditTool{}, ApplyPatchTool{},
		GrepTool{}, GlobTool{}, ListTool{}, WebFetchTool{},
		QuestionTool{}, TodoTool{}, TaskTool{},
	}
}

// Registry finds tools by name and lists their definitions.
type Registry struct {
	tools  []Tool
	byName map[string]int
	defs   []provider.ToolDef
}

// NewRegistry builds a registry of tools, in the given order. Two tools
// with one name, or a definition whose schema is not a JSON object, is an
// error.
func NewRegistry(tools ...Tool) (*Registry, error) {
	r := &Registry{byName: make(map[string]int, len(tools))}
	for _, t := range tools {
		d := t.Def()
		if d.Name == "" {
			return nil, fmt.Errorf("tools: a tool has no name")
		}
		if _, dup := r.byName[d.Name]; dup {
			return nil, fmt.Errorf("tools: two tools named %q", d.Name)
		}
		if !json.Valid(d.InputSchema) || !bytes.HasPrefix(bytes.TrimSpace(d.InputSchema), []byte("{")) {
			return nil, fmt.Errorf("tools: %s: input schema is not a JSON object", d.Name)
		}
		r.byName[d.Name] = len(r.tools)
		r.tools = append(r.tools, t)
		r.defs = append(r.defs, d)
	}
	return r, nil
}

// DefaultRegistry is a registry of the built-in tools.
func DefaultRegistry() *Registry {
	r, err := NewRegistry(Builtins()...)
	if err != nil {
		panic(err) // the built-ins are fixed; a test covers them
	}
	return r
}

// ByName returns the tool called name.
func (r *Registry) ByName(name string) (Tool, bool) {
	i, ok := r.byName[name]
	if !ok {
		return nil, false
	}
	return r.tools[i], true
}

// Names lists the tools' names in registry order.
func (r *Registry) Names() []string {
	out := make([]string, len(r.defs))
	for i, d := range r.defs {
		out[i] = d.Name
	}
	return out
}

// Defs returns the definitions of the named tools in registry order (not
// the order of names), so the request prefix stays stable whatever the
// caller's order; nil names means every tool. Names the registry does not
// hold are ignored: the caller filters what the permission rules offer.
func (r *Registry) Defs(names []string) []provider.ToolDef {
	if names == nil {
		return append([]provider.ToolDef(nil), r.defs...)
	}
	want := make(map[string]bool, len(names))
	for _, n := range names {
		want[n] = true
	}
	out := make([]provider.ToolDef, 0, len(names))
	for _, d := range r.defs {
		if want[d.Name] {
			out = append(out, d)
		}
	}
	return out
}
