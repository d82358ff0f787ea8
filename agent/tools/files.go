package tools

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/oceancode/oceancode/agent/fsguard"
	"github.com/oceancode/oceancode/internal/atomicfile"
)

// Limits shared by the file tools.
const (
	// sniffLen is how much of a file is checked for a NUL byte: one there
	// makes it binary.
	sniffLen = 8 << 10
	// maxReadSize bounds a file read whole (read, edit, apply_patch).
	maxReadSize = 16 << 20
)

// resolve puts path through the session's boundary: symlinks and ".."
// resolved, @ref aliases expanded. File tools open the returned Abs, the
// path the permission gate judged.
func resolve(tool string, env *Env, path string) (fsguard.Resolved, error) {
	if path == "" {
		return fsguard.Resolved{}, fmt.Errorf("%s: path is empty", tool)
	}
	r, err := env.Boundary.Resolve(path, env.cwd())
	if err != nil {
		return r, fmt.Errorf("%s: %s: %w", tool, path, err)
	}
	return r, nil
}

// tracker is the session's tracker; writing tools fail closed without one.
func tracker(tool string, env *Env) (*fsguard.Tracker, error) {
	if env.Tracker == nil {
		return nil, fmt.Errorf("%s: no read-before-write tracker in this session; refusing to write", tool)
	}
	return env.Tracker, nil
}

func isBinary(b []byte) bool { return bytes.IndexByte(b[:min(len(b), sniffLen)], 0) >= 0 }

// readWhole reads a regular file of at most maxReadSize bytes.
func readWhole(tool, shown, abs string) ([]byte, os.FileInfo, error) {
	fi, err := os.Stat(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, fmt.Errorf("%s: %s does not exist", tool, shown)
		}
		return nil, nil, fmt.Errorf("%s: %s: %w", tool, shown, err)
	}
	if fi.IsDir() {
		return nil, fi, fmt.Errorf("%s: %s is a directory (use list)", tool, shown)
	}
	if !fi.Mode().IsRegular() {
		return nil, fi, fmt.Errorf("%s: %s is not a regular file", tool, shown)
	}
	if fi.Size() > maxReadSize {
		return nil, fi, fmt.Errorf("%s: %s is %d bytes, over the %d MiB limit (use grep, or bash with head/sed)", tool, shown, fi.Size(), maxReadSize>>20)
	}
	b, err := os.ReadFile(abs)
	if err != nil {
		return nil, fi, fmt.Errorf("%s: %s: %w", tool, shown, err)
	}
	return b, fi, nil
}

// writeAtomic replaces abs with data (temp file + rename), keeping the
// mode of the file it replaces (0644 for a new one) and creating missing
// parent directories 0755.
func writeAtomic(abs string, data []byte) (created bool, err error) {
	mode := os.FileMode(0o644)
	fi, err := os.Stat(abs)
	switch {
	case err == nil:
		if fi.IsDir() {
			return false, fmt.Errorf("%s is a directory", abs)
		}
		mode = fi.Mode().Perm()
	case errors.Is(err, fs.ErrNotExist):
		created = true
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			return false, err
		}
	default:
		return false, err
	}
	return created, atomicfile.Write(abs, data, mode)
}

// unwrapGuard drops the "fsguard: write <path>: " prefix of a tracker
// refusal; the tool names the path itself.
func unwrapGuard(err error) error {
	switch {
	case errors.Is(err, fsguard.ErrNotRead):
		return fmt.Errorf("%w; read it first", fsguard.ErrNotRead)
	case errors.Is(err, fsguard.ErrStale):
		return fsguard.ErrStale
	}
	return err
}

func dirOf(p string) string { return filepath.Dir(p) }

// writeMode writes abs atomically with the given mode.
func writeMode(abs string, data []byte, mode fs.FileMode) error {
	return atomicfile.Write(abs, data, mode)
}
