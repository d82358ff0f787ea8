package fsguard

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// maxSymlinks bounds symlink expansion, as the kernel's ELOOP limit does.
const maxSymlinks = 40

// resolvePath resolves the absolute path p the way the kernel would walk
// it: component by component, following symlinks where they are met and
// applying ".." to the resolved directory. Components that do not exist
// are taken literally (a file about to be created), and the walk goes on,
// so a later ".." that climbs back into existing directories still has its
// symlinks resolved. The result has no symlink in any existing component.
// Errors other than "does not exist" fail closed.
func resolvePath(p string) (string, error) {
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("fsguard: resolve %s: not an absolute path", p)
	}
	resolved := string(filepath.Separator)
	rest := p
	links := 0
	for rest != "" {
		var comp string
		if i := strings.IndexByte(rest, filepath.Separator); i >= 0 {
			comp, rest = rest[:i], rest[i+1:]
		} else {
			comp, rest = rest, ""
		}
		switch comp {
		case "", ".":
			continue
		case "..":
			resolved = filepath.Dir(resolved)
			continue
		}
		next := filepath.Join(resolved, comp)
		fi, err := os.Lstat(next)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
				resolved = next
				continue
			}
			return "", fmt.Errorf("fsguard: resolve %s: %w", p, err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			resolved = next
			continue
		}
		links++
		if links > maxSymlinks {
			return "", fmt.Errorf("fsguard: resolve %s: too many levels of symbolic links", p)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", fmt.Errorf("fsguard: resolve %s: %w", p, err)
		}
		if filepath.IsAbs(target) {
			resolved = string(filepath.Separator)
		}
		if rest == "" {
			rest = target
		} else {
			rest = target + string(filepath.Separator) + rest
		}
	}
	return resolved, nil
}

// within reports whether p is root or lies below it (both resolved).
func within(p, root string) bool {
	if root == string(filepath.Separator) {
		return true
	}
	return p == root || strings.HasPrefix(p, root+string(filepath.Separator))
}
