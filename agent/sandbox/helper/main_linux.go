//go:build linux && (amd64 || arm64)

package helper

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"

	"github.com/oceancode/oceancode/agent/sandbox/egress/tunnel"
)

// Main is the helper: it runs inside bubblewrap, applies the resource
// limits, no_new_privs and the Landlock ruleset to itself (the seccomp
// filter too when Spec.Seccomp; otherwise bubblewrap loaded it), then execs
// the command. It returns only on failure (the command never runs
// unconfined: any failure to confine is an error). args are the arguments
// after Arg.
//
// With network allowlist (--egress) the helper does not exec: it listens on
// 127.0.0.1 inside the sandbox's network namespace, points the command's
// proxy variables there, and forwards each connection to the egress
// proxy's socket from goroutines on other threads, while the confined
// thread starts the command as its child (inheriting Landlock and seccomp)
// and waits for it. It then returns *ExitStatus with the command's status.
// The helper is made non-dumpable first, so the command cannot ptrace it
// or read its memory.
func Main(args []string) error {
	h, argv, err := Parse(args)
	if err != nil {
		return err
	}
	if err := restoreMaxProcs(h); err != nil {
		return err
	}
	// Only 0, 1 and 2 reach the command: whatever else this process holds
	// (bubblewrap's descriptors, anything inherited from the agent or its
	// parent) is closed at exec.
	if err := cloexecAbove2(); err != nil {
		return err
	}
	if h.Supervise {
		return supervise(argv, h.Lifeline)
	}
	// Landlock and seccomp are applied to this thread only; it must be the
	// one that execs.
	runtime.LockOSThread()

	if err := setLimits(h); err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("sandbox: set no_new_privs: %w", err)
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return fmt.Errorf("%w: %s", ErrNotFound, argv[0])
	}
	env := os.Environ()
	if h.Egress != "" {
		if env, err = startForwarder(h.Egress, env); err != nil {
			return err
		}
	}
	if h.Landlock != nil {
		if err := applyLandlock(h.Landlock); err != nil {
			return err
		}
	}
	if h.Seccomp {
		if err := installSeccomp(h.DenyUnix); err != nil {
			return err
		}
	}
	if h.Egress != "" {
		return runChild(path, argv, env)
	}
	err = syscall.Exec(path, argv, env)
	return fmt.Errorf("sandbox: exec %s: %w", argv[0], err)
}

// restoreMaxProcs gives the environment back the command's own GOMAXPROCS
// (the helper itself was started with 1, see Spec.OneProc), and the
// forwarder of a network allowlist, which stays alive, all the CPUs.
func restoreMaxProcs(h Spec) error {
	if !h.OneProc {
		return nil
	}
	var err error
	if h.HasMaxProcs {
		err = os.Setenv(maxProcsVar, h.MaxProcs)
	} else {
		err = os.Unsetenv(maxProcsVar)
	}
	if err != nil {
		return fmt.Errorf("sandbox: restore %s: %w", maxProcsVar, err)
	}
	if h.Egress != "" {
		runtime.GOMAXPROCS(runtime.NumCPU())
	}
	return nil
}

// cloexecAbove2 marks every descriptor above 2 close-on-exec:
// close_range(2) with CLOSE_RANGE_CLOEXEC (Linux 5.11), else one by one
// from /proc/self/fd. It fails closed.
func cloexecAbove2() error {
	if err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err == nil {
		return nil
	}
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return fmt.Errorf("sandbox: close inherited descriptors: %w", err)
	}
	for _, e := range ents {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd < 3 {
			continue
		}
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC); err != nil && err != unix.EBADF {
			return fmt.Errorf("sandbox: close inherited descriptor %d: %w", fd, err)
		}
	}
	return nil
}

// proxyVars are the variables pointed at the forwarder; NO_PROXY keeps the
// sandbox's own loopback direct.
var proxyVars = []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"}

