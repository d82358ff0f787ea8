package secret

import (
	"syscall"
	"time"
)

// threadCPU is the CPU time the calling OS thread has used (user and
// system): a benchmark locked to its thread reports it per operation, a
// figure the other processes of a loaded machine do not inflate as they
// do wall time.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
