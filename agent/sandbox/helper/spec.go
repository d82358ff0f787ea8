// Package helper is the sandbox helper: the code that runs inside
// bubblewrap, applies the resource limits, no_new_privs, the Landlock
// ruleset and the seccomp filter to itself, and execs the confined command
// (or, with --supervise, runs an unconfined one under a subreaper). The
// lean helper binary (cmd/oceancode-sandbox) links this package alone:
// every sandboxed command pays its start-up, so it imports nothing above
// package net (no net/http, no encoding/json, no crypto) and runs no
// package initialisation it does not need. Package sandbox builds the
// Spec and starts bubblewrap with it.
package helper

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
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
	Landlock bool     // apply the Landlock ruleset (the kernel has Landlock)
	RO       []string // Landlock: read and execute beneath these
	RW       []string // Landlock: full access beneath these
	Dev      []string // Landlock: full access plus device ioctls beneath these
	DenyUnix bool     // seccomp: refuse new AF_UNIX sockets (network off, allowlist)
	Egress   string   // network allowlist: the proxy's socket inside the sandbox
	NProc    uint64   // RLIMIT_NPROC (0 = leave)
	AS       uint64   // RLIMIT_AS in bytes (0 = leave)
	FSize    uint64   // RLIMIT_FSIZE in bytes (0 = leave)
	NoFile   uint64   // RLIMIT_NOFILE (0 = leave)
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
			if !h.HasMaxProcs {
				// The first one counts: the helper's environment, like any
				// Go program's, keeps the first of duplicated variables.
				h.HasMaxProcs, h.MaxProcs = true, v
			}
			continue
		}
		out = append(out, kv)
	}
	return append(out, maxProcsVar+"=1")
}

// Args is the spec as the helper's arguments, ending in "--" (the
// command follows).
func (h Spec) Args() []string {
	var a []string
	if h.Landlock {
		a = append(a, "--landlock")
		for _, p := range h.RO {
			a = append(a, "--ro", p)
		}
		for _, p := range h.RW {
			a = append(a, "--rw", p)
		}
		for _, p := range h.Dev {
			a = append(a, "--dev", p)
		}
	}
	if h.Supervise {
		a = append(a, "--supervise", "--lifeline", strconv.Itoa(h.Lifeline))
	}
	switch {
	case h.OneProc && h.HasMaxProcs:
		a = append(a, "--gomaxprocs", h.MaxProcs)
	case h.OneProc:
		a = append(a, "--no-gomaxprocs")
	}
	if h.DenyUnix {
		a = append(a, "--deny-unix")
	}
	if h.Egress != "" {
		a = append(a, "--egress", h.Egress)
	}
	for _, l := range []struct {
		name string
		v    uint64
	}{{"--nproc", h.NProc}, {"--as", h.AS}, {"--fsize", h.FSize}, {"--nofile", h.NoFile}} {
		if l.v > 0 {
			a = append(a, l.name, strconv.FormatUint(l.v, 10))
		}
	}
	return append(a, "--")
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
		case "--landlock":
			h.Landlock = true
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
		case "--ro":
			h.RO = append(h.RO, v)
		case "--rw":
			h.RW = append(h.RW, v)
		case "--dev":
			h.Dev = append(h.Dev, v)
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