// withProxyEnv sets the proxy variables for a forwarder on port, replacing
// any inherited ones (a host proxy is unreachable from the namespace).
func withProxyEnv(env []string, port int) []string {
	drop := map[string]bool{"NO_PROXY": true, "no_proxy": true}
	for _, k := range proxyVars {
		drop[k] = true
	}
	out := make([]string, 0, len(env)+len(proxyVars)+2)
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if !drop[k] {
			out = append(out, kv)
		}
	}
	u := tunnel.ProxyURL(port)
	for _, k := range proxyVars {
		out = append(out, k+"="+u)
	}
	return append(out, "NO_PROXY=localhost,127.0.0.1,::1", "no_proxy=localhost,127.0.0.1,::1")
}

// startForwarder listens on 127.0.0.1 in the sandbox's network namespace
// and serves the forwarder to the proxy socket from another thread. It
// makes the helper non-dumpable first.
func startForwarder(socket string, env []string) ([]string, error) {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return nil, fmt.Errorf("sandbox: make the helper non-dumpable: %w", err)
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("sandbox: listen for the egress forwarder: %w", err)
	}
	go tunnel.Forward(ln, socket)
	return withProxyEnv(env, ln.Addr().(*net.TCPAddr).Port), nil
}

// runChild starts the command from this (confined, locked) thread, so it
// inherits the Landlock domain and the seccomp filter, and waits for it.
func runChild(path string, argv, env []string) error {
	proc, err := os.StartProcess(path, argv, &os.ProcAttr{Env: env, Files: []*os.File{os.Stdin, os.Stdout, os.Stderr}})
	if err != nil {
		return fmt.Errorf("sandbox: start %s: %w", argv[0], err)
	}
	st, err := proc.Wait()
	if err != nil {
		return fmt.Errorf("sandbox: wait for %s: %w", argv[0], err)
	}
	ws, ok := st.Sys().(syscall.WaitStatus)
	if ok && ws.Signaled() {
		return &ExitStatus{Code: 128 + int(ws.Signal())}
	}
	return &ExitStatus{Code: st.ExitCode()}
}

// applyLandlock enforces r on this thread through go-landlock (exactly
// r: the downgrade to the kernel's ABI was done by NewRuleset; a kernel
// that cannot enforce r is an error).
func applyLandlock(r *Ruleset) error {
	cfg := landlock.Config{HandledAccessFS: landlock.AccessFSSet(r.FS), Scoped: landlock.ScopedSet(r.Scoped)}
	rules := make([]landlock.Rule, 0, len(r.Rules))
	for _, pr := range r.Rules {
		rules = append(rules, landlock.PathAccess(landlock.AccessFSSet(pr.Access), pr.Path).IgnoreIfMissing())
	}
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		return fmt.Errorf("sandbox: build landlock ruleset: %w", err)
	}
	if fd < 0 {
		return fmt.Errorf("sandbox: landlock requested but the kernel does not support it")
	}
	defer unix.Close(fd)
	if err := llsyscall.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("sandbox: enforce landlock ruleset: %w", err)
	}
	return nil
}

// setLimits lowers the resource limits (soft and hard) to the spec's values;
// a limit already lower is kept.
func setLimits(h Spec) error {
	for _, l := range []struct {
		res  int
		name string
		v    uint64
	}{
		{unix.RLIMIT_NPROC, "processes", h.NProc},
		{unix.RLIMIT_AS, "address space", h.AS},
		{unix.RLIMIT_FSIZE, "file size", h.FSize},
		{unix.RLIMIT_NOFILE, "open files", h.NoFile},
	} {
		if l.v == 0 {
			continue
		}
		var cur syscall.Rlimit
		if err := syscall.Getrlimit(l.res, &cur); err != nil {
			return fmt.Errorf("sandbox: read %s limit: %w", l.name, err)
		}
		v := l.v
		if cur.Max < v {
			v = cur.Max
		}
		// syscall.Setrlimit (not unix.) so the Go runtime does not restore
		// its saved RLIMIT_NOFILE at exec.
		if err := syscall.Setrlimit(l.res, &syscall.Rlimit{Cur: v, Max: v}); err != nil {
			return fmt.Errorf("sandbox: set %s limit: %w", l.name, err)
		}
	}
	return nil
}
