// Package helper is the sandbox helper: the code that runs inside
// bubblewrap, applies the resource limits, no_new_privs, the Landlock
// ruleset (and, with a network allowlist, the seccomp filter) to itself,
// and execs the confined command (or, with --supervise, runs an unconfined
// one under a subreaper). The lean helper binary (cmd/oceancode-sandbox)
// links this package alone: every sandboxed command pays its start-up, so
// it imports nothing above package net (no net/http, no encoding/json, no
// crypto) and runs no package initialisation it does not need.
//
// The plain exec path has a faster twin: cmd/oceancode-sandbox-exec, a
// small C program that takes the same arguments (ExecArgs) and applies the
// same Spec, because a Go program's runtime start costs about a millisecond
// per sandboxed command. Everything that decides lives here in Go and
// travels as numbers: the Landlock ruleset (NewRuleset) and the seccomp
// filter (SeccompFilter, which bubblewrap loads with --seccomp for both
// helpers). Package sandbox builds the Spec and starts bubblewrap with it.
package helper

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// Arg is the first argument that makes a binary act as the sandbox helper
// (Main) instead of whatever else it is.
const Arg = "__sandbox-exec"

// ErrNotFound is returned by Main when the command does not exist.
var ErrNotFound = errors.New("sandbox: command not found")

// ExitStatus is returned by Main when the command ran as the
// helper's child (network allowlist: the helper stays alive to forward to
// the egress proxy) and has exited: the helper process must exit with Code
// (128+signal for a command killed by a signal, as bubblewrap reports it)
// and print nothing.
type ExitStatus struct{ Code int }

func (e *ExitStatus) Error() string { return "sandbox: command exit status " + strconv.Itoa(e.Code) }

// Spec is what the helper applies to itself inside bubblewrap before it
// execs the command. It travels as the helper's arguments (Args, Parse).
type Spec struct {
	// Landlock is the ruleset to enforce (nil: none; see NewRuleset).
	Landlock *Ruleset
	// Seccomp: the helper loads the seccomp filter on its own thread
	// (network allowlist only: the forwarder's threads must stay outside
	// it). Otherwise bubblewrap loads it (--seccomp) before the helper runs.
	Seccomp  bool
	DenyUnix bool   // seccomp: refuse new AF_UNIX sockets (network off, allowlist)
	Egress   string // network allowlist: the proxy's socket inside the sandbox
	NProc    uint64 // RLIMIT_NPROC (0 = leave)
	AS       uint64 // RLIMIT_AS in bytes (0 = leave)
	FSize    uint64 // RLIMIT_FSIZE in bytes (0 = leave)
	NoFile   uint64 // RLIMIT_NOFILE (0 = leave)
	// Supervise: no confinement; run the command as a child under a
	// subreaper that ends the command's whole process tree when the command
	// exits, when it is told to stop (SIGTERM, SIGINT, SIGHUP), or when the
	// agent dies (Lifeline reads end of file). The sandbox-off runs of the
	// bash tool use it (sandbox.Supervised).
	Supervise bool
	Lifeline  int // the descriptor of the agent's lifeline pipe (read end)
	// OneProc: the runner started the helper with GOMAXPROCS=1 (a Go
	// process with one P starts fewer threads: ≈ 0.15 ms less per command)
	// and the helper gives the command back its own GOMAXPROCS: MaxProcs
	// when HasMaxProcs, else none (see WithOneProc).
	OneProc     bool
	HasMaxProcs bool
	MaxProcs    string
}

// maxProcsVar is the Go runtime's variable the runner sets for the helper.
const maxProcsVar = "GOMAXPROCS"

// WithOneProc returns env with GOMAXPROCS=1 for the helper's own start,
// and records in h the command's own value, which the helper restores.
func (h *Spec) WithOneProc(env []string) []string {
	h.OneProc, h.HasMaxProcs, h.MaxProcs = true, false, ""
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, maxProcsVar+"="); ok {
			// The last one counts, as in os/exec's Cmd.Env (which starts
			// bubblewrap, so the exec helper's commands see the same).
			h.HasMaxProcs, h.MaxProcs = true, v
			continue
		}
		out = append(out, kv)
	}
	return append(out, maxProcsVar+"=1")
}

