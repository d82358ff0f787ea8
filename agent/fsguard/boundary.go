package fsguard

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Boundary is the external-directory boundary of one project.
type Boundary struct {
	// ProjectRoot is the project's absolute root.
	ProjectRoot string
	// Refs maps a reference alias name (without "@") to a directory:
	// "@name/rest" expands to Refs[name]/rest. A relative directory is
	// relative to ProjectRoot.
	Refs map[string]string
}

// Resolved is a path after Resolve.
type Resolved struct {
	// Abs is the absolute path with every symlink and ".." resolved. File
	// tools must open Abs, the path that was checked.
	Abs string
	// Outside is true when Abs lies outside the project (and is not within
	// a reference root reached through its alias): the permission engine
	// then checks external_directory.
	Outside bool
	// Ref is the alias name when the path was reached through "@name/…"
	// and stays within that reference root (auto-allowed).
	Ref string
	// Rel is Abs relative to the project root, slash-separated, when it is
	// inside the project ("" otherwise): the pattern the permission rules
	// for file tools match.
	Rel string
}

// Resolve resolves path the way a file tool will open it. A relative path is
// relative to cwd ("" = the project root; a relative cwd is relative to the
// project root). "@name/rest" with a known name expands to Refs[name]/rest
// and is auto-allowed while it stays within that root; an unknown @name is
// left literal (a relative path like any other); an alias that walks out of
// its root ("@docs/../escape") is judged like any other path, so outside the
// project it is Outside. Symlinks are resolved on the existing part of the
// path, and ".." is applied after them, as the kernel does, so neither a
// symlink nor ".." gets out unseen.
func (b Boundary) Resolve(path, cwd string) (Resolved, error) {
	if path == "" {
		return Resolved{}, fmt.Errorf("fsguard: resolve path: empty path")
	}
	if !filepath.IsAbs(b.ProjectRoot) {
		return Resolved{}, fmt.Errorf("fsguard: resolve %s: project root %q is not absolute", path, b.ProjectRoot)
	}
	root, err := resolvePath(filepath.Clean(b.ProjectRoot))
	if err != nil {
		return Resolved{}, err
	}
	target := filepath.FromSlash(path)
	var ref, refRoot string
	if strings.HasPrefix(path, "@") {
		name, rest, _ := strings.Cut(path[1:], "/")
		if dir, ok := b.Refs[name]; ok && name != "" && dir != "" {
			if !filepath.IsAbs(dir) {
				dir = filepath.Join(b.ProjectRoot, dir)
			}
			if refRoot, err = resolvePath(filepath.Clean(dir)); err != nil {
				return Resolved{}, err
			}
			ref = name
			target = dir + string(filepath.Separator) + filepath.FromSlash(rest)
		}
	}
	if !filepath.IsAbs(target) {
		base := cwd
		switch {
		case base == "":
			base = b.ProjectRoot
		case !filepath.IsAbs(base):
			base = b.ProjectRoot + string(filepath.Separator) + base
		}
		target = base + string(filepath.Separator) + target
	}
	abs, err := resolvePath(target)
	if err != nil {
		return Resolved{}, err
	}
	res := Resolved{Abs: abs, Outside: !within(abs, root)}
	if !res.Outside {
		if rel, err := filepath.Rel(root, abs); err == nil {
			res.Rel = filepath.ToSlash(rel)
		}
	}
	if ref != "" && within(abs, refRoot) {
		res.Ref = ref
		res.Outside = false
	}
	return res, nil
}
