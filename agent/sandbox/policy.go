package sandbox

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/oceancode/oceancode/agent/sandbox/egress"
)

// Mode says what a confined command may write.
type Mode string

// The sandbox modes (docs/sandbox.md).
const (
	// ModeReadOnly: the workspace and the rest of the host are readable;
	// only temp directories and package caches are writable.
	ModeReadOnly Mode = "read-only"
	// ModeWorkspaceWrite: as read-only, plus the workspace and the extra
	// writable roots are writable (protected paths inside them excepted).
	ModeWorkspaceWrite Mode = "workspace-write"
	// ModeDangerFullAccess: no sandbox at all; the command runs unconfined.
	ModeDangerFullAccess Mode = "danger-full-access"
)

// Network says what egress a confined command gets.
type Network string

// The network settings.
const (
	// NetworkOff: a new network namespace with loopback only; no egress,
	// host loopback services unreachable, no new unix sockets.
	NetworkOff Network = "off"
	// NetworkAllowlist: a new network namespace like off, whose only way
	// out is the session's egress proxy (Policy.Egress): HTTP and HTTPS
	// (CONNECT) to the hosts on AllowHosts, names resolved by the proxy.
	// On macOS it is not enforced yet (egress open) and Check says so.
	NetworkAllowlist Network = "allowlist"
	// NetworkOn: the host's network namespace is shared.
	NetworkOn Network = "on"
)

// Limits bounds a confined command's resources. Zero means the default
// (see DefaultLimits); a negative value means unlimited.
type Limits struct {
	// Processes bounds the number of processes (and threads) of the
	// command: RLIMIT_NPROC inside its own user namespace, plus a pids
	// cgroup when the agent runs as root (root is exempt from RLIMIT_NPROC).
	Processes int `json:"processes"`
	// AddressSpaceMB bounds each process's virtual memory (RLIMIT_AS).
	AddressSpaceMB int `json:"address_space_mb"`
	// FileSizeMB bounds the size of any file the command writes (RLIMIT_FSIZE).
	FileSizeMB int `json:"file_size_mb"`
	// OpenFiles bounds each process's open descriptors (RLIMIT_NOFILE).
	OpenFiles int `json:"open_files"`
}

// DefaultLimits are the limits used for a zero field of Limits.
var DefaultLimits = Limits{
	Processes:      1024,
	AddressSpaceMB: 16384,
	FileSizeMB:     8192,
	OpenFiles:      4096,
}

// Policy is what the sandbox enforces for one command. The fields after
// Workspace mirror the sandbox.* configuration keys, so the CLI fills it
// from the resolved configuration field by field.
type Policy struct {
	// Enabled is sandbox.enabled. With no Mode, Enabled means
	// workspace-write and !Enabled means no sandbox. A Mode wins over it.
	Enabled bool `json:"enabled"`
	// Mode is sandbox.mode ("" = decided by Enabled).
	Mode Mode `json:"mode"`
	// Deny is sandbox.deny: roots refused for reads and writes even inside
	// the workspace. Relative paths are relative to Workspace.
	Deny []string `json:"deny"`
	// DenyRead is sandbox.deny_read: paths made unreadable, added to the
	// built-in credential stores. Relative paths are relative to Workspace;
	// "~/" is the home directory.
	DenyRead []string `json:"deny_read"`
	// Writable is sandbox.writable: extra writable roots (workspace-write
	// only; read-only mode ignores them). "~/" is the home directory.
	Writable []string `json:"writable"`
	// Network is sandbox.network ("" = off).
	Network Network `json:"network"`
	// AllowHosts is sandbox.allow_hosts, used with NetworkAllowlist: host,
	// host:port, *.domain[:port] or an IP literal (egress.ParseRule has the
	// syntax).
	AllowHosts []string `json:"allow_hosts"`
	// Limits is sandbox.limits.
	Limits Limits `json:"limits"`

	// Workspace is the absolute path of the workspace root (required when
	// the sandbox is on).
	Workspace string `json:"-"`
	// Dir is the command's working directory ("" = Workspace).
	Dir string `json:"-"`
	// TempDir, when set, is a host directory mounted at /tmp so temp files
	// persist across the commands of a session; "" = a private tmpfs per
	// command.
	TempDir string `json:"-"`
	// Egress is the session's started egress proxy, required by a confined
	// policy with NetworkAllowlist (Command refuses without it, wrapping
	// ErrNoEgressProxy). Its allow-list must be AllowHosts. Start one per
	// session and share it between commands.
	Egress *egress.Proxy `json:"-"`
}

// EffectiveMode resolves Enabled and Mode: "" means no sandbox (off).
func (p Policy) EffectiveMode() Mode {
	if p.Mode != "" {
		return p.Mode
	}
	if p.Enabled {
		return ModeWorkspaceWrite
	}
	return ""
}

