package session

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"sync"
)

var bootID = sync.OnceValue(func() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(b))
})

// stat reads the state and start time (clock ticks after boot) of a process
// from /proc/<pid>/stat.
func stat(pid int) (state byte, start string, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, "", false
	}
	// "pid (comm) state ppid …": comm may hold spaces and parentheses, so
	// the fields are counted from the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, "", false
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state); starttime is field 22.
	if len(f) < 20 {
		return 0, "", false
	}
	return f[0][0], f[19], true
}

// startOf identifies the start of process pid: boot id and start time, so
// neither a reused pid nor a reboot is taken for the same process.
func startOf(pid int) (string, bool) {
	_, st, ok := stat(pid)
	if !ok {
		return "", false
	}
	return "linux:" + bootID() + ":" + st, true
}

// alive reports whether the process that recorded (pid, start) is still
// running. A zombie is dead. A start recorded without /proc (not "linux:")
// cannot be checked, so any live pid counts.
func alive(pid int, start string) bool {
	if pid <= 0 {
		return false
	}
	state, st, ok := stat(pid)
	if !ok || state == 'Z' || state == 'X' {
		return false
	}
	if !strings.HasPrefix(start, "linux:") {
		return true
	}
	return start == "linux:"+bootID()+":"+st
}
