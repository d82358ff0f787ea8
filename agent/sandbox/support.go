package sandbox

import (
	"errors"
	"fmt"
)

// ErrUnavailable is wrapped by the error returned when the policy asks for
// confinement and this machine cannot provide it; the command is refused,
// never run unconfined. The message says what to install or enable.
var ErrUnavailable = errors.New("unavailable")

// ErrNoEgressProxy is wrapped by Command's error for a confined policy with
// network allowlist and no started egress proxy (Policy.Egress), or one
// whose allow-list is not the policy's AllowHosts. The command is refused:
// egress is never left open silently.
var ErrNoEgressProxy = errors.New("network allowlist needs the session's egress proxy")

// Support is the detected state of the machine's sandboxing, for doctor and
// inspect.
type Support struct {
	// OS is runtime.GOOS.
	OS string `json:"os"`
	// Bwrap is the path of bubblewrap ("" = not found); BwrapVersion its
	// version line.
	Bwrap        string `json:"bwrap,omitempty"`
	BwrapVersion string `json:"bwrap_version,omitempty"`
	// UserNS reports whether bubblewrap could create the namespaces the
	// sandbox needs (a real probe run).
	UserNS bool `json:"user_namespaces"`
	// LandlockABI is the kernel's Landlock ABI version (0 = none).
	LandlockABI int `json:"landlock_abi"`
	// Seccomp reports whether seccomp filters are available.
	Seccomp bool `json:"seccomp"`
	// GitHistory says how workspace-write keeps git history out of a
	// command's reach ("" = it does not; see docs/sandbox.md).
	GitHistory string `json:"git_history,omitempty"`
	// ProcessLimit says how the process-count limit is enforced.
	ProcessLimit string `json:"process_limit,omitempty"`
	// SandboxExec is the path of macOS sandbox-exec ("" = not found).
	SandboxExec string `json:"sandbox_exec,omitempty"`
	// Problem, when set, is why confined commands cannot run here, with
	// the fix; confined commands are refused.
	Problem string `json:"problem,omitempty"`
	// Warnings are weaker-than-full protections that still run.
	Warnings []string `json:"warnings,omitempty"`
}

// Usable reports whether confined commands can run; the error wraps
// ErrUnavailable and says what to install or enable.
func (s Support) Usable() error {
	if s.Problem != "" {
		return fmt.Errorf("sandbox: %w: %s", ErrUnavailable, s.Problem)
	}
	return nil
}

// Check returns the warnings that apply to running p here, or an error
// wrapping ErrUnavailable when p asks for confinement this machine cannot
// provide. An unconfined policy never fails.
func (s Support) Check(p Policy) ([]string, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if !p.Confined() {
		return nil, nil
	}
	if err := s.Usable(); err != nil {
		return nil, err
	}
	w := append([]string(nil), s.Warnings...)
	if p.EffectiveNetwork() == NetworkAllowlist && s.OS == "darwin" {
		w = append(w, "sandbox.network is allowlist but the allowlist is not enforced on macOS yet: egress is open (use network off to block egress)")
	}
	return w, nil
}
