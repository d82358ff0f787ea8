//go:build linux && (amd64 || arm64)

package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
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
		return fmt.Errorf("%w: %s", ErrHelperNotFound, argv[0])
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

// procStat returns the fields of /proc/<pid>/stat after the command name
// (f[0] is the state, f[1] the parent, f[19] the start time in ticks).
func procStat(pid int) ([]string, bool) {
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
	f, ok := procStat(pid)
	if !ok {
		return 0, false
	}
	pp, err := strconv.Atoi(f[1])
	return pp, err == nil
}

// AgentMarker is the environment variable every supervised command gets:
// "<agent pid>:<agent start time in clock ticks>". Doctor finds processes
// that outlived their agent by it ([Leftovers]).
const AgentMarker = "OCEANCODE_AGENT"

var selfMarker = sync.OnceValue(func() string {
	f, ok := procStat(os.Getpid())
	if !ok {
		return strconv.Itoa(os.Getpid()) + ":0"
	}
	return strconv.Itoa(os.Getpid()) + ":" + f[19]
})

// The lifeline: one pipe per agent process. The write end stays open (and
// referenced, so no finalizer closes it) until the process ends; each
// supervisor gets the read end.
var (
	lifelineOnce sync.Once
	lifelineR    *os.File
	lifelineW    *os.File
	lifelineErr  error
)

func lifeline() (*os.File, error) {
	lifelineOnce.Do(func() {
		lifelineR, lifelineW, lifelineErr = os.Pipe()
		if lifelineErr != nil {
			lifelineErr = fmt.Errorf("sandbox: lifeline pipe: %w", lifelineErr)
		}
	})
	return lifelineR, lifelineErr
}

// Supervised is Command for the bash tool: a confined policy runs exactly as
// Command runs it (the PID namespace ends the whole tree); an unconfined one
// (sandbox off, danger-full-access) runs under the supervisor, so the
// command's whole process tree — setsid and double-forked daemons included —
// ends when the command exits, when the returned Cmd is cancelled (its
// Cancel sends SIGTERM to the supervisor, which kills the tree), and when
// the agent dies, SIGKILL included. Either way the child environment gets
// AgentMarker. Cmd.Process is the supervisor, leader of its own process
// group.
func Supervised(ctx context.Context, p Policy, argv []string, env []string) (*Cmd, error) {
	if len(argv) == 0 {
		return nil, errors.New("sandbox: no command")
	}
	env = append(append([]string{}, env...), AgentMarker+"="+selfMarker())
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if p.Confined() {
		return Command(ctx, p, argv, env)
	}
	helper, err := helperPath()
	if err != nil {
		return nil, err
	}
	r, err := lifeline()
	if err != nil {
		return nil, err
	}
	h := helperSpec{Supervise: true, Lifeline: 3}
	args := append([]string{HelperArg}, h.args()...)
	c := exec.CommandContext(ctx, helper, append(args, argv...)...)
	c.Env = env
	c.Dir = p.Dir
	if c.Dir == "" {
		c.Dir = p.Workspace
	}
	c.ExtraFiles = []*os.File{r}
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Cancel = func() error { return c.Process.Signal(syscall.SIGTERM) }
	c.WaitDelay = 2 * time.Second
	return &Cmd{Cmd: c}, nil
}

// Leftover is a process started by an agent that is gone.
type Leftover struct {
	PID int `json:"pid"`
	// Command is its command line.
	Command string `json:"command"`
	// AgentPID is the pid of the agent that started it.
	AgentPID int `json:"agent_pid"`
	// AgentStart is that agent's start time in clock ticks after boot.
	AgentStart string `json:"agent_start"`
}

// Leftovers lists the live processes whose AgentMarker names an agent that
// is no longer running (its pid is gone or runs a later process). Processes
// whose environment this user cannot read are not seen.
func Leftovers() []Leftover {
	var out []Leftover
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		f, ok := procStat(pid)
		if !ok || f[0] == "Z" || f[0] == "X" {
			continue
		}
		envb, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil {
			continue
		}
		var marker string
		for _, kv := range bytes.Split(envb, []byte{0}) {
			if v, ok := bytes.CutPrefix(kv, []byte(AgentMarker+"=")); ok {
				marker = string(v)
			}
		}
		a, start, ok := strings.Cut(marker, ":")
		apid, err := strconv.Atoi(a)
		if !ok || err != nil || agentAlive(apid, start) {
			continue
		}
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		out = append(out, Leftover{PID: pid, Command: strings.TrimSpace(string(bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '}))), AgentPID: apid, AgentStart: start})
	}
	return out
}

func agentAlive(pid int, start string) bool {
	f, ok := procStat(pid)
	return ok && f[0] != "Z" && f[0] != "X" && f[19] == start
}