// Confined reports whether the policy asks for OS-level confinement.
func (p Policy) Confined() bool {
	m := p.EffectiveMode()
	return m == ModeReadOnly || m == ModeWorkspaceWrite
}

// EffectiveNetwork returns the network setting, off when unset.
func (p Policy) EffectiveNetwork() Network {
	if p.Network == "" {
		return NetworkOff
	}
	return p.Network
}

// EffectiveLimits returns the limits with defaults filled in; unlimited
// fields are 0.
func (p Policy) EffectiveLimits() Limits {
	pick := func(v, def int) int {
		switch {
		case v == 0:
			return def
		case v < 0:
			return 0
		}
		return v
	}
	return Limits{
		Processes:      pick(p.Limits.Processes, DefaultLimits.Processes),
		AddressSpaceMB: pick(p.Limits.AddressSpaceMB, DefaultLimits.AddressSpaceMB),
		FileSizeMB:     pick(p.Limits.FileSizeMB, DefaultLimits.FileSizeMB),
		OpenFiles:      pick(p.Limits.OpenFiles, DefaultLimits.OpenFiles),
	}
}

// ErrInvalidPolicy is wrapped by Validate's errors.
var ErrInvalidPolicy = errors.New("invalid policy")

// Validate checks the policy's values. A policy that is not confined needs
// only a valid mode.
func (p Policy) Validate() error {
	switch p.Mode {
	case "", ModeReadOnly, ModeWorkspaceWrite, ModeDangerFullAccess:
	default:
		return fmt.Errorf("sandbox: %w: unknown mode %q (want read-only, workspace-write or danger-full-access)", ErrInvalidPolicy, p.Mode)
	}
	switch p.Network {
	case "", NetworkOff, NetworkAllowlist, NetworkOn:
	default:
		return fmt.Errorf("sandbox: %w: unknown network %q (want off, allowlist or on)", ErrInvalidPolicy, p.Network)
	}
	if !p.Confined() {
		return nil
	}
	if p.Workspace == "" || !filepath.IsAbs(p.Workspace) {
		return fmt.Errorf("sandbox: %w: workspace %q must be an absolute path", ErrInvalidPolicy, p.Workspace)
	}
	if filepath.Clean(p.Workspace) == "/" {
		return fmt.Errorf("sandbox: %w: the workspace cannot be /", ErrInvalidPolicy)
	}
	if _, err := egress.ParseAllowList(p.AllowHosts); err != nil {
		return fmt.Errorf("sandbox: %w: %w", ErrInvalidPolicy, err)
	}
	for _, w := range p.Writable {
		if w == "" {
			return fmt.Errorf("sandbox: %w: empty writable root", ErrInvalidPolicy)
		}
	}
	return nil
}

// Describe is a one-paragraph, human-readable account of what the policy
// enforces, for doctor, inspect and session warnings. It states plainly when
// something is not enforced.
func (p Policy) Describe() string {
	m := p.EffectiveMode()
	switch m {
	case "":
		return "sandbox off: commands run unconfined"
	case ModeDangerFullAccess:
		return "sandbox danger-full-access: commands run unconfined"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "sandbox %s: ", m)
	if m == ModeWorkspaceWrite {
		b.WriteString("workspace, temp and package caches writable")
		if len(p.Writable) > 0 {
			fmt.Fprintf(&b, " (plus %s)", strings.Join(p.Writable, ", "))
		}
	} else {
		b.WriteString("only temp and package caches writable")
	}
	b.WriteString("; credential stores unreadable")
	if len(p.Deny) > 0 {
		fmt.Fprintf(&b, "; denied: %s", strings.Join(p.Deny, ", "))
	}
	switch p.EffectiveNetwork() {
	case NetworkOff:
		b.WriteString("; network off (no egress)")
	case NetworkOn:
		b.WriteString("; network on (egress open)")
	case NetworkAllowlist:
		if runtime.GOOS == "darwin" {
			b.WriteString("; network allowlist: egress open: allowlist not enforced on macOS")
			break
		}
		hosts := "no host"
		if len(p.AllowHosts) > 0 {
			hosts = strings.Join(p.AllowHosts, ", ")
		}
		fmt.Fprintf(&b, "; network allowlist: no direct egress; HTTP/HTTPS only, filtered through the session's egress proxy, to %s"+
			" (names resolving to loopback, link-local or metadata addresses refused)", hosts)
	}
	l := p.EffectiveLimits()
	fmt.Fprintf(&b, "; limits: processes %s, address space %s, file size %s, open files %s",
		limitText(l.Processes, ""), limitText(l.AddressSpaceMB, " MB"), limitText(l.FileSizeMB, " MB"), limitText(l.OpenFiles, ""))
	return b.String()
}

func limitText(v int, unit string) string {
	if v == 0 {
		return "unlimited"
	}
	return fmt.Sprintf("%d%s", v, unit)
}
