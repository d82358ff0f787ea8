package instructions

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/oceancode/oceancode/agent/fsguard"
)

// loadDir looks for the instruction file of dir and includes it with its
// imports. The caller holds s.mu or owns s.
func (s *Set) loadDir(dir string, layer Layer, onTouch bool) {
	if dir == "" || s.seen[dir] {
		return
	}
	if onTouch {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return // not there (yet): looked for again when touched
		}
	}
	s.seen[dir] = true
	for _, n := range FileNames {
		p := filepath.Join(dir, n)
		if fi, err := os.Lstat(p); err == nil {
			s.include(p, fi, "", layer, "", nil, onTouch)
			return
		}
	}
}

// include reads one file (a discovered one, or one imported as "@tok" by
// the file named by, at depth len(stack)), caps it, adds it and then its
// imports.
func (s *Set) include(path string, fi fs.FileInfo, tok string, layer Layer, by string, stack []string, onTouch bool) {
	name := s.name(path)
	refuse := func(err error) {
		if by == "" {
			s.note(Refused, name, err.Error())
			return
		}
		s.note(Refused, by, fmt.Sprintf("import @%s refused: %v", tok, err))
	}
	real, err := s.check(path, fi, layer, by != "")
	if err != nil {
		refuse(err)
		return
	}
	for i, p := range stack {
		if p == real {
			refuse(fmt.Errorf("a cycle (%s)", strings.Join(append(s.names(stack[i:]), name), " → ")))
			return
		}
	}
	if s.files[real] {
		s.note(Skipped, name, "already included")
		return
	}
	if len(stack) > MaxImportDepth {
		refuse(fmt.Errorf("imports nest at most %d deep", MaxImportDepth))
		return
	}
	data, size, err := readRegular(real, s.cfg.MaxFileBytes)
	if err != nil {
		refuse(err)
		return
	}
	s.files[real] = true
	src := Source{Path: real, Name: name, Layer: layer, ImportedBy: by, OnTouch: onTouch, Size: size}
	text := s.capText(&src, string(data))
	src.text, src.Bytes = text, len(text)
	s.total += len(text)
	s.sources = append(s.sources, src)
	stack = append(stack, real)
	for _, tok := range importsOf(text) {
		abs, err := s.resolveImport(tok, filepath.Dir(real))
		switch {
		case errors.Is(err, errMissing):
			s.note(Skipped, name, fmt.Sprintf("@%s names no file: not imported", tok))
		case err != nil:
			s.note(Refused, name, fmt.Sprintf("import @%s refused: %v", tok, err))
		default:
			s.include(abs, nil, tok, layer, name, stack, onTouch)
		}
	}
}

// check resolves path and refuses what may not be read: for a project
// file (or any import) a path that resolves outside the project and every
// @ref root; for every file a secrets file or one in oceancode's state or
// config directory (but the user's own instruction file), or a device,
// /proc or /sys path.
func (s *Set) check(path string, fi fs.FileInfo, layer Layer, imported bool) (string, error) {
	// Every directory of path is resolved already (the chain is built
	// from resolved directories, an import by fsguard's Resolve): only the
	// file itself may be a symlink. fi is its Lstat, when the caller has it.
	var err error
	if fi == nil {
		if fi, err = os.Lstat(path); err != nil {
			return "", fmt.Errorf("read %s: %w", path, err)
		}
	}
	real := path
	if fi.Mode()&fs.ModeSymlink != 0 {
		if real, err = filepath.EvalSymlinks(path); err != nil {
			return "", fmt.Errorf("resolve %s: %w", path, err)
		}
	}
	for _, p := range []string{"/proc", "/sys", "/dev"} {
		if real == p || strings.HasPrefix(real, p+"/") {
			return "", fmt.Errorf("read %s: %s is not a place for instructions", path, p)
		}
	}
	if (layer != User || imported) && (fsguard.IsSecretPath(real) || fsguard.InSecretDir(real) != "") {
		if err := fsguard.CheckRead(real); err != nil {
			return "", err
		}
		return "", fsguard.SecretFileError(real)
	}
	if layer != User && !imported && !inside(real, s.root) {
		return "", fmt.Errorf("read %s: it resolves to %s, outside the project", path, real)
	}
	return real, nil
}

