//go:build linux

// Package secretenvtest helps tests that run a process as root and as an
// unprivileged user (nobody, uid 65534) to prove what a child can read of
// its parent.
package secretenvtest

import (
	"os"
	"syscall"
	"testing"
)

// User is who a process under test runs as.
type User struct {
	Name string
	Cred *syscall.Credential // nil: the test's own (root)
}

// Users are root and nobody.
var Users = []User{{"root", nil}, {"nobody", &syscall.Credential{Uid: 65534, Gid: 65534}}}

// Chown gives path to u (nothing for root).
func (u User) Chown(path string) error {
	if u.Cred == nil {
		return nil
	}
	return os.Lchown(path, int(u.Cred.Uid), int(u.Cred.Gid))
}

// Dir returns a new directory, removed at the end of the test, that every
// user may enter (a t.TempDir is root's alone). It fails the test unless
// it runs as root, which running as another user needs.
func Dir(t testing.TB, prefix string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatal("this test runs as root (it runs processes as uid 65534 too)")
	}
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}
