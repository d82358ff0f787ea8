package fsguard

import (
	"errors"
	"fmt"
	"path/filepath"

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

// CheckRead refuses to read a secrets file. It checks the name as given and,
// when the path is a symlink, the name of the file it resolves to, so
// "notes.txt -> .env" and "/proc/self/environ" are refused too.
func CheckRead(path string) error {
	if IsSecretPath(path) {
		return secretError(path)
	}
	if real, err := resolvePath(absOrSelf(path)); err == nil && IsSecretPath(real) {
		return secretError(path)
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
