//go:build linux && (amd64 || arm64)

package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/oceancode/oceancode/agent/sandbox/egress"
	"github.com/oceancode/oceancode/agent/sandbox/helper"
	"github.com/oceancode/oceancode/internal/sibling"
)

// Cmd is a command prepared by Command. Start it with Start (then Wait) or
// Run: Wait releases what the sandbox set up for the command (placeholders
// for missing protected paths, the pids cgroup). Output and CombinedOutput
// of the embedded exec.Cmd skip that release; use Run with buffers instead.
type Cmd struct {
	*exec.Cmd
	// Warnings are the weaker-than-full protections that apply (no
	// Landlock, process limit not enforced, …); show them to the user.
	Warnings []string

	once    sync.Once
	release func()
	cgroup  *pidsCgroup
	// info is bubblewrap's --info-fd pipe (read end; infoW is the write
	// end it inherits); initFD delivers a pidfd of the sandbox's PID 1
	// (-1 when it could not be had).
	info, infoW *os.File
	initFD      chan int
	// block is the write end of bubblewrap's --block-fd (cgroup v1, only
	// when the launcher thread has not joined: migrate): the namespace's
	// PID 1 waits on it, mounts done, before it starts the command, until
	// the runner has moved it into the pids cgroup.
	block, blockR *os.File
	migrate       bool
	cgroupErr     error
}

// Start starts the command (for a root agent, inside its pids cgroup).
func (c *Cmd) Start() error {
	var err error
	switch {
	case c.cgroup == nil, c.migrate:
		// No cgroup, or cgroup v1 without the launcher thread (see
		// Command): start outside it; the namespace's PID 1 is moved in
		// below while bubblewrap sets up the mounts.
		err = c.Cmd.Start()
	default:
		err = c.cgroup.start(c.Cmd)
	}
	closeFiles(c.infoW, c.blockR)
	if err != nil {
		c.Release()
		return err
	}
	if c.info != nil {
		c.initFD = make(chan int, 1)
		go func() {
			pid, fd := namespaceInit(c.info)
			if c.block != nil {
				if pid > 0 {
					if err := c.cgroup.enter(pid); err != nil {
						// Fail closed: the command never starts.
						c.cgroupErr = err
						if fd >= 0 {
							_ = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
						}
						_ = c.Process.Kill()
					}
				}
				if c.cgroupErr == nil {
					_, _ = c.block.Write([]byte{1})
				}
				c.block.Close()
			}
			c.initFD <- fd
		}()
	}
	return nil
}

// Wait waits for the command and releases its sandbox resources. With the
// sandbox on it returns only when every process of the sandbox is gone:
// bubblewrap reports the command's status as soon as the command exits,
// before its PID namespace is torn down, so Wait kills the namespace's
// PID 1 and waits on a pidfd until it has exited, which the kernel lets
// happen only after every other process in the namespace is reaped.
func (c *Cmd) Wait() error {
	err := c.Cmd.Wait()
	c.awaitNamespace()
	c.Release()
	if c.cgroupErr != nil {
		return c.cgroupErr
	}
	return err
}

// awaitNamespace kills the sandbox's PID 1 and waits until it is gone.
func (c *Cmd) awaitNamespace() {
	if c.initFD == nil {
		return
	}
	fd := -1
	select {
	case fd = <-c.initFD:
	case <-time.After(5 * time.Second):
	}
	c.initFD = nil
	c.info.Close()
	if fd < 0 {
		return
	}
	defer unix.Close(fd)
	_ = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
	pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		n, err := unix.Poll(pfd, int(time.Until(deadline)/time.Millisecond)+1)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n > 0 {
			return
		}
	}
}

