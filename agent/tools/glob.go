package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/oceancode/oceancode/agent/gate"
	"github.com/oceancode/oceancode/agent/provider"
)

// GlobTool finds files by name pattern.
//
// "**" matches any number of directories; every other segment is a
// path.Match pattern. It walks the path (the working directory by default)
// through the boundary, skipping .git, node_modules and symlinks, and lists
// matching files newest first, capped.
type GlobTool struct{}

// MaxGlobResults caps the files glob lists.
const MaxGlobResults = 100

type globInput struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path,omitempty"`
}

var globDef = provider.ToolDef{
	Name:        "glob",
	Description: "Find files by path pattern (**/*.go, src/*.ts), relative to path. Newest first.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"pattern":{"type":"string"},"path":{"type":"string","description":"dir, default ."}},"required":["pattern"],"additionalProperties":false}`),
}

// Def implements Tool.
func (GlobTool) Def() provider.ToolDef { return globDef }

// Kind implements Tool: its input names a file path.
func (GlobTool) Kind() gate.Kind { return gate.KindPath }

func parseGlob(input json.RawMessage) (globInput, globMatcher, error) {
	var in globInput
	if err := decode("glob", input, &in, "pattern"); err != nil {
		return in, globMatcher{}, err
	}
	if strings.HasPrefix(in.Pattern, "/") || strings.HasPrefix(in.Pattern, "../") || strings.Contains(in.Pattern, "/../") {
		return in, globMatcher{}, fmt.Errorf("glob: the pattern is relative to path; put the directory in path")
	}
	m, err := compileGlob(in.Pattern)
	if err != nil {
		return in, m, fmt.Errorf("glob: %v", err)
	}
	if in.Path == "" {
		in.Path = "."
	}
	return in, m, nil
}

// Target implements Tool: the directory searched (the gate resolves it).
func (GlobTool) Target(input json.RawMessage) (Target, error) {
	in, _, err := parseGlob(input)
	if err != nil {
		return Target{}, err
	}
	return Target{Tool: "glob", Input: in.Path}, nil
}

// Run implements Tool.
func (GlobTool) Run(ctx context.Context, env *Env, input json.RawMessage) Result {
	in, m, err := parseGlob(input)
	if err != nil {
		return errorResult(err)
	}
	r, err := resolve("glob", env, in.Path)
	if err != nil {
		return errorResult(err)
	}
	root := r.Abs
	type hit struct {
		path string
		mod  time.Time
	}
	var hits []hit
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil
		}
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if d.IsDir() {
			if p != root && skipDir(d.Name()) {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		if !m.match(filepath.ToSlash(rel)) {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		hits = append(hits, hit{p, info.ModTime()})
		return nil
	})
	if err != nil {
		return errResult("glob: %s: %v", in.Path, err)
	}
	if len(hits) == 0 {
		return Result{Content: "no files match", Meta: map[string]any{"count": 0}}
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if !hits[i].mod.Equal(hits[j].mod) {
			return hits[i].mod.After(hits[j].mod)
		}
		return hits[i].path < hits[j].path
	})
	total := len(hits)
	var sb strings.Builder
	limit := env.outputLimit()
	shownN := 0
	for _, h := range hits {
		line := env.display(h.path) + "\n"
		if shownN == MaxGlobResults || sb.Len()+len(line) > limit {
			break
		}
		sb.WriteString(line)
		shownN++
	}
	out := strings.TrimSuffix(sb.String(), "\n")
	if shownN < total {
		out += fmt.Sprintf("\n(%d of %d files shown, newest first; narrow the pattern)", shownN, total)
	}
	return Result{Content: out, Meta: map[string]any{"count": total, "truncated": shownN < total}}
}
