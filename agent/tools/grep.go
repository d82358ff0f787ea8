package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/oceancode/oceancode/agent/fsguard"
	"github.com/oceancode/oceancode/agent/gate"
	"github.com/oceancode/oceancode/agent/provider"
)

// GrepTool searches file contents with a Go regular expression.
//
// Pure Go, so results are the same on every machine. It walks the path
// (the working directory by default) through the boundary, skipping .git,
// node_modules, symlinks, binary files, files over 1 MiB and secrets files
// (.env …), and prints "path:line: text", capped.
type GrepTool struct{}

// Grep limits.
const (
	MaxGrepFileSize = 1 << 20
	MaxGrepMatches  = 200
	maxGrepLineLen  = 300
)

type grepInput struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path,omitempty"`
	Glob    string `json:"glob,omitempty"`
}

var grepDef = provider.ToolDef{
	Name:        "grep",
	Description: "Search file contents with a Go (RE2) regexp; prints path:line: text. glob filters files (*.go, src/**/*.ts). Skips .git, node_modules, binary and >1 MiB files.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"pattern":{"type":"string"},"path":{"type":"string","description":"file or dir, default ."},"glob":{"type":"string"}},"required":["pattern"],"additionalProperties":false}`),
}

// Def implements Tool.
func (GrepTool) Def() provider.ToolDef { return grepDef }

// Kind implements Tool: its input names a file path.
func (GrepTool) Kind() gate.Kind { return gate.KindPath }

func parseGrep(input json.RawMessage) (grepInput, *regexp.Regexp, *globMatcher, error) {
	var in grepInput
	if err := decode("grep", input, &in, "pattern"); err != nil {
		return in, nil, nil, err
	}
	if in.Pattern == "" {
		return in, nil, nil, fmt.Errorf("grep: pattern is empty")
	}
	re, err := regexp.Compile(in.Pattern)
	if err != nil {
		return in, nil, nil, fmt.Errorf("grep: bad pattern: %s", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	var g *globMatcher
	if in.Glob != "" {
		m, err := compileGlob(in.Glob)
		if err != nil {
			return in, nil, nil, fmt.Errorf("grep: glob: %v", err)
		}
		g = &m
	}
	if in.Path == "" {
		in.Path = "."
	}
	return in, re, g, nil
}

// Target implements Tool: the path searched (the gate resolves it).
func (GrepTool) Target(input json.RawMessage) (Target, error) {
	in, _, _, err := parseGrep(input)
	if err != nil {
		return Target{}, err
	}
	return Target{Tool: "grep", Input: in.Path}, nil
}

// Run implements Tool.
func (GrepTool) Run(ctx context.Context, env *Env, input json.RawMessage) Result {
	in, re, glob, err := parseGrep(input)
	if err != nil {
		return errorResult(err)
	}
	r, err := resolve("grep", env, in.Path)
	if err != nil {
		return errorResult(err)
	}
	root := r.Abs
	fi, err := os.Stat(root)
	if err != nil {
		return errResult("grep: %s: %v", in.Path, err)
	}
	// A file is searched line by line only when the whole text matches:
	// in multi-line mode ^ and $ match at every line, so this never misses
	// a line (\A and \z still mean the text's ends: no prefilter then).
	pre := re
	if !strings.Contains(in.Pattern, `\A`) && !strings.Contains(in.Pattern, `\z`) {
		if m, err := regexp.Compile("(?m:" + in.Pattern + ")"); err == nil {
			pre = m
		}
	} else {
		pre = nil
	}
	var sb strings.Builder
	limit := env.outputLimit()
	matches, files := 0, 0
	capped := false
	search := func(p string, size int64) error {
		if size > MaxGrepFileSize || fsguard.IsSecretName(p) {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil || isBinary(b) || (pre != nil && !pre.Match(b)) {
			return nil
		}
		shown := env.display(p)
		found := false
		s := string(b)
		for n := 1; len(s) > 0; n++ {
			line, rest, _ := strings.Cut(s, "\n")
			s = rest
			if !re.MatchString(line) {
				continue
			}
			line = strings.TrimSuffix(line, "\r")
			if len(line) > maxGrepLineLen {
				line = line[:runeFloor(line, maxGrepLineLen)] + "…"
			}
			entry := fmt.Sprintf("%s:%d: %s\n", shown, n, line)
			if matches == MaxGrepMatches || sb.Len()+len(entry) > limit {
				capped = true
				return fs.SkipAll
			}
			sb.WriteString(entry)
			matches++
			if !found {
				found = true
				files++
			}
		}
		return nil
	}
	if !fi.IsDir() {
		if err := fsguard.CheckRead(root); err != nil {
			return errResult("grep: %v", err)
		}
		search(root, fi.Size())
	} else {
		if err := fsguard.CheckDir(root); err != nil {
			return errResult("grep: %v", err)
		}
		err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // unreadable: skip
			}
			if cerr := ctx.Err(); cerr != nil {
				return cerr
			}
			if d.IsDir() {
				if p != root && skipDir(d.Name()) || fsguard.InSecretDir(p) != "" {
					return fs.SkipDir // a secrets directory (the state dir) is skipped whole
				}
				return nil
			}
			if !d.Type().IsRegular() {
				return nil // symlinks are not followed: they could lead anywhere
			}
			if glob != nil {
				name := d.Name()
				if !glob.baseOnly() {
					name, _ = filepath.Rel(root, p)
					name = filepath.ToSlash(name)
				}
				if !glob.match(name) {
					return nil
				}
			}
			info, err := d.Info()
			if err != nil {
				return nil
			}
			return search(p, info.Size())
		})
		if err != nil && ctx.Err() != nil {
			return errResult("grep: %v", err)
		}
	}
	meta := map[string]any{"matches": matches, "files": files, "truncated": capped}
	if matches == 0 {
		return Result{Content: "no matches", Meta: meta}
	}
	out := strings.TrimSuffix(sb.String(), "\n")
	if capped {
		out += fmt.Sprintf("\n(stopped at %d matches; narrow the pattern, path or glob)", matches)
	}
	return Result{Content: out, Meta: meta}
}