// namespaceInit reads bubblewrap's info ({"child-pid": N, …}, written right
// after it cloned the namespace's PID 1) and returns a pidfd of that
// process, or -1. The pidfd is opened while bubblewrap, its parent, is
// still alive (it cannot be reaped before bubblewrap reports the command's
// exit); NSpid ending in 1 confirms it is a PID namespace's init. It
// returns the process's pid too (0 when bubblewrap said none).
func namespaceInit(info *os.File) (int, int) {
	var v struct {
		ChildPID int `json:"child-pid"`
	}
	if err := json.NewDecoder(info).Decode(&v); err != nil || v.ChildPID <= 0 {
		// bubblewrap failed before it made the namespace: the next
		// agent probes again rather than trust a cached success.
		forgetProbe()
		return 0, -1
	}
	fd, err := unix.PidfdOpen(v.ChildPID, 0)
	if err != nil {
		return v.ChildPID, -1
	}
	st, err := os.ReadFile("/proc/" + strconv.Itoa(v.ChildPID) + "/status")
	if err == nil {
		for _, line := range strings.Split(string(st), "\n") {
			if rest, ok := strings.CutPrefix(line, "NSpid:"); ok {
				f := strings.Fields(rest)
				if len(f) >= 2 && f[len(f)-1] == "1" {
					return v.ChildPID, fd
				}
			}
		}
	}
	unix.Close(fd)
	return v.ChildPID, -1
}

// Run starts the command and waits for it.
func (c *Cmd) Run() error {
	if err := c.Start(); err != nil {
		return err
	}
	return c.Wait()
}

// Release frees what the sandbox set up for the command; Wait calls it.
// Call it yourself only when the command is never started.
func (c *Cmd) Release() {
	c.once.Do(func() {
		if c.release != nil {
			c.release()
		}
	})
}

// HelperPath, when set, is the executable used as the sandbox helper
// instead of os.Executable() (tests and embedders whose binary does not
// dispatch HelperArg). It must call HelperMain for HelperArg.
var HelperPath string

// HelperBinary is the lean helper's file name: a binary beside the agent's
// own that only applies the confinement and execs (cmd/oceancode-sandbox).
// Re-executing it costs a fraction of re-executing the whole agent, whose
// start-up initialises every linked package (the model SDKs among them).
const HelperBinary = "oceancode-sandbox"

// ExecHelperPath, when set, is the exec helper used instead of the one
// beside os.Executable() (tests; "" and none installed: the Go helper).
var ExecHelperPath string

// execHelperPath is ExecHelperPath, else the exec helper beside this
// executable, else "".
func execHelperPath() string {
	if ExecHelperPath != "" {
		return ExecHelperPath
	}
	self, err := osExecutable()
	if err != nil {
		return ""
	}
	if p, ok := sibling.Find(self, ExecHelperBinary); ok {
		return p
	}
	return ""
}

// Helpers names the helpers the sandbox would run for a command from this
// process: the exec helper ("" when none is installed) and the Go helper
// (doctor shows both).
func Helpers() (execHelper, goHelper string, err error) {
	goHelper, err = helperPath()
	return execHelperPath(), goHelper, err
}

// osExecutable is os.Executable (a variable for the helper-choice test).
var osExecutable = os.Executable

// helperPath picks the helper: HelperPath, else the lean helper beside this
// executable when it is there, else this executable itself (which must
// dispatch HelperArg to HelperMain).
func helperPath() (string, error) {
	if HelperPath != "" {
		return HelperPath, nil
	}
	self, err := osExecutable()
	if err != nil {
		return "", fmt.Errorf("sandbox: locate helper executable: %w", err)
	}
	if lean, ok := sibling.Find(self, HelperBinary); ok {
		return lean, nil
	}
	if strings.HasSuffix(self, ".test") {
		// A Go test binary that did not set HelperPath would run its
		// whole test suite again as the "helper", recursively.
		return "", fmt.Errorf("sandbox: locate helper executable: %s is a test binary: set sandbox.HelperPath and dispatch sandbox.HelperArg in TestMain", self)
	}
	return self, nil
}