var errMissing = errors.New("no such file")

// resolveImport resolves an import's token (without "@") from the
// importing file's directory: relative, no "..", inside the project or
// the @ref root its first element names.
func (s *Set) resolveImport(tok, fromDir string) (string, error) {
	if filepath.IsAbs(tok) || strings.HasPrefix(tok, "~") || filepath.VolumeName(tok) != "" {
		return "", errors.New("an import is relative to its file (or @ref/…), never absolute")
	}
	for _, el := range strings.Split(filepath.ToSlash(tok), "/") {
		if el == ".." {
			return "", errors.New(`an import may not climb with ".."`)
		}
	}
	path, cwd := tok, fromDir
	if first, _, _ := strings.Cut(filepath.ToSlash(tok), "/"); s.cfg.Refs[first] != "" {
		path, cwd = "@"+filepath.ToSlash(tok), ""
	}
	res, err := s.boundary.Resolve(path, cwd)
	if err != nil {
		return "", err
	}
	if res.Outside {
		return "", fmt.Errorf("%s is outside the project and every @ref root", res.Abs)
	}
	if _, err := os.Lstat(res.Abs); errors.Is(err, fs.ErrNotExist) {
		return "", errMissing
	}
	return res.Abs, nil
}

// capText applies the per-file cap and what is left of the total one,
// cutting at a line end where one is near, and records the cut.
func (s *Set) capText(src *Source, text string) string {
	limit, why := s.cfg.MaxFileBytes, fmt.Sprintf("the per-file cap of %d bytes", s.cfg.MaxFileBytes)
	if left := s.cfg.MaxTotalBytes - s.total; left < limit {
		limit, why = max(left, 0), fmt.Sprintf("the total cap of %d bytes", s.cfg.MaxTotalBytes)
	}
	if len(text) <= limit && int64(len(text)) == src.Size {
		return text
	}
	if len(text) > limit {
		text = cutAt(text, limit)
	}
	src.Cut = fmt.Sprintf("%d of %d bytes left out (%s)", src.Size-int64(len(text)), src.Size, why)
	s.note(Cut, src.Name, "cut: "+src.Cut)
	return text
}

// cutAt cuts text to at most n bytes: at the last line end in the second
// half, else at a rune boundary.
func cutAt(text string, n int) string {
	if i := strings.LastIndexByte(text[:n], '\n'); i >= n/2 {
		return text[:i+1]
	}
	for n > 0 && !utf8.RuneStart(text[n]) {
		n--
	}
	return text[:n]
}

// readRegular reads at most max+1 bytes of a regular file (opened without
// blocking on a FIFO, checked after opening) and returns its size.
func readRegular(path string, max int) ([]byte, int64, error) {
	f, err := openNoBlock(path)
	if err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("read %s: not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, int64(max)+1))
	if err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", path, err)
	}
	return data, fi.Size(), nil
}

func (s *Set) note(kind, file, text string) {
	s.notices = append(s.notices, Notice{Kind: kind, File: file, Text: text})
}

// name is how the prompt names a file: relative to the root inside it.
func (s *Set) name(path string) string {
	if s.root != "" && inside(path, s.root) {
		if rel, err := filepath.Rel(s.root, path); err == nil {
			return filepath.ToSlash(rel)
		}
	}
	return path
}

func (s *Set) names(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = s.name(p)
	}
	return out
}

// inside reports whether p is root or below it.
func inside(p, root string) bool {
	if root == "" {
		return false
	}
	return p == root || strings.HasPrefix(p, strings.TrimSuffix(root, string(filepath.Separator))+string(filepath.Separator))
}
