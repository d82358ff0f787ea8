package fsguard

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// ErrSecretFile is wrapped by CheckRead's refusals.
var ErrSecretFile = errors.New("secrets files are never read into the model")

// templateSuffixes mark *.env.* files that are committed templates, not
// secrets: .env.example (the seed's example), .env.sample, .env.template.
var templateSuffixes = []string{".example", ".sample", ".template"}

// IsSecretName reports whether a file name (its last element is used) is a
// secrets file: .env, *.env, or *.env.* other than a template
// (*.example, *.sample, *.template). Names are compared case-insensitively.
func IsSecretName(name string) bool {
	n := strings.ToLower(filepath.Base(name))
	if strings.HasSuffix(n, ".env") { // .env, x.env
		return true
	}
	if !strings.HasPrefix(n, ".env.") && !strings.Contains(n, ".env.") { // not *.env.*
		return false
	}
	for _, t := range templateSuffixes {
		if strings.HasSuffix(n, t) {
			return false
		}
	}
	return true
}

// CheckRead refuses to read a secrets file. It checks the name as given and,
// when the path is a symlink, the name of the file it resolves to, so
// "notes.txt -> .env" is refused too.
func CheckRead(path string) error {
	if IsSecretName(path) {
		return secretError(path)
	}
	if real, err := resolvePath(absOrSelf(path)); err == nil && IsSecretName(real) {
		return secretError(path)
	}
	return nil
}

func secretError(path string) error {
	return fmt.Errorf("fsguard: refuse to read %s: %w", filepath.Base(path), ErrSecretFile)
}

func absOrSelf(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}