// Command prepares argv to run under p with the environment env (the
// composed child environment; nil means empty). An unconfined policy (off
// or danger-full-access) gives a plain command. A confined policy runs the
// command through bubblewrap and the helper, or fails with an error
// wrapping ErrUnavailable when this machine cannot confine it.
func Command(ctx context.Context, p Policy, argv []string, env []string) (*Cmd, error) {
	if len(argv) == 0 {
		return nil, errors.New("sandbox: no command")
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if env == nil {
		env = []string{}
	}
	if !p.Confined() {
		c := exec.CommandContext(ctx, argv[0], argv[1:]...)
		c.Env = env
		c.Dir = p.Dir
		if c.Dir == "" {
			c.Dir = p.Workspace
		}
		return &Cmd{Cmd: c}, nil
	}
	sup := cachedSupport()
	warnings, err := sup.Check(p)
	if err != nil {
		return nil, err
	}
	if err := checkEgress(p); err != nil {
		return nil, err
	}
	helper, err := helperPath()
	if err != nil {
		return nil, err
	}
	penv := Env{Helper: helper, ExecHelper: execHelperPath(), LandlockABI: sup.LandlockABI, Getenv: envLookup(env)}
	pl, err := buildPlan(p, penv)
	if err != nil {
		return nil, err
	}
	// The history as of now goes where the command can only read it (a
	// pack, packed-refs); a packed-refs made just now needs a new plan to
	// be bound read-only.
	symrefs, created, err := keepGitDirs(pl.heads)
	if err != nil {
		return nil, err
	}
	if created {
		if pl, err = buildPlan(p, penv); err != nil {
			return nil, err
		}
	}
	hs := pl.helper
	helperEnv := env
	var helperArgs []string
	if pl.exec {
		if helperArgs, err = hs.ExecArgs(); err != nil {
			return nil, err // a plan bug, never a weaker sandbox
		}
		helperArgs = append([]string{realPath(pl.exe)}, helperArgs...)
	} else {
		helperEnv = hs.WithOneProc(env)
		helperArgs = append([]string{realPath(pl.exe), HelperArg}, hs.Args()...)
	}
	// The seccomp filter for bubblewrap's --seccomp 3, unless the helper
	// loads it itself.
	var seccompR *os.File
	if !hs.Seccomp {
		if seccompR, err = seccompPipe(hs.DenyUnix); err != nil {
			return nil, err
		}
	}
	held, err := acquirePlaceholders(pl.placeholders)
	if err != nil {
		closeFiles(seccompR)
		return nil, err
	}
	info, infoW, err := os.Pipe()
	if err != nil {
		releasePlaceholders(held)
		closeFiles(seccompR)
		return nil, fmt.Errorf("sandbox: info pipe: %w", err)
	}
	var cg *pidsCgroup
	var cgWarning string
	if n := p.EffectiveLimits().Processes; n > 0 && os.Geteuid() == 0 {
		if cg, err = sharedPidsCgroup(n + pidsHeadroom); err != nil {
			cgWarning = "process limit not enforced: " + err.Error()
		}
	}
	// cgroup v1: commands start from the launcher thread, inside the
	// cgroup, once it has joined (at once, normally: see launcher). Else
	// (a kernel where the join is slow, or it failed) the namespace's PID 1
	// is moved in, held on --block-fd until it is.
	migrate := cg != nil && cg.v2fd < 0 && !cg.awaitLauncher(launcherWait)
	var blockR, blockW *os.File
	if migrate {
		if blockR, blockW, err = os.Pipe(); err != nil {
			releasePlaceholders(held)
			closeFiles(seccompR, info, infoW)
			return nil, fmt.Errorf("sandbox: block pipe: %w", err)
		}
	}
	// Descriptors from 3: the seccomp filter (read by bubblewrap's
	// --seccomp 3, unless the helper loads it itself), the info pipe, the
	// block pipe.
	var extra []*os.File
	if seccompR != nil {
		extra = append(extra, seccompR)
	}
	args := append([]string{}, pl.args...)
	// --info-fd tells which process is the namespace's PID 1 (see Wait).
	args = append(args, "--info-fd", strconv.Itoa(3+len(extra)))
	extra = append(extra, infoW)
	if blockR != nil {
		args = append(args, "--block-fd", strconv.Itoa(3+len(extra)))
		extra = append(extra, blockR)
	}
	args = append(args, "--")
	args = append(args, helperArgs...)
	args = append(args, argv...)
	c := exec.CommandContext(ctx, sup.Bwrap, args...)
	c.Env = helperEnv
	c.WaitDelay = 2 * time.Second
	// bubblewrap's --die-with-parent leaves a window before it sets its own
	// parent-death signal; the kernel-side one set between fork and exec
	// closes it.
	c.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	c.ExtraFiles = extra
	cmd := &Cmd{Cmd: c, Warnings: warnings, info: info, infoW: infoW, cgroup: cg, block: blockW, blockR: blockR, migrate: migrate}
	if cgWarning != "" {
		cmd.Warnings = append(cmd.Warnings, cgWarning)
	}
	cmd.release = func() {
		restoreHeads(pl.heads)
		restoreRefFiles(symrefs)
		// What the command committed is kept at once, and a ref it broke
		// shows its packed value again (the next command would do both
		// before it starts; git outside sees them now).
		_, _, _ = keepGitDirs(pl.heads)
		releasePlaceholders(held)
		closeFiles(info, infoW, blockR, blockW, seccompR)
	}
	return cmd, nil
}

// closeFiles closes the files that are not nil.
func closeFiles(fs ...*os.File) {
	for _, f := range fs {
		if f != nil {
			f.Close()
		}
	}
}

// seccompPipe is a pipe holding the seccomp filter for bubblewrap's
// --seccomp (read end; the filter is far below the pipe's capacity, so
// the write never blocks).
func seccompPipe(denyUnix bool) (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("sandbox: seccomp pipe: %w", err)
	}
	_, err = w.Write(helper.SeccompFilter(denyUnix))
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("sandbox: write the seccomp filter: %w", err)
	}
	return r, nil
}

