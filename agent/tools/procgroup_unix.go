//go:build unix

package tools

import (
	"os/exec"
	"syscall"

	"github.com/oceancode/oceancode/internal/procgroup"
)

// ownGroup makes cmd the leader of a new process group.
func ownGroup(cmd *exec.Cmd) { procgroup.Own(cmd) }

// killGroup kills the process group led by pid with SIGKILL.
func killGroup(pid int) error { return procgroup.Kill(pid) }

// signalOf says which signal ended a process, if one did.
func signalOf(ps *exec.ExitError) (string, bool) {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ws.Signal().String(), true
	}
	return "", false
}
