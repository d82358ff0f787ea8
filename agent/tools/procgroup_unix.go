//go:build unix

package tools

import (
	"os/exec"
	"syscall"
)

// ownGroup makes cmd the leader of a new process group, keeping whatever
// else its SysProcAttr asks for (the sandbox's parent-death signal).
func ownGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pgid = 0
}

// killGroup kills the process group led by pid with SIGKILL.
func killGroup(pid int) error {
	if pid <= 0 {
		return nil
	}
	err := syscall.Kill(-pid, syscall.SIGKILL)
	if err == syscall.ESRCH {
		return nil
	}
	return err
}

// signalOf says which signal ended a process, if one did.
func signalOf(ps *exec.ExitError) (string, bool) {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ws.Signal().String(), true
	}
	return "", false
}