// checkEgress refuses a network allowlist policy without a started egress
// proxy enforcing exactly its AllowHosts.
func checkEgress(p Policy) error {
	if p.EffectiveNetwork() != NetworkAllowlist {
		return nil
	}
	if p.Egress == nil || p.Egress.SocketPath() == "" {
		return fmt.Errorf("sandbox: %w: start an egress.Proxy for the session and set Policy.Egress", ErrNoEgressProxy)
	}
	want, err := egress.ParseAllowList(p.AllowHosts)
	if err != nil {
		return fmt.Errorf("sandbox: %w: %w", ErrInvalidPolicy, err)
	}
	a, b := want.Strings(), p.Egress.AllowList().Strings()
	sort.Strings(a)
	sort.Strings(b)
	if strings.Join(a, " ") != strings.Join(b, " ") {
		return fmt.Errorf("sandbox: %w: the proxy allows [%s] but sandbox.allow_hosts is [%s]", ErrNoEgressProxy, strings.Join(b, " "), strings.Join(a, " "))
	}
	return nil
}

// pidsHeadroom covers bubblewrap's own processes and the helper's threads.
const pidsHeadroom = 16

func envLookup(env []string) func(string) string {
	return func(k string) string {
		for i := len(env) - 1; i >= 0; i-- {
			if v, ok := strings.CutPrefix(env[i], k+"="); ok {
				return v
			}
		}
		return ""
	}
}

// heldPlaceholder is a placeholder this process holds a shared lock on
// while a command runs. The lock protocol makes removal safe across agent
// processes: a placeholder is removed only by a holder that can take the
// exclusive lock, i.e. when no other sandbox still has it mounted.
type heldPlaceholder struct {
	path string
	fd   int
	dir  bool
	dev  uint64
	ino  uint64
}

func acquirePlaceholders(phs []placeholder) ([]heldPlaceholder, error) {
	var held []heldPlaceholder
	for _, ph := range phs {
		h, err := acquirePlaceholder(ph)
		if err != nil {
			releasePlaceholders(held)
			return nil, err
		}
		held = append(held, h)
	}
	return held, nil
}

