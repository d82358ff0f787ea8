// Package skills discovers skills — folders holding a SKILL.md in Claude
// Code's format (YAML front matter with name and description, optional
// allowed-tools; the body is the skill's instructions; the folder's other
// files are the skill's resources) — and offers them to the model through
// one tool, skill, whose description lists each skill by name and
// description only. A skill's instructions and files cost bytes only when
// the model loads them (docs/commands.md).
//
// Sources, highest precedence first: the managed layer's skills/, the
// user's config dir skills/ (then ~/.claude/skills/), the project's
// .oceancode/skills/ (then .claude/skills/). A name found again lower down
// is shadowed and named in Dropped; ManagedOnly (the requirements'
// allow_managed_skills_only) drops every skill not the managed layer's.
//
// Loading stays inside the skill's folder: every file is read through an
// os.Root at the folder (no symlink or ".." leaves it), regular files only,
// secrets files (.env) never, each at most MaxFileBytes. A project skill's
// load is put through the gate as a read of its file too (the read rules,
// the boundary), besides the skill key every load passes. allowed-tools of
// a skill is read and shown but never applied: a skill cannot loosen
// anything.
package skills

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/oceancode/oceancode/agent/commands"
	"github.com/oceancode/oceancode/internal/frontmatter"
	"github.com/oceancode/oceancode/provenance"
)

// Limits.
const (
	MaxFileBytes   = 256 << 10 // a file the tool loads
	MaxDescription = 1024      // a description's characters (Claude Code's limit)
	MaxNameLen     = 64
	MaxPerSource   = 200 // skills read from one directory
	// MaxListing bounds the skill tool's listing (every request pays for
	// it): skills past it, in precedence order, are dropped and named.
	MaxListing      = 16 << 10
	maxListedFiles  = 100 // files a load of SKILL.md lists
	maxListingDepth = 4
)

// Options say where to look and what the policy allows.
type Options struct {
	Sources     []commands.Source // highest precedence first
	ManagedOnly bool
}

// Skill is one skill.
type Skill struct {
	Name         string           `json:"name"`
	Description  string           `json:"description"`
	AllowedTools []string         `json:"allowed_tools,omitempty"`
	Layer        provenance.Layer `json:"layer"`
	Dir          string           `json:"dir"`
	// within is the source's Within (the project root for a project
	// skill): the folder is checked against it again at each load.
	within string
}

// Set is the skills of a session.
type Set struct {
	byName  map[string]*Skill
	List    []Skill // by name
	Dropped []commands.Dropped
}

type front struct {
	Name         string            `yaml:"name"`
	Description  string            `yaml:"description"`
	AllowedTools frontmatter.Tools `yaml:"allowed-tools"`
}

// Load reads every source; what cannot be used is in Dropped.
func Load(o Options) *Set {
	s := &Set{byName: map[string]*Skill{}}
	listed := 0
	for _, src := range o.Sources {
		for _, sk := range s.read(src) {
			switch prev, dup := s.byName[sk.Name]; {
			case dup:
				s.drop(sk, fmt.Sprintf("shadowed by skill %s of the %s layer (%s)", sk.Name, prev.Layer, prev.Dir))
			case o.ManagedOnly && sk.Layer != provenance.Managed:
				s.drop(sk, "the requirements' allow_managed_skills_only keeps only the managed layer's skills")
			case listed+len(sk.Name)+len(sk.Description)+4 > MaxListing:
				s.drop(sk, fmt.Sprintf("the skills' listing would pass %d bytes (every request carries it)", MaxListing))
			default:
				listed += len(sk.Name) + len(sk.Description) + 4
				k := sk
				s.byName[sk.Name] = &k
			}
		}
	}
	for _, sk := range s.byName {
		s.List = append(s.List, *sk)
	}
	sort.Slice(s.List, func(i, j int) bool { return s.List[i].Name < s.List[j].Name })
	return s
}

func (s *Set) drop(sk Skill, why string) {
	s.Dropped = append(s.Dropped, commands.Dropped{Name: sk.Name, Layer: sk.Layer, Path: filepath.Join(sk.Dir, "SKILL.md"), Why: why})
}

// read returns the skills of one source directory: each folder in it with
// a SKILL.md.
func (s *Set) read(src commands.Source) []Skill {
	root, err := src.Open()
	if err != nil {
		if !frontmatter.IsNotExist(err) {
			s.Dropped = append(s.Dropped, commands.Dropped{Layer: src.Layer, Path: src.Dir, Why: err.Error()})
		}
		return nil
	}
	defer root.Close()
	entries, err := fs.ReadDir(root.FS(), ".")
	if err != nil {
		s.Dropped = append(s.Dropped, commands.Dropped{Layer: src.Layer, Path: src.Dir, Why: err.Error()})
		return nil
	}
	var out []Skill
	for _, e := range entries {
		if !e.IsDir() {
			continue // a symlinked folder is not followed
		}
		if len(out) >= MaxPerSource {
			s.Dropped = append(s.Dropped, commands.Dropped{Layer: src.Layer, Path: src.Dir, Why: fmt.Sprintf("more than %d skills in %s", MaxPerSource, src.Dir)})
			break
		}
		sk, err := parseSkill(root, src, e.Name())
		if frontmatter.IsNotExist(err) {
			continue // a folder without SKILL.md is not a skill
		}
		if err != nil {
			s.Dropped = append(s.Dropped, commands.Dropped{Name: sk.Name, Layer: src.Layer, Path: filepath.Join(sk.Dir, "SKILL.md"), Why: err.Error()})
			continue
		}
		out = append(out, sk)
	}
	return out
}

// parseSkill reads folder/SKILL.md's front matter.
func parseSkill(root *os.Root, src commands.Source, folder string) (Skill, error) {
	sk := Skill{Name: folder, Layer: src.Layer, Dir: filepath.Join(src.Dir, folder), within: src.Within}
	data, err := frontmatter.ReadFile(root, folder+"/SKILL.md", MaxFileBytes)
	if err != nil {
		if frontmatter.IsNotExist(err) {
			return sk, err
		}
		return sk, fmt.Errorf("read skill %s: %w", sk.Dir, err)
	}
	var f front
	if _, err := frontmatter.Parse(data, &f); err != nil {
		return sk, fmt.Errorf("parse skill %s/SKILL.md: %w", sk.Dir, err)
	}
	if n := strings.TrimSpace(f.Name); n != "" {
		sk.Name = n
	}
	sk.Description = strings.Join(strings.Fields(f.Description), " ")
	sk.AllowedTools = f.AllowedTools
	switch {
	case !validName(sk.Name):
		return sk, fmt.Errorf("skill %s: name %q: use lowercase letters, digits and hyphens, at most %d", sk.Dir, sk.Name, MaxNameLen)
	case sk.Description == "":
		return sk, fmt.Errorf("skill %s: no description in its front matter: the model could not know when to use it", sk.Dir)
	case len([]rune(sk.Description)) > MaxDescription:
		return sk, fmt.Errorf("skill %s: description of %d characters: at most %d", sk.Dir, len([]rune(sk.Description)), MaxDescription)
	}
	return sk, nil
}

// validName is Claude Code's rule for a skill's name.
func validName(s string) bool {
	if s == "" || len(s) > MaxNameLen {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

// Lookup returns the skill called name.
func (s *Set) Lookup(name string) (*Skill, bool) {
	if s == nil {
		return nil, false
	}
	sk, ok := s.byName[name]
	return sk, ok
}
