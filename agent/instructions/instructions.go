// Package instructions finds, reads, import-expands, caps and renders the
// instruction files a session gives the model: AGENTS.md (the cross-vendor
// file), or CLAUDE.md where no AGENTS.md is beside it, from the user's
// config directory, the project root and every directory from the root down
// to the working directory, in that order; and, later, a subdirectory's file
// the first time a tool touches that directory (Set.Touch).
//
// The files are data, not policy: their text goes to the model and nowhere
// else, so a repository's AGENTS.md cannot loosen a rule. They come from an
// untrusted repository, so reading them is guarded: a project file must
// resolve (symlinks followed) inside the project; an "@path" import is
// relative, never uses "..", and must stay inside the project or an @ref
// root; secrets files (agent/fsguard.CheckRead) and anything that is not a
// regular file (a FIFO, a device, /proc) are refused; every read is capped.
// Imports nest at most MaxImportDepth deep and a cycle is refused with a
// notice. Each file and the whole set have a byte cap; what is cut is said,
// in the prompt and in the Report.
//
// The package reads no config file: the caller passes the directories, the
// @ref roots and the caps (Config).
package instructions

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/oceancode/oceancode/agent/fsguard"
)

// Default caps and limits.
const (
	DefaultMaxFileBytes  = 32 << 10 // one file's text in the prompt
	DefaultMaxTotalBytes = 64 << 10 // every file's text in the prompt, together
	MaxImportDepth       = 5        // @import nesting below a discovered file
)

// FileNames are the instruction files looked for in each directory, the
// first found winning: CLAUDE.md is read only where no AGENTS.md is beside it.
var FileNames = []string{"AGENTS.md", "CLAUDE.md"}

// Layer says where a file came from.
type Layer string

// The layers, in prompt order.
const (
	User    Layer = "user"    // the user's config directory
	Project Layer = "project" // the project root
	Subdir  Layer = "subdir"  // a directory below the root (the working directory's chain, or touched by a tool)
)

// Config is what Discover needs; the caller decides it from the
// configuration.
type Config struct {
	// UserDir is the user's oceancode config directory ("" = none).
	UserDir string
	// ProjectRoot is the project's absolute root ("" = Cwd).
	ProjectRoot string
	// Cwd is the session's absolute working directory.
	Cwd string
	// Refs are the @ref aliases (name → directory, relative to the root
	// when not absolute): an import may name "@name/file".
	Refs map[string]string
	// MaxFileBytes and MaxTotalBytes are the caps (0 = the defaults).
	MaxFileBytes, MaxTotalBytes int
	// Off, when not "", says why no file is read (the configuration
	// turned them off): Discover then returns an empty set.
	Off string
}

// Source is one file in the prompt.
type Source struct {
	// Path is the file's absolute path, symlinks resolved.
	Path string `json:"path"`
	// Name is how the prompt names it: relative to the project root when
	// inside it, absolute otherwise.
	Name  string `json:"name"`
	Layer Layer  `json:"layer"`
	// ImportedBy is the Name of the file whose @import brought it in.
	ImportedBy string `json:"imported_by,omitempty"`
	// OnTouch is set for a file that joined when a tool first touched its
	// directory (not in the system prompt, but in that tool's result).
	OnTouch bool `json:"on_touch,omitempty"`
	// Size is the file's size on disk; Bytes how many of them are in the
	// prompt.
	Size  int64 `json:"size"`
	Bytes int   `json:"bytes"`
	// Cut says what was left out ("" = nothing).
	Cut  string `json:"cut,omitempty"`
	text string
}

// Notice kinds.
const (
	Refused = "refused" // an import or a file that was not read, and why
	Cut     = "cut"     // a file cut by a cap
	Skipped = "skipped" // an @word that names no file, or a file already included (Report only)
)

// Notice is something the user should know about a file: a cut, a refused
// import, a cycle. Refused and Cut notices are in the prompt too.
type Notice struct {
	Kind string `json:"kind"`
	File string `json:"file"` // the Name of the file it is about
	Text string `json:"text"`
}

// Set is a session's instructions: those found at the start, and those
// joined since (Touch). It is safe for concurrent use.
type Set struct {
	cfg      Config
	boundary fsguard.Boundary
	root     string // resolved project root
	mu       sync.Mutex
	seen     map[string]bool // directories looked in
	files    map[string]bool // files included (resolved paths)
	total    int
	sources  []Source
	notices  []Notice
	startSrc int // sources and notices of the system prompt
	startNot int
}

// Discover reads the start instructions: the user's, the project root's and
// each directory's down to the working directory.
func Discover(cfg Config) *Set {
	if cfg.MaxFileBytes <= 0 {
		cfg.MaxFileBytes = DefaultMaxFileBytes
	}
	if cfg.MaxTotalBytes <= 0 {
		cfg.MaxTotalBytes = DefaultMaxTotalBytes
	}
	if cfg.ProjectRoot == "" {
		cfg.ProjectRoot = cfg.Cwd
	}
	s := &Set{cfg: cfg, seen: map[string]bool{}, files: map[string]bool{},
		boundary: fsguard.Boundary{ProjectRoot: cfg.ProjectRoot, Refs: cfg.Refs}}
	if cfg.Off != "" {
		return s // no root: Touch adds nothing either
	}
	s.root = realDir(cfg.ProjectRoot)
	if cfg.UserDir != "" {
		s.loadDir(realDir(cfg.UserDir), User, false)
	}
	if s.root != "" {
		for _, d := range chain(s.root, realDir(cfg.Cwd)) {
			s.loadDir(d, layerOf(d, s.root), false)
		}
	}
	s.startSrc, s.startNot = len(s.sources), len(s.notices)
	return s
}

