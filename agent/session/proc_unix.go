//go:build unix && !linux

package session

import (
	"errors"
	"syscall"
)

// startOf has no portable source here; the caller records the claim time.
func startOf(int) (string, bool) { return "", false }

// alive reports whether pid is a live process. Without a start time to
// compare, a reused pid counts as alive: a session is never called an
// orphan while its pid runs.
func alive(pid int, _ string) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