func acquirePlaceholder(ph placeholder) (heldPlaceholder, error) {
	for attempt := 0; attempt < 20; attempt++ {
		var err error
		if ph.Dir {
			err = unix.Mkdir(ph.Path, 0o755)
		} else {
			var fd int
			fd, err = unix.Open(ph.Path, unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0o444)
			if err == nil {
				unix.Close(fd)
			}
		}
		if err != nil && !errors.Is(err, unix.EEXIST) {
			return heldPlaceholder{}, fmt.Errorf("sandbox: create placeholder for protected path %s: %w", ph.Path, err)
		}
		fd, err := unix.Open(ph.Path, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			if errors.Is(err, unix.ENOENT) {
				continue
			}
			return heldPlaceholder{}, fmt.Errorf("sandbox: open placeholder %s: %w", ph.Path, err)
		}
		if err := unix.Flock(fd, unix.LOCK_SH); err != nil {
			unix.Close(fd)
			return heldPlaceholder{}, fmt.Errorf("sandbox: lock placeholder %s: %w", ph.Path, err)
		}
		var fst, pst unix.Stat_t
		if unix.Fstat(fd, &fst) != nil || unix.Lstat(ph.Path, &pst) != nil || fst.Dev != pst.Dev || fst.Ino != pst.Ino {
			// Removed (and maybe recreated) between open and lock: retry.
			unix.Close(fd)
			continue
		}
		return heldPlaceholder{path: ph.Path, fd: fd, dir: fst.Mode&unix.S_IFMT == unix.S_IFDIR, dev: fst.Dev, ino: fst.Ino}, nil
	}
	return heldPlaceholder{}, fmt.Errorf("sandbox: placeholder %s keeps changing", ph.Path)
}

func releasePlaceholders(held []heldPlaceholder) {
	for _, h := range held {
		if unix.Flock(h.fd, unix.LOCK_EX|unix.LOCK_NB) == nil {
			var st unix.Stat_t
			if unix.Lstat(h.path, &st) == nil && st.Dev == h.dev && st.Ino == h.ino {
				if h.dir {
					_ = unix.Rmdir(h.path) // fails when not empty: then it is real content
				} else if st.Size == 0 {
					_ = unix.Unlink(h.path)
				}
			}
		}
		unix.Close(h.fd)
	}
}

// pidsCgroup bounds the number of tasks of the sandboxed commands when the
// agent runs as root (RLIMIT_NPROC does not bind root). There is one per
// agent process and limit, shared by its commands: the bound is on all of
// that agent's sandboxed processes at once. Commands are started from a
// launcher thread that lives inside the cgroup (cgroup v1: membership is
// per thread and inherited at fork) or with CLONE_INTO_CGROUP (v2), so no
// per-command cgroup migration (which costs milliseconds) is needed.
type pidsCgroup struct {
	dir  string
	v2fd int         // v2: directory fd for CLONE_INTO_CGROUP; -1 for v1
	reqs chan func() // v1: run on the launcher thread
	// v1: closed once the launcher thread is in the cgroup (joinErr nil)
	// or has failed to join. Until then commands start outside it and
	// their namespace's PID 1 is moved in (enter) before it may go on.
	joined  chan struct{}
	joinErr error
}

// launcherWait bounds how long Start waits for the v1 launcher thread to
// join before it takes the migration path instead. The join is a thread
// moving itself (tasks ← "0"), which the kernel does without the global
// threadgroup lock: tens of microseconds.
var launcherWait = 2 * time.Millisecond

// awaitLauncher waits up to d for the v1 launcher thread and says whether
// it is in the cgroup.
func (cg *pidsCgroup) awaitLauncher(d time.Duration) bool {
	select {
	case <-cg.joined:
		return cg.joinErr == nil
	default:
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-cg.joined:
		return cg.joinErr == nil
	case <-t.C:
		return false
	}
}

// enter moves process pid (all its threads) into the v1 cgroup.
func (cg *pidsCgroup) enter(pid int) error {
	if err := os.WriteFile(filepath.Join(cg.dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0); err != nil {
		return fmt.Errorf("sandbox: enter pids cgroup %s: %w", cg.dir, err)
	}
	return nil
}

var (
	cgroupMu sync.Mutex
	cgroups  = map[int]*pidsCgroup{}
)

func pidsCgroupKind() string {
	if data, err := os.ReadFile("/sys/fs/cgroup/cgroup.controllers"); err == nil && strings.Contains(" "+string(data)+" ", " pids") {
		if unix.Access("/sys/fs/cgroup", unix.W_OK) == nil {
			return "v2"
		}
	}
	if _, err := os.Stat("/sys/fs/cgroup/pids/tasks"); err == nil && unix.Access("/sys/fs/cgroup/pids", unix.W_OK) == nil {
		return "v1"
	}
	return ""
}

// sweepStaleCgroups removes the empty cgroups left by agents that exited.
func sweepStaleCgroups(parent string) {
	ents, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), "oceancode-sandbox-")
		if !ok || !e.IsDir() {
			continue
		}
		pidText, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid == os.Getpid() || unix.Kill(pid, 0) == nil {
			continue
		}
		_ = unix.Rmdir(filepath.Join(parent, e.Name())) // fails while tasks remain
	}
}

