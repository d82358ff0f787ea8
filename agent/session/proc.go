package session

import (
	"os"
	"strconv"
	"sync"
	"time"
)

type process struct {
	pid   int
	start string
}

var selfOnce = sync.OnceValue(func() process {
	pid := os.Getpid()
	start, ok := startOf(pid)
	if !ok {
		start = "claim:" + strconv.FormatInt(time.Now().UnixNano(), 10)
	}
	return process{pid, start}
})

// self is this process as recorded in a session's holder.
func self() process { return selfOnce() }

// heldByOther reports whether the holder (pid, start) is a live process
// other than this one.
func heldByOther(pid int, start string) bool {
	me := self()
	if pid == me.pid && start == me.start {
		return false
	}
	return alive(pid, start)
}
