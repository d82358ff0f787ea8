// Package sibling finds the companion programs installed beside oceancode
// (oceancode-model, oceancode-sandbox): one rule for all of them, so they
// are found the same way. It imports only os and path/filepath, because
// internal/prestart uses it while the program is still initialising.
package sibling

import (
	"os"
	"path/filepath"
)

// Find returns the path of name in the directory of the executable self
// when it is a regular file someone may execute.
func Find(self, name string) (string, bool) {
	p := filepath.Join(filepath.Dir(self), name)
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0 {
		return "", false
	}
	return p, true
}