// Touch is told a path a tool call touched (a file or a directory,
// relative to cwd, "" = cwd itself) and returns the instructions of the
// directories from the root down to it that no file was looked for in
// yet, rendered for the tool's result ("" = none). Paths outside the
// project are ignored.
func (s *Set) Touch(path, cwd string) string {
	text, _ := s.TouchFiles(path, cwd)
	return text
}

// TouchFiles is Touch that also returns the files that joined.
func (s *Set) TouchFiles(path, cwd string) (string, []Source) {
	if s == nil || s.root == "" {
		return "", nil
	}
	if path == "" {
		path = "."
	}
	if s.seenLexically(path, cwd) {
		return "", nil // the common case, without a syscall
	}
	res, err := s.boundary.Resolve(path, cwd)
	if err != nil || res.Outside || res.Rel == "" {
		return "", nil
	}
	dir := res.Abs
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		dir = filepath.Dir(dir)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen[dir] {
		return "", nil
	}
	src, not := len(s.sources), len(s.notices)
	for _, d := range chain(s.root, dir) {
		if !s.seen[d] {
			s.loadDir(d, layerOf(d, s.root), true)
		}
	}
	return render(s.sources[src:], s.notices[not:], touchHeading), append([]Source(nil), s.sources[src:]...)
}

// Start returns the files in the system prompt.
func (s *Set) Start() []Source {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Source(nil), s.sources[:s.startSrc]...)
}

// Describe is files in one line for an event: "NAME (LAYER, N bytes[,
// imported by NAME][, cut: …])" joined by "; " ("" = none).
func Describe(files []Source) string {
	var parts []string
	for _, f := range files {
		p := fmt.Sprintf("%s (%s, %d bytes", f.Name, f.Layer, f.Bytes)
		if f.ImportedBy != "" {
			p += ", imported by " + f.ImportedBy
		}
		if f.Cut != "" {
			p += ", cut: " + f.Cut
		}
		parts = append(parts, p+")")
	}
	return strings.Join(parts, "; ")
}

// seenLexically reports whether the directory path names, or the one it
// is in (when it is a regular file), taken literally (no symlink
// resolved), was looked in already. A symlink can only make it miss a
// directory's instructions, never read anything: the full check follows
// when it is not.
func (s *Set) seenLexically(path, cwd string) bool {
	if strings.HasPrefix(path, "@") {
		return false
	}
	if !filepath.IsAbs(path) {
		if cwd == "" {
			cwd = s.cfg.ProjectRoot
		}
		path = filepath.Join(cwd, path)
	}
	path = filepath.Clean(path)
	s.mu.Lock()
	seen, parent := s.seen[path], s.seen[filepath.Dir(path)]
	s.mu.Unlock()
	if seen || !parent {
		return seen
	}
	fi, err := os.Lstat(path) // a file in a seen directory, or a directory below it
	return err == nil && fi.Mode().IsRegular()
}

// Prompt is the start instructions rendered for the system prompt ("" =
// none).
func (s *Set) Prompt() string {
	if s == nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return render(s.sources[:s.startSrc], s.notices[:s.startNot], startHeading)
}

// Report is the list `oceancode inspect instructions` shows.
type Report struct {
	Files         []Source `json:"files"`
	Notices       []Notice `json:"notices,omitempty"`
	Bytes         int      `json:"bytes"`
	MaxFileBytes  int      `json:"max_file_bytes"`
	MaxTotalBytes int      `json:"max_total_bytes"`
	// Off says why no file was read ("" = they are read).
	Off string `json:"off,omitempty"`
}

// Report lists every file in the prompt so far and every notice.
func (s *Set) Report() Report {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := Report{Files: append([]Source{}, s.sources...), Notices: append([]Notice(nil), s.notices...),
		Bytes: s.total, MaxFileBytes: s.cfg.MaxFileBytes, MaxTotalBytes: s.cfg.MaxTotalBytes, Off: s.cfg.Off}
	return r
}

// Warnings are the Refused and Cut notices as lines for stderr.
func (s *Set) Warnings() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, n := range s.notices {
		if n.Kind != Skipped {
			out = append(out, "instructions: "+n.File+": "+n.Text)
		}
	}
	return out
}

// realDir is dir, absolute, with its symlinks resolved ("" for "").
func realDir(dir string) string {
	if dir == "" {
		return ""
	}
	dir, _ = filepath.Abs(dir)
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		return r
	}
	return filepath.Clean(dir)
}

// chain is root and every directory below it down to dir (just root when
// dir is not inside it).
func chain(root, dir string) []string {
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return []string{root}
	}
	out := []string{root}
	d := root
	for _, el := range strings.Split(rel, string(filepath.Separator)) {
		d = filepath.Join(d, el)
		out = append(out, d)
	}
	return out
}

func layerOf(dir, root string) Layer {
	if dir == root {
		return Project
	}
	return Subdir
}
