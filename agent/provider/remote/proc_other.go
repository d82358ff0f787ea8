//go:build !linux

package remote

import "syscall"

// sysProcAttr puts the companion in its own process group (a Ctrl-C meant
// for oceancode must not kill a call the parent wants to cancel cleanly).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
