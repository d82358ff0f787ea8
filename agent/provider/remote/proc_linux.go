package remote

import "syscall"

// sysProcAttr puts the companion in its own process group (a Ctrl-C meant
// for oceancode must not kill a call the parent wants to cancel cleanly)
// and has the kernel kill it if the parent dies without closing the pipe.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
