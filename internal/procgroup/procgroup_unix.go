//go:build unix

// Package procgroup starts a child as the leader of its own process group
// and ends the whole group: a command's or a server's descendants go with
// it. On systems without Unix process groups both are no-ops (the caller
// ends the child through its handle).
package procgroup

import (
	"os/exec"
	"syscall"
)

// Own makes cmd the leader of a new process group, keeping whatever else
// its SysProcAttr asks for (the sandbox's parent-death signal).
func Own(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pgid = 0
}

// Kill kills the process group led by pid with SIGKILL; a group already
// gone is not an error.
func Kill(pid int) error {
	if pid <= 0 {
		return nil
	}
	err := syscall.Kill(-pid, syscall.SIGKILL)
	if err == syscall.ESRCH {
		return nil
	}
	return err
}
