package prestart

import "syscall"

// sysProcAttr: Windows has no process groups of the Unix kind; the child
// is ended through its handle (Proc.Kill).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{}
}
