//go:build linux && (amd64 || arm64)

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// HelperMain is the helper mode of the oceancode binary: it runs inside
// bubblewrap, applies the resource limits, no_new_privs, the Landlock
// ruleset and the seccomp filter to itself, then execs the command. It
// returns only on failure (the command never runs unconfined: any failure
// to confine is an error). args are the arguments after HelperArg.
func HelperMain(args []string) error {
	h, argv, err := parseHelperArgs(args)
	if err != nil {
		return err
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
		return fmt.Errorf("%w: %s", ErrHelperNotFound, argv[0])
	}
	if h.Landlock {
		if err := applyLandlock(h); err != nil {
			return err
		}
	}
	if err := installSeccomp(h.DenyUnix); err != nil {
		return err
	}
	err = syscall.Exec(path, argv, os.Environ())
	return fmt.Errorf("sandbox: exec %s: %w", argv[0], err)
}

func applyLandlock(h helperSpec) error {
	cfg := landlock.V11
	cfg.HandledAccessNet = 0 // the network namespace confines the network
	cfg = cfg.BestEffort()
	var rules []landlock.Rule
	if len(h.RO) > 0 {
		rules = append(rules, landlock.RODirs(h.RO...).IgnoreIfMissing())
	}
	if len(h.RW) > 0 {
		rules = append(rules, landlock.RWDirs(h.RW...).WithRefer().WithResolveUnix().IgnoreIfMissing())
	}
	if len(h.Dev) > 0 {
		rules = append(rules, landlock.RWDirs(h.Dev...).WithIoctlDev().WithResolveUnix().IgnoreIfMissing())
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
func setLimits(h helperSpec) error {
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
