//go:build linux && (amd64 || arm64)

package helper

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The supervisor is the helper in --supervise mode: the sandbox-off runs of
// the bash tool start each command under it, so that the command's whole
// process tree ends with the command, and with the agent even when the
// agent is killed with SIGKILL.
//
//   - It is a child subreaper (PR_SET_CHILD_SUBREAPER): every process the
//     command leaves behind — background jobs, double forks, setsid and
//     nohup daemons — is re-parented to it when its parent exits, so the
//     whole tree stays below it.
//   - It reads the agent's lifeline, a pipe whose only write end the agent
//     holds for its whole life (close-on-exec, never passed to a child).
//     End of file means the agent is gone, however it died.
//   - When the command exits, on SIGTERM/SIGINT/SIGHUP, or when the lifeline
//     ends, it kills every descendant with SIGKILL (found from /proc by
//     parent links, repeated until it has no child left to reap), then
//     exits with the command's status (re-raising the command's signal).

// supervise runs argv under the supervisor; it returns only on a failure to
// start (the process exits from here otherwise).
func supervise(argv []string, lifeline int) error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("sandbox supervisor: become a subreaper: %w", err)
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return fmt.Errorf("%w: %s", ErrNotFound, argv[0])
	}
	stop := make(chan os.Signal, 4)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{Env: os.Environ(), Files: []uintptr{0, 1, 2}})
	if err != nil {
		return fmt.Errorf("sandbox supervisor: start %s: %w", argv[0], err)
	}
	gone := make(chan struct{})
	go func() {
		buf := make([]byte, 64)
		for {
			n, err := unix.Read(lifeline, buf)
			if err == unix.EINTR || (err == nil && n > 0) {
				continue
			}
			close(gone)
			return
		}
	}()
	// The reaper takes every child (the command and the orphans handed to
	// this subreaper) and says when none is left.
	cmdDone := make(chan unix.WaitStatus, 1)
	empty := make(chan struct{})
	go func() {
		for {
			var ws unix.WaitStatus
			p, err := unix.Wait4(-1, &ws, 0, nil)
			if err == unix.EINTR {
				continue
			}
			if err != nil {
				close(empty)
				return
			}
			if p == pid {
				cmdDone <- ws
			}
		}
	}()
	var status unix.WaitStatus
	killed := false
	select {
	case status = <-cmdDone:
	case <-gone:
		killed = true
	case <-stop:
		killed = true
	}
	killTree(empty)
	if killed {
		os.Exit(128 + int(syscall.SIGKILL))
	}
	if status.Signaled() {
		sig := status.Signal()
		switch sig {
		case syscall.SIGSEGV, syscall.SIGBUS, syscall.SIGFPE, syscall.SIGILL, syscall.SIGTRAP, syscall.SIGQUIT, syscall.SIGABRT, syscall.SIGSYS:
			// The Go runtime owns these: report by status only.
		default:
			signal.Reset(sig)
			_ = unix.Kill(os.Getpid(), sig)
			time.Sleep(100 * time.Millisecond)
		}
		os.Exit(128 + int(sig))
	}
	os.Exit(status.ExitStatus())
	return nil
}

// killTree SIGKILLs every descendant of this process until the reaper has
// no child left (empty is closed).
func killTree(empty <-chan struct{}) {
	// The reaper closes empty as soon as this process has no child left:
	// then it has no descendant either (an orphan below it is re-parented
	// to it, a subreaper, and is its child), and there is nothing to look
	// for in /proc — the common case, a command that left nothing behind.
	select {
	case <-empty:
		return
	case <-time.After(time.Millisecond):
	}
	for {
		for _, p := range descendants(os.Getpid()) {
			_ = unix.Kill(p, unix.SIGKILL)
		}
		select {
		case <-empty:
			return
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// descendants lists the processes below pid, from the parent links in
// /proc/<pid>/stat.
func descendants(pid int) []int {
	children := map[int][]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp, ok := parentOf(p); ok {
			children[pp] = append(children[pp], p)
		}
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// ProcStat returns the fields of /proc/<pid>/stat after the command name
// (f[0] is the state, f[1] the parent, f[19] the start time in ticks).
func ProcStat(pid int) ([]string, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return nil, false
	}
	return f, true
}

func parentOf(pid int) (int, bool) {
	f, ok := ProcStat(pid)
	if !ok {
		return 0, false
	}
	pp, err := strconv.Atoi(f[1])
	return pp, err == nil
}
