package fsguard

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"

	"github.com/oceancode/oceancode/internal/secret"
)

// ErrSecretFile is wrapped by CheckRead's refusals (and by the bash tool's
// refusal of a command naming a secrets file, see SecretFileError).
var ErrSecretFile = errors.New(secret.FileRefusal)

// IsSecretName reports whether a file name (its last element is used) is a
// secrets file: .env, *.env, or *.env.* other than a template
// (*.example, *.sample, *.template). Names are compared case-insensitively.
// It is internal/secret's FileName, the one matcher the read tool and the
// shell guard share.
func IsSecretName(name string) bool { return secret.FileName(name) }

// IsSecretPath reports whether an absolute path is a secrets file by its
// name, or a /proc file that exposes a process's environment or memory
// (/proc/<pid>/environ, /proc/<pid>/mem): the agent's own, or its parent
// shell's, which holds the user's API keys.
func IsSecretPath(path string) bool {
	return secret.FileName(path) || (filepath.IsAbs(path) && secret.ProcFile(path))
}

// CheckRead refuses to read a secrets file or a file in a secrets
// directory (SetSecretDirs: oceancode's state and config directories). It
// checks the path as given and, when it is or passes through a symlink,
// the file it resolves to, so "notes.txt -> .env", "/proc/self/environ"
// and "t -> ~/.local/state/oceancode/server.token" are refused too.
func CheckRead(path string) error {
	if IsSecretPath(path) {
		return secretError(path)
	}
	if d := InSecretDir(absOrSelf(path)); d != "" {
		return secretDirError(path, d)
	}
	real, err := resolvePath(absOrSelf(path))
	if err != nil {
		return nil
	}
	if IsSecretPath(real) {
		return secretError(path)
	}
	if d := InSecretDir(real); d != "" {
		return secretDirError(path, d)
	}
	return nil
}

// secretDirs are the directories SetSecretDirs named, cleaned, absolute.
var secretDirs struct {
	sync.RWMutex
	dirs []string
}

// SetSecretDirs names directories whose files are secrets as a whole, as
// .env is: oceancode's state directory (the server token, trust records,
// sessions, keys) and its user config directory. CheckRead refuses every
// file in them, and the grep tool does not descend into them; the shell
// guard gets them through agent/gate. Relative and empty names are
// ignored; names are added to those already set.
func SetSecretDirs(dirs ...string) {
	secretDirs.Lock()
	defer secretDirs.Unlock()
	for _, d := range dirs {
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		d = filepath.Clean(d)
		if !slices.Contains(secretDirs.dirs, d) {
			secretDirs.dirs = append(secretDirs.dirs, d)
		}
		// The directory as the kernel names it too (a symlinked home).
		if real, err := filepath.EvalSymlinks(d); err == nil && real != d && !slices.Contains(secretDirs.dirs, real) {
			secretDirs.dirs = append(secretDirs.dirs, real)
		}
	}
}

// SecretDirs returns the directories SetSecretDirs named.
func SecretDirs() []string {
	secretDirs.RLock()
	defer secretDirs.RUnlock()
	return slices.Clone(secretDirs.dirs)
}

// InSecretDir returns the secrets directory an absolute, cleaned path is
// in or is ("" when none).
func InSecretDir(p string) string {
	secretDirs.RLock()
	defer secretDirs.RUnlock()
	for _, d := range secretDirs.dirs {
		if secret.UnderDir(p, d) {
			return d
		}
	}
	return ""
}

// secretDirError is the refusal for path, in the secrets directory dir.
func secretDirError(path, dir string) error {
	return fmt.Errorf("fsguard: refuse to read %s: it is in oceancode's state or config directory %s: %w", path, dir, ErrSecretFile)
}

// CheckDir refuses a directory a recursive reader (the grep tool) would
// walk when it is in a secrets directory or holds one; the walker must
// skip a secrets directory below it (see InSecretDir).
func CheckDir(dir string) error {
	if d := InSecretDir(absOrSelf(dir)); d != "" {
		return secretDirError(dir, d)
	}
	return nil
}

// SecretFileError is the refusal for a secrets file named path: the text
// the read tool gives, for every other way of reading one.
func SecretFileError(path string) error { return secretError(path) }

func secretError(path string) error {
	name := filepath.Base(path)
	if filepath.IsAbs(path) && secret.ProcFile(path) {
		name = filepath.Clean(path)
	}
	return fmt.Errorf("fsguard: refuse to read %s: %w", name, ErrSecretFile)
}

func absOrSelf(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}
