//go:build linux && (amd64 || arm64)

package sandbox

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"

	"github.com/oceancode/oceancode/agent/sandbox/helper"
)

const installHint = "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)"

// Detect probes this machine: bubblewrap (and a real namespace run), the
// Landlock ABI, seccomp and how process limits are enforced.
func Detect() Support { return detect(true) }

func detect(withVersion bool) Support {
	s := Support{OS: runtime.GOOS, Seccomp: helper.SeccompAvailable(), GitHistory: GitHistoryKept}
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
	if err := probeBwrap(path, !withVersion); err != "" {
		s.Problem = "bubblewrap cannot create the sandbox namespaces (" + err + "): enable unprivileged user namespaces " +
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

// SetProbeCacheDir, when called (the CLI passes the state directory), keeps
// the result of a successful bubblewrap probe in a file there, so that a
// short-lived agent (one `oceancode sandbox` call) does not start a second
// bubblewrap every time. The entry is keyed by everything that decides
// whether the probe would succeed: bubblewrap's path and file identity
// (device, inode, size, mtime, mode), the kernel (release, version, boot
// id), the effective uid and the user-namespace sysctls. Only success is
// kept; a failing probe runs again each time, so a fix is seen at once.
// doctor (Detect) always probes. A sandboxed command whose bubblewrap fails
// before it started the command removes the entry too. The entry only
// saves the probe: a wrong one cannot weaken the sandbox (bubblewrap itself
// still has to set it up, or the command does not run), it can only turn
// doctor's clear diagnosis into bubblewrap's own error.
func SetProbeCacheDir(dir string) { probeCacheDir.Store(&dir) }

var probeCacheDir atomic.Pointer[string]

// probeCachePath is the cache file, or "" when there is none.
func probeCachePath() string {
	if d := probeCacheDir.Load(); d != nil && *d != "" {
		return filepath.Join(*d, probeCacheFile)
	}
	return ""
}

// forgetProbe removes the cached probe result (bubblewrap failed).
func forgetProbe() {
	if f := probeCachePath(); f != "" {
		os.Remove(f)
	}
}

const probeCacheFile = "sandbox-probe"

// probeKey identifies the conditions a probe result holds for.
func probeKey(bwrap string) (string, bool) {
	var st unix.Stat_t
	if unix.Stat(bwrap, &st) != nil {
		return "", false
	}
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return "", false
	}
	h := sha256.New()
	fmt.Fprintf(h, "v1\x00%s\x00%d:%d:%d:%d.%d:%o\x00%s\x00%s\x00%d", bwrap, st.Dev, st.Ino, st.Size, st.Mtim.Sec, st.Mtim.Nsec, st.Mode,
		unix.ByteSliceToString(u.Release[:]), unix.ByteSliceToString(u.Version[:]), os.Geteuid())
	for _, f := range []string{"/proc/sys/kernel/random/boot_id", "/proc/sys/kernel/unprivileged_userns_clone",
		"/proc/sys/user/max_user_namespaces", "/proc/sys/kernel/apparmor_restrict_unprivileged_userns"} {
		b, _ := os.ReadFile(f)
		fmt.Fprintf(h, "\x00%s=%s", f, bytes.TrimSpace(b))
	}
	return hex.EncodeToString(h.Sum(nil)), true
}

// probeBwrap runs bubblewrap once with the namespaces the sandbox uses and
// returns "" when it works, else its error. useCache consults and fills
// the SetProbeCacheDir entry.
func probeBwrap(path string, useCache bool) string {
	var key, file string
	if f := probeCachePath(); useCache && f != "" {
		if k, ok := probeKey(path); ok {
			key, file = k, f
			if b, err := os.ReadFile(file); err == nil && strings.TrimSpace(string(b)) == "ok "+key {
				return ""
			}
		}
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
		if file != "" {
			os.Remove(file)
		}
		return msg
	}
	if file != "" {
		writeProbeCache(file, "ok "+key+"\n")
	}
	return ""
}

// writeProbeCache replaces the cache file atomically (best effort: a cache
// that cannot be written only costs the next probe).
func writeProbeCache(file, content string) {
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), probeCacheFile+".*")
	if err != nil {
		return
	}
	_, werr := tmp.WriteString(content)
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), file) != nil {
		os.Remove(tmp.Name())
	}
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
	s := Support{OS: runtime.GOOS, Seccomp: helper.SeccompAvailable()}
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

// Prewarm starts, in the background, the once-per-process work that the
// first confined Command would otherwise do on its critical path: the
// support detection (cached probe) and, for a root agent, the pids cgroup
// for limits (joining it is a cgroup migration, milliseconds of kernel
// synchronisation on cgroup v1, which then overlaps with the caller's own
// start-up: loading configuration). Command waits for whatever is still
// running. Call it as early as a confined command is likely.
func Prewarm(limits Limits) {
	go cachedSupport()
	if n := (Policy{Limits: limits}).EffectiveLimits().Processes; n > 0 && os.Geteuid() == 0 {
		go sharedPidsCgroup(n + pidsHeadroom)
	}
}
