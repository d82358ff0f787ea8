//go:build !unix

package session

import "os"

// startOf has no portable source here; the caller records the claim time.
func startOf(int) (string, bool) { return "", false }

// alive reports whether pid is a live process, as far as os.FindProcess can
// tell (on Windows it opens the process). A reused pid counts as alive.
func alive(pid int, _ string) bool {
	if pid <= 0 {
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}
