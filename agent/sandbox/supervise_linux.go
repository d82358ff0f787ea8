//go:build linux && (amd64 || arm64)

package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/oceancode/oceancode/agent/sandbox/helper"
)

// AgentMarker is the environment variable every supervised command gets:
// "<agent pid>:<agent start time in clock ticks>". Doctor finds processes
// that outlived their agent by it ([Leftovers]).
const AgentMarker = "OCEANCODE_AGENT"

var selfMarker = sync.OnceValue(func() string {
	f, ok := helper.ProcStat(os.Getpid())
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
	r, err := lifeline()
	if err != nil {
		return nil, err
	}
	c, err := supervisorCmd(ctx, argv, env)
	if err != nil {
		return nil, err
	}
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

// supervisorCmd starts argv under the supervisor: the exec helper's (C: no
// Go runtime to start, most of a sandbox-off call's own cost) when it is
// installed, else the Go helper's. Both take the lifeline as descriptor 3.
func supervisorCmd(ctx context.Context, argv, env []string) (*exec.Cmd, error) {
	h := helperSpec{Supervise: true, Lifeline: 3}
	if eh := execHelperPath(); eh != "" {
		args, err := h.ExecArgs()
		if err != nil {
			return nil, err
		}
		c := exec.CommandContext(ctx, eh, append(args, argv...)...)
		c.Env = env
		return c, nil
	}
	helper, err := helperPath()
	if err != nil {
		return nil, err
	}
	helperEnv := h.WithOneProc(env) // before Args: it records the command's own GOMAXPROCS in h
	args := append([]string{HelperArg}, h.Args()...)
	c := exec.CommandContext(ctx, helper, append(args, argv...)...)
	c.Env = helperEnv
	return c, nil
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
		f, ok := helper.ProcStat(pid)
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
	f, ok := helper.ProcStat(pid)
	return ok && f[0] != "Z" && f[0] != "X" && f[19] == start
}
