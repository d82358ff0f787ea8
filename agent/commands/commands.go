// Package commands discovers, parses and expands custom slash commands:
// Markdown files in Claude Code's format (docs/commands.md), so a team's
// existing .claude/commands/ work unchanged. A file's name is the command's
// name (review.md is /review; frontend/component.md is /frontend:component),
// its optional YAML front matter says description, argument-hint,
// allowed-tools, model and disable-model-invocation, and its body is the
// prompt, with $ARGUMENTS and $1…$9 replaced by what follows the name.
//
// Sources, highest precedence first (a name found again lower down is
// shadowed and named in Dropped): the managed layer's commands/, the user's
// config dir commands/ (then ~/.claude/commands/), the project's
// .oceancode/commands/ (then .claude/commands/). A project source must
// resolve inside the project root, and every file is read through an
// os.Root: no symlink leaves its directory, only regular files are read,
// each at most MaxFileBytes.
//
// The repository is untrusted, so a command is prompt text and nothing
// more: allowed-tools only narrows the tools offered for the command's turn
// (the gate still decides every call); model applies only from the managed
// or user layer, or a trusted workspace, and only when the host's check
// (the requirements' allowed models) passes; the !`…` shell lines of
// Claude Code are never run (a notice says so). ManagedOnly (the
// requirements' allow_managed_commands_only) drops every command that is
// not the managed layer's, each named in Dropped.
package commands

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/oceancode/oceancode/internal/frontmatter"
	"github.com/oceancode/oceancode/provenance"
)

// Limits of discovery.
const (
	MaxFileBytes = 64 << 10 // a command file's size
	MaxPerSource = 500      // commands read from one directory
	MaxDepth     = 3        // namespace levels (a/b/c.md)
)

// Source is one directory commands are read from.
type Source struct {
	Layer provenance.Layer
	Dir   string // absolute
	// Within, if set, is the directory Dir must resolve inside (the
	// project root for a project source).
	Within string
}

// Options say where to look and what the policy allows.
type Options struct {
	// Sources, highest precedence first.
	Sources []Source
	// ManagedOnly keeps only the managed layer's commands (the
	// requirements' allow_managed_commands_only).
	ManagedOnly bool
	// TrustedProject lets a project command's model apply (a trusted
	// workspace, docs/trust.md).
	TrustedProject bool
	// ModelCheck, if set, turns the model a command names into the
	// provider's name for it, or refuses it (the requirements' allowed
	// models; a model of another provider than the session's).
	ModelCheck func(model string) (string, error)
}

// Command is one custom command.
type Command struct {
	Name         string `json:"name"` // without the slash; namespaces joined by ":"
	Description  string `json:"description,omitempty"`
	ArgumentHint string `json:"argument_hint,omitempty"`
	// AllowedTools narrows the tools offered while the command runs.
	AllowedTools []string `json:"allowed_tools,omitempty"`
	Model        string   `json:"model,omitempty"`
	// DisableModelInvocation is Claude Code's flag; OceanCode's model never
	// invokes commands, so it changes nothing here.
	DisableModelInvocation bool             `json:"disable_model_invocation,omitempty"`
	Layer                  provenance.Layer `json:"layer"`
	Path                   string           `json:"path"`
	Body                   string           `json:"-"`
}

// Dropped is a command file that is not used, and why.
type Dropped struct {
	Name  string           `json:"name,omitempty"`
	Layer provenance.Layer `json:"layer"`
	Path  string           `json:"path"`
	Why   string           `json:"why"`
}

// Set is the commands of a session.
type Set struct {
	opts    Options
	byName  map[string]*Command
	List    []Command // by name
	Dropped []Dropped
}

// front is a command file's front matter.
type front struct {
	Description            string            `yaml:"description"`
	ArgumentHint           string            `yaml:"argument-hint"`
	AllowedTools           frontmatter.Tools `yaml:"allowed-tools"`
	Model                  string            `yaml:"model"`
	DisableModelInvocation bool              `yaml:"disable-model-invocation"`
}

// Load reads every source. It never fails: what cannot be used is in
// Dropped with the reason.
func Load(o Options) *Set {
	s := &Set{opts: o, byName: map[string]*Command{}}
	for _, src := range o.Sources {
		for _, c := range s.read(src) {
			switch prev, dup := s.byName[c.Name]; {
			case dup:
				s.drop(c, fmt.Sprintf("shadowed by /%s of the %s layer (%s)", c.Name, prev.Layer, prev.Path))
			case o.ManagedOnly && c.Layer != provenance.Managed:
				s.drop(c, "the requirements' allow_managed_commands_only keeps only the managed layer's commands")
			default:
				cc := c
				s.byName[c.Name] = &cc
			}
		}
	}
	for _, c := range s.byName {
		s.List = append(s.List, *c)
	}
	sort.Slice(s.List, func(i, j int) bool { return s.List[i].Name < s.List[j].Name })
	return s
}

