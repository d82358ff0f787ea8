package skills

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/oceancode/oceancode/agent/commands"
	"github.com/oceancode/oceancode/agent/fsguard"
	"github.com/oceancode/oceancode/agent/gate"
	"github.com/oceancode/oceancode/agent/provider"
	"github.com/oceancode/oceancode/agent/tools"
	"github.com/oceancode/oceancode/internal/frontmatter"
	"github.com/oceancode/oceancode/provenance"
)

// ToolName is the skill tool's name (and its permission key).
const ToolName = "skill"

// Tool is the skill tool of a set, or nil when the set has no skill (no
// tool, no bytes in any request).
func (s *Set) Tool() tools.Tool {
	if s == nil || len(s.List) == 0 {
		return nil
	}
	return &skillTool{set: s, def: s.def()}
}

type skillTool struct {
	set *Set
	def provider.ToolDef
}

type skillInput struct {
	Name string `json:"name"`
	File string `json:"file,omitempty"`
}

// def lists every skill by name and description: all the model sees of a
// skill until it loads one.
func (s *Set) def() provider.ToolDef {
	var b strings.Builder
	b.WriteString("Load a skill's instructions (its SKILL.md) when the task matches its description; then file loads another file of its folder. Skills:")
	for _, sk := range s.List {
		fmt.Fprintf(&b, "\n- %s: %s", sk.Name, sk.Description)
	}
	return provider.ToolDef{Name: ToolName, Description: b.String(),
		InputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"},"file":{"type":"string","description":"a file of the skill's folder, relative; default SKILL.md"}},"required":["name"],"additionalProperties":false}`)}
}

// Def implements tools.Tool.
func (t *skillTool) Def() provider.ToolDef { return t.def }

// Kind implements tools.Tool: the skill target names a skill, for the
// rules alone; a project skill's read target is a path (Target.Kind).
func (t *skillTool) Kind() gate.Kind { return gate.KindNone }

func (t *skillTool) parse(input json.RawMessage) (*Skill, string, error) {
	var in skillInput
	if err := tools.DecodeInput(ToolName, input, &in, "name"); err != nil {
		return nil, "", err
	}
	sk, ok := t.set.Lookup(in.Name)
	if !ok {
		return nil, "", fmt.Errorf("skill %q: no such skill (the tool's description lists them)", in.Name)
	}
	file := in.File
	if file == "" {
		file = "SKILL.md"
	}
	file = filepath.ToSlash(file)
	if !filepath.IsLocal(filepath.FromSlash(file)) || strings.Contains(file, "\\") {
		return nil, "", fmt.Errorf("skill %s: file %q: give a path relative to the skill's folder, inside it", sk.Name, in.File)
	}
	return sk, path.Clean(file), nil
}

// Target implements tools.Tool.
func (t *skillTool) Target(input json.RawMessage) (tools.Target, error) {
	tg, err := t.Targets(input)
	if err != nil {
		return tools.Target{}, err
	}
	return tg[0], nil
}

// Targets implements tools.MultiTarget: the skill key with NAME or
// NAME/FILE, and for a project skill a read of the file (the repository's
// file, judged as the read tool's would be). User and managed skills live
// in directories the read tool may not open (the config dir is a secrets
// directory): the skill key alone decides them.
func (t *skillTool) Targets(input json.RawMessage) ([]tools.Target, error) {
	sk, file, err := t.parse(input)
	if err != nil {
		return nil, err
	}
	pat := sk.Name
	if file != "SKILL.md" {
		pat += "/" + file
	}
	out := []tools.Target{{Tool: ToolName, Input: pat, Kind: gate.KindNone}}
	if sk.Layer == provenance.Project {
		out = append(out, tools.Target{Tool: "read", Input: filepath.Join(sk.Dir, filepath.FromSlash(file)), Kind: gate.KindPath})
	}
	return out, nil
}

// Run implements tools.Tool: the file, read inside the skill's folder.
func (t *skillTool) Run(_ context.Context, _ *tools.Env, input json.RawMessage) tools.Result {
	sk, file, err := t.parse(input)
	if err != nil {
		return tools.Result{Content: err.Error(), IsError: true}
	}
	text, err := sk.Load(file)
	if err != nil {
		return tools.Result{Content: err.Error(), IsError: true}
	}
	return tools.Result{Content: text, Meta: map[string]any{"skill": sk.Name, "file": file, "layer": sk.Layer.String()}}
}

// Load reads file (slash-separated, relative) of the skill's folder: for
// SKILL.md its body and a list of the folder's other files.
func (sk *Skill) Load(file string) (string, error) {
	if fsguard.IsSecretPath(file) {
		return "", fmt.Errorf("load skill %s file %s: a secrets file is never read", sk.Name, file)
	}
	root, err := commands.Source{Dir: sk.Dir, Within: sk.within}.Open()
	if err != nil {
		return "", fmt.Errorf("load skill %s: %w", sk.Name, err)
	}
	defer root.Close()
	data, err := frontmatter.ReadFile(root, file, MaxFileBytes)
	if err != nil {
		return "", fmt.Errorf("load skill %s file %s: %w", sk.Name, file, err)
	}
	if bytes.IndexByte(data[:min(len(data), 8192)], 0) >= 0 {
		return "", fmt.Errorf("load skill %s file %s: a binary file", sk.Name, file)
	}
	if file != "SKILL.md" {
		return string(data), nil
	}
	_, body, _, err := frontmatter.Split(data)
	if err != nil {
		return "", fmt.Errorf("load skill %s: %w", sk.Name, err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Skill %s (folder %s)\n\n%s", sk.Name, sk.Dir, strings.TrimSpace(body))
	if files := listFiles(root.FS()); len(files) > 0 {
		fmt.Fprintf(&b, "\n\nOther files of this skill (load one with file): %s", strings.Join(files, ", "))
	}
	return b.String(), nil
}

// listFiles lists the folder's regular files other than SKILL.md.
func listFiles(fsys fs.FS) []string {
	var out []string
	_ = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil || p == ".":
			return nil
		case d.IsDir() && strings.Count(p, "/") >= maxListingDepth-1:
			return fs.SkipDir
		case len(out) >= maxListedFiles:
			return fs.SkipAll
		case d.Type().IsRegular() && p != "SKILL.md" && !fsguard.IsSecretPath(p):
			out = append(out, p)
		}
		return nil
	})
	return out
}