// Args is the spec as the Go helper's arguments, ending in "--" (the
// command follows).
func (h Spec) Args() []string {
	a := h.landlockArgs()
	if h.Supervise {
		a = append(a, "--supervise", "--lifeline", strconv.Itoa(h.Lifeline))
	}
	switch {
	case h.OneProc && h.HasMaxProcs:
		a = append(a, "--gomaxprocs", h.MaxProcs)
	case h.OneProc:
		a = append(a, "--no-gomaxprocs")
	}
	if h.Seccomp {
		a = append(a, "--seccomp")
	}
	if h.DenyUnix && h.Seccomp {
		a = append(a, "--deny-unix")
	}
	if h.Egress != "" {
		a = append(a, "--egress", h.Egress)
	}
	return append(h.limitArgs(a), "--")
}

// ExecArgs is the spec as cmd/oceancode-sandbox-exec's arguments, ending
// in "--": the Landlock ruleset and the limits, which is all the exec
// helper applies, or the supervisor alone (Supervise and Lifeline, nothing
// else: the supervisor confines nothing). It fails for a spec only the Go
// helper can carry out.
func (h Spec) ExecArgs() ([]string, error) {
	if h.Seccomp || h.Egress != "" || h.OneProc {
		return nil, errors.New("sandbox helper: this spec needs the Go helper (seccomp on the helper's thread, egress or GOMAXPROCS)")
	}
	if h.Supervise {
		if h.Landlock != nil || h.NProc != 0 || h.AS != 0 || h.FSize != 0 || h.NoFile != 0 {
			return nil, errors.New("sandbox helper: the supervisor confines nothing: a supervised spec has no ruleset or limits")
		}
		return []string{"--supervise", "--lifeline", strconv.Itoa(h.Lifeline), "--"}, nil
	}
	return append(h.limitArgs(h.landlockArgs()), "--"), nil
}

func (h Spec) landlockArgs() []string {
	var a []string
	if r := h.Landlock; r != nil {
		a = append(a, "--landlock", strconv.FormatUint(r.FS, 10), strconv.FormatUint(r.Scoped, 10))
		for _, pr := range r.Rules {
			a = append(a, "--rule", strconv.FormatUint(pr.Access, 10), pr.Path)
		}
	}
	return a
}

func (h Spec) limitArgs(a []string) []string {
	for _, l := range []struct {
		name string
		v    uint64
	}{{"--nproc", h.NProc}, {"--as", h.AS}, {"--fsize", h.FSize}, {"--nofile", h.NoFile}} {
		if l.v > 0 {
			a = append(a, l.name, strconv.FormatUint(l.v, 10))
		}
	}
	return a
}

// Parse is the inverse of Spec.Args: it returns the spec and the command
// after "--".
func Parse(args []string) (Spec, []string, error) {
	var h Spec
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			if i+1 >= len(args) {
				return h, nil, fmt.Errorf("sandbox helper: no command")
			}
			return h, args[i+1:], nil
		}
		switch a {
		case "--landlock", "--rule":
			if i+2 >= len(args) {
				return h, nil, fmt.Errorf("sandbox helper: %s needs two values", a)
			}
			n, err := strconv.ParseUint(args[i+1], 10, 64)
			if err != nil {
				return h, nil, fmt.Errorf("sandbox helper: %s %q: %w", a, args[i+1], err)
			}
			if a == "--rule" {
				if h.Landlock == nil {
					return h, nil, fmt.Errorf("sandbox helper: --rule before --landlock")
				}
				h.Landlock.Rules = append(h.Landlock.Rules, PathRule{Access: n, Path: args[i+2]})
			} else {
				m, err := strconv.ParseUint(args[i+2], 10, 64)
				if err != nil {
					return h, nil, fmt.Errorf("sandbox helper: %s %q: %w", a, args[i+2], err)
				}
				h.Landlock = &Ruleset{FS: n, Scoped: m}
			}
			i += 2
			continue
		case "--seccomp":
			h.Seccomp = true
			continue
		case "--deny-unix":
			h.DenyUnix = true
			continue
		case "--supervise":
			h.Supervise = true
			continue
		case "--no-gomaxprocs":
			h.OneProc = true
			continue
		}
		if i+1 >= len(args) {
			return h, nil, fmt.Errorf("sandbox helper: %s needs a value", a)
		}
		v := args[i+1]
		i++
		switch a {
		case "--egress":
			h.Egress = v
		case "--gomaxprocs":
			h.OneProc, h.HasMaxProcs, h.MaxProcs = true, true, v
		case "--lifeline":
			n, err := strconv.Atoi(v)
			if err != nil || n < 3 {
				return h, nil, fmt.Errorf("sandbox helper: --lifeline %q: not a descriptor above 2", v)
			}
			h.Lifeline = n
		case "--nproc", "--as", "--fsize", "--nofile":
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				return h, nil, fmt.Errorf("sandbox helper: %s %q: %w", a, v, err)
			}
			switch a {
			case "--nproc":
				h.NProc = n
			case "--as":
				h.AS = n
			case "--fsize":
				h.FSize = n
			case "--nofile":
				h.NoFile = n
			}
		default:
			return h, nil, fmt.Errorf("sandbox helper: unknown argument %q", a)
		}
	}
	return h, nil, fmt.Errorf("sandbox helper: missing -- before the command")
}

