// Package exechelper builds the sandbox's exec helper
// (cmd/oceancode-sandbox-exec, a C program) for tests, with the same
// script make build uses (scripts/build-exec-helper.sh), so the tests run
// the helper users get rather than the Go fallback. It imports only the
// standard library.
package exechelper

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

var (
	once  sync.Once
	built string
	err   error
)

// Build compiles the exec helper once per process into a temporary
// directory and returns its path. The error says what to install when
// there is no C compiler. Remove the directory with Cleanup.
func Build() (string, error) {
	once.Do(func() {
		root, e := moduleRoot()
		if e != nil {
			err = e
			return
		}
		dir, e := os.MkdirTemp("", "oceancode-exec-helper-")
		if e != nil {
			err = fmt.Errorf("exechelper: %w", e)
			return
		}
		out := filepath.Join(dir, "oceancode-sandbox-exec")
		b, e := exec.Command("sh", filepath.Join(root, "scripts", "build-exec-helper.sh"), out).CombinedOutput()
		if e != nil {
			os.RemoveAll(dir)
			err = fmt.Errorf("exechelper: build cmd/oceancode-sandbox-exec: %v: %s", e, strings.TrimSpace(string(b)))
			return
		}
		built = out
	})
	return built, err
}

// Cleanup removes what Build made (call it after the tests ran).
func Cleanup() {
	if built != "" {
		os.RemoveAll(filepath.Dir(built))
	}
}

// moduleRoot is the nearest directory above the working directory (a
// package directory, under go test) that holds go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("exechelper: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("exechelper: no go.mod above the working directory")
		}
		dir = parent
	}
}
