//go:build linux && (amd64 || arm64)

package sandbox

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"

	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

const installHint = "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)"

// Detect probes this machine: bubblewrap (and a real namespace run), the
// Landlock ABI, seccomp and how process limits are enforced.
func Detect() Support { return detect(true) }

func detect(withVersion bool) Support {
	s := Support{OS: runtime.GOOS, Seccomp: seccompAvailable()}
	if abi, err := llsyscall.LandlockGetABIVersion(); err == nil && abi > 0 {
		s.LandlockABI = abi
	} else {
		s.Warnings = append(s.Warnings, "Landlock is unavailable (kernel older than 5.13 or Landlock not enabled in the lsm= boot list): bubblewrap alone confines commands")
	}
	if !s.Seccomp {
		s.Problem = "the kernel has no seccomp filter support (CONFIG_SECCOMP_FILTER), so AF_VSOCK and io_uring cannot be blocked"
	}
	path, err := exec.LookPath("bwrap")
	if err != nil {
		s.Problem = "bubblewrap (bwrap) is not installed: " + installHint
		return s
	}
	s.Bwrap = path
	if !withVersion {
		// The runner's cached detection skips it: one exec less.
	} else if out, err := exec.Command(path, "--version").Output(); err == nil {
		s.BwrapVersion = strings.TrimSpace(string(out))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	probe := exec.CommandContext(ctx, path, "--unshare-all", "--unshare-user", "--disable-userns",
		"--die-with-parent", "--new-session", "--cap-drop", "ALL",
		"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--", "true")
	var stderr bytes.Buffer
	probe.Stderr = &stderr
	if err := probe.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		s.Problem = "bubblewrap cannot create the sandbox namespaces (" + msg + "): enable unprivileged user namespaces " +
			"(sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces>0, and on Ubuntu " +
			"kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor profile for bwrap), or, in a container, run it with user namespaces allowed"
		return s
	}
	s.UserNS = true
	s.ProcessLimit = processLimitMode()
	if strings.HasPrefix(s.ProcessLimit, "not enforced") {
		s.Warnings = append(s.Warnings, "process limit "+s.ProcessLimit)
	}
	return s
}

var (
	supportOnce sync.Once
	supportVal  Support
)

// cachedSupport runs Detect once per process.
func cachedSupport() Support {
	supportOnce.Do(func() { supportVal = detect(false) })
	return supportVal
}

// processLimitMode says how Limits.Processes is enforced. RLIMIT_NPROC is
// counted per user namespace, so it binds a non-root agent's sandbox; root
// is exempt from it, so as root a pids cgroup is used.
func processLimitMode() string {
	if os.Geteuid() != 0 {
		return "RLIMIT_NPROC in the sandbox's user namespace"
	}
	switch pidsCgroupKind() {
	case "v2":
		return "pids cgroup (v2) and RLIMIT_NPROC"
	case "v1":
		return "pids cgroup (v1) and RLIMIT_NPROC"
	}
	return "not enforced: running as root (exempt from RLIMIT_NPROC) and no writable pids cgroup"
}

// QuickDetect is Detect without running anything: bubblewrap on PATH, the
// Landlock ABI and seccomp. inspect uses it (its start-up budget has no
// room for a namespace probe); doctor runs the full Detect.
func QuickDetect() Support {
	s := Support{OS: runtime.GOOS, Seccomp: seccompAvailable()}
	if abi, err := llsyscall.LandlockGetABIVersion(); err == nil && abi > 0 {
		s.LandlockABI = abi
	} else {
		s.Warnings = append(s.Warnings, "Landlock is unavailable: bubblewrap alone confines commands")
	}
	if path, err := exec.LookPath("bwrap"); err == nil {
		s.Bwrap = path
	} else {
		s.Problem = "bubblewrap (bwrap) is not installed: " + installHint
	}
	return s
}