// ExitCode is the helper process's exit status for Main's error, by the shell's conventions: the command's own status when it ran
// as the helper's child (network allowlist), 127 when it was not found, 126
// when it could not be confined or executed.
func ExitCode(err error) int {
	var st *ExitStatus
	switch {
	case err == nil:
		return 0
	case errors.As(err, &st):
		return st.Code
	case errors.Is(err, ErrNotFound):
		return 127
	}
	return 126
}

// Ruleset is a Landlock ruleset in the kernel's own numbers: the handled
// file-system rights, the IPC scopes and one path-beneath rule per path.
// It is computed outside the sandbox (NewRuleset) and applied inside by
// either helper, so the Go and the C helper cannot disagree on it.
type Ruleset struct {
	FS     uint64
	Scoped uint64
	Rules  []PathRule
}

// PathRule allows Access beneath Path (a missing path is skipped, like
// go-landlock's IgnoreIfMissing).
type PathRule struct {
	Access uint64
	Path   string
}

// The rights of the three kinds of rules, as go-landlock's RODirs and
// RWDirs define them (the library keeps these sets unexported).
const (
	// ReadRights: RODirs (read files and directories, execute).
	ReadRights  = ll.AccessFSExecute | ll.AccessFSReadFile | ll.AccessFSReadDir
	writeRights = ll.AccessFSWriteFile | ll.AccessFSRemoveDir | ll.AccessFSRemoveFile | ll.AccessFSMakeChar |
		ll.AccessFSMakeDir | ll.AccessFSMakeReg | ll.AccessFSMakeSock | ll.AccessFSMakeFifo |
		ll.AccessFSMakeBlock | ll.AccessFSMakeSym | ll.AccessFSTruncate
	// RWRights: RWDirs plus refer and resolve-unix (the workspace and the
	// temporary directories: renames across directories, local sockets).
	RWRights = ReadRights | writeRights | ll.AccessFSRefer | ll.AccessFSResolveUnix
	// DevRights: RWRights plus device ioctls (/dev).
	DevRights = RWRights | ll.AccessFSIoctlDev
)

// abiConfigs are go-landlock's configurations per Landlock ABI version:
// each handles every right and scope that ABI knows.
var abiConfigs = []landlock.Config{{}, landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5, landlock.V6,
	landlock.V7, landlock.V8, landlock.V9, landlock.V10, landlock.V11}

// NewRuleset is the ruleset the sandbox enforces on a kernel with Landlock
// ABI abi, the way go-landlock's best-effort mode downgrades a ruleset
// that handles everything (up to the newest ABI it knows): every right the
// kernel knows is handled, every scope it knows applies, and each rule
// keeps the rights of its kind the kernel knows. ro paths get ReadRights,
// rw paths RWRights, dev paths DevRights. It returns nil (no Landlock) for
// abi 0 and for ABI 1 (Linux < 5.19), which cannot allow the renames
// across directories that RWRights needs — as the library does; the
// sandbox announces either.
func NewRuleset(abi int, ro, rw, dev []string) *Ruleset {
	if abi <= 0 {
		return nil
	}
	cfg := abiConfigs[min(abi, len(abiConfigs)-1)]
	fs := uint64(cfg.HandledAccessFS)
	if fs&ll.AccessFSRefer == 0 && len(rw)+len(dev) > 0 {
		return nil
	}
	r := &Ruleset{FS: fs, Scoped: uint64(cfg.Scoped)}
	for _, k := range []struct {
		rights uint64
		paths  []string
	}{{ReadRights, ro}, {RWRights, rw}, {DevRights, dev}} {
		if a := k.rights & fs; a != 0 {
			for _, p := range k.paths {
				r.Rules = append(r.Rules, PathRule{Access: a, Path: p})
			}
		}
	}
	return r
}