// sharedPidsCgroup returns this agent's cgroup for limit, creating it.
func sharedPidsCgroup(limit int) (*pidsCgroup, error) {
	cgroupMu.Lock()
	defer cgroupMu.Unlock()
	if cg := cgroups[limit]; cg != nil {
		return cg, nil
	}
	kind := pidsCgroupKind()
	parent := "/sys/fs/cgroup/pids"
	if kind == "v2" {
		parent = "/sys/fs/cgroup"
	}
	if len(cgroups) == 0 && kind != "" {
		sweepStaleCgroups(parent)
	}
	dir := filepath.Join(parent, fmt.Sprintf("oceancode-sandbox-%d-%d", os.Getpid(), limit))
	var cg *pidsCgroup
	switch kind {
	case "v2":
		sc, _ := os.ReadFile("/sys/fs/cgroup/cgroup.subtree_control")
		if !strings.Contains(string(sc), "pids") {
			if err := os.WriteFile("/sys/fs/cgroup/cgroup.subtree_control", []byte("+pids"), 0); err != nil {
				return nil, fmt.Errorf("enable pids controller: %w", err)
			}
		}
		if err := mkCgroup(dir, limit); err != nil {
			return nil, err
		}
		fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			unix.Rmdir(dir)
			return nil, fmt.Errorf("open pids cgroup: %w", err)
		}
		cg = &pidsCgroup{dir: dir, v2fd: fd}
	case "v1":
		if err := mkCgroup(dir, limit); err != nil {
			return nil, err
		}
		// The launcher joins in the background: a one-shot agent never
		// waits for it (see Cmd.Start).
		cg = &pidsCgroup{dir: dir, v2fd: -1, reqs: make(chan func()), joined: make(chan struct{})}
		go cg.launcher()
	default:
		return nil, errors.New("running as root (exempt from RLIMIT_NPROC) and no writable pids cgroup")
	}
	cgroups[limit] = cg
	return cg, nil
}

func mkCgroup(dir string, limit int) error {
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("create pids cgroup: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pids.max"), []byte(strconv.Itoa(limit)), 0); err != nil {
		unix.Rmdir(dir)
		return fmt.Errorf("set pids.max: %w", err)
	}
	return nil
}

// launcher owns an OS thread moved into the v1 cgroup for good; it never
// unlocks it (the thread must not run other goroutines, and must not exit:
// the children's parent-death signal is tied to the thread that forked
// them). The thread moves itself by writing "0" (the writing thread) to
// tasks: a migration of the current thread alone is the one the kernel
// makes without taking the global threadgroup lock for writing (as the
// Linux 6.18 this was measured on does), so it waits for no RCU grace
// period and holds up no fork: ≈ 0.06 ms, where writing its thread id
// costs a grace period, 5–9 ms. A kernel that still takes the lock makes
// the join slow, not unsafe: Start then moves the namespace's PID 1 in.
func (cg *pidsCgroup) launcher() {
	runtime.LockOSThread()
	if err := os.WriteFile(filepath.Join(cg.dir, "tasks"), []byte("0"), 0); err != nil {
		cg.joinErr = fmt.Errorf("enter pids cgroup: %w", err)
		close(cg.joined)
		select {} // this thread may be half-moved: keep it parked
	}
	close(cg.joined)
	for f := range cg.reqs {
		f()
	}
}

// start starts cmd inside the cgroup.
func (cg *pidsCgroup) start(cmd *exec.Cmd) error {
	if cg.v2fd >= 0 {
		if cmd.SysProcAttr == nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{}
		}
		cmd.SysProcAttr.UseCgroupFD = true
		cmd.SysProcAttr.CgroupFD = cg.v2fd
		return cmd.Start()
	}
	done := make(chan error, 1)
	cg.reqs <- func() { done <- cmd.Start() }
	return <-done
}