func (s *Set) drop(c Command, why string) {
	s.Dropped = append(s.Dropped, Dropped{Name: c.Name, Layer: c.Layer, Path: c.Path, Why: why})
}

// read returns the commands of one source, noting in Dropped the files
// that cannot be used.
func (s *Set) read(src Source) []Command {
	root, err := src.Open()
	if err != nil {
		if !frontmatter.IsNotExist(err) {
			s.Dropped = append(s.Dropped, Dropped{Layer: src.Layer, Path: src.Dir, Why: err.Error()})
		}
		return nil
	}
	defer root.Close()
	var out []Command
	_ = fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == "." {
			return nil
		}
		if d.IsDir() {
			if strings.Count(p, "/") >= MaxDepth-1 {
				return fs.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".md") {
			return nil
		}
		if len(out) >= MaxPerSource {
			s.Dropped = append(s.Dropped, Dropped{Layer: src.Layer, Path: filepath.Join(src.Dir, filepath.FromSlash(p)), Why: fmt.Sprintf("more than %d commands in %s", MaxPerSource, src.Dir)})
			return fs.SkipAll
		}
		c, err := parseFile(root, src, p)
		if err != nil {
			s.Dropped = append(s.Dropped, Dropped{Name: c.Name, Layer: src.Layer, Path: c.Path, Why: err.Error()})
			return nil
		}
		out = append(out, c)
		return nil
	})
	return out
}

// Open opens the source's directory as an os.Root, after checking that it
// resolves inside Within. A missing directory is fs.ErrNotExist.
func (src Source) Open() (*os.Root, error) {
	real, err := filepath.EvalSymlinks(src.Dir)
	if err != nil {
		return nil, err
	}
	if src.Within != "" {
		within, err := filepath.EvalSymlinks(src.Within)
		if err != nil {
			return nil, err
		}
		if rel, err := filepath.Rel(within, real); err != nil || !filepath.IsLocal(rel) && rel != "." {
			return nil, fmt.Errorf("%s resolves to %s, outside the project %s: not read", src.Dir, real, within)
		}
	}
	return os.OpenRoot(real)
}

// parseFile reads one command file (p is slash-separated, inside root).
func parseFile(root *os.Root, src Source, p string) (Command, error) {
	c := Command{Name: NameOf(p), Layer: src.Layer, Path: filepath.Join(src.Dir, filepath.FromSlash(p))}
	if !ValidName(c.Name) {
		return c, fmt.Errorf("%q is not a command name: use letters, digits, - and _ (directories add namespaces, a:b)", c.Name)
	}
	data, err := frontmatter.ReadFile(root, p, MaxFileBytes)
	if err != nil {
		return c, fmt.Errorf("read command %s: %w", c.Path, err)
	}
	var f front
	body, err := frontmatter.Parse(data, &f)
	if err != nil {
		return c, fmt.Errorf("parse command %s: %w", c.Path, err)
	}
	c.Description = oneLine(f.Description)
	c.ArgumentHint = oneLine(f.ArgumentHint)
	c.AllowedTools = f.AllowedTools
	c.Model = strings.TrimSpace(f.Model)
	c.DisableModelInvocation = f.DisableModelInvocation
	c.Body = strings.TrimSpace(body)
	if c.Description == "" {
		c.Description = firstLine(c.Body)
	}
	return c, nil
}

// NameOf is the command name of a file path relative to its source
// ("frontend/component.md" is "frontend:component").
func NameOf(rel string) string {
	return strings.ReplaceAll(strings.TrimSuffix(path.Clean(rel), ".md"), "/", ":")
}

// ValidName reports whether s can name a command: segments of letters,
// digits, - and _ (starting with a letter or digit), joined by ":".
func ValidName(s string) bool {
	if s == "" {
		return false
	}
	for _, seg := range strings.Split(s, ":") {
		if seg == "" {
			return false
		}
		for i, r := range seg {
			switch {
			case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			case i > 0 && (r == '-' || r == '_'):
			default:
				return false
			}
		}
	}
	return true
}

// Lookup returns the command called name.
func (s *Set) Lookup(name string) (*Command, bool) {
	if s == nil {
		return nil, false
	}
	c, ok := s.byName[name]
	return c, ok
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// firstLine is a body's first non-blank line, as the description of a
// command whose front matter has none (as Claude Code does).
func firstLine(body string) string {
	for l := range strings.SplitSeq(body, "\n") {
		if l = strings.TrimSpace(strings.TrimLeft(l, "# ")); l != "" {
			if r := []rune(l); len(r) > 120 {
				l = string(r[:120]) + "…"
			}
			return l
		}
	}
	return ""
}
