package sandbox

import (
	"fmt"
	"strings"

	"github.com/oceancode/oceancode/agent/sandbox/helper"
)

// HelperArg is the first argument that makes the oceancode binary act as
// the sandbox helper instead of the CLI.
const HelperArg = helper.Arg

// ErrHelperNotFound is returned by HelperMain when the command does not exist.
var ErrHelperNotFound = helper.ErrNotFound

// ExitStatus is returned by HelperMain when the command ran as the
// helper's child (network allowlist: the helper stays alive to forward to
// the egress proxy) and has exited: the helper process must exit with Code
// (128+signal for a command killed by a signal, as bubblewrap reports it)
// and print nothing.
type ExitStatus = helper.ExitStatus

// helperSpec is what the helper applies to itself inside bubblewrap.
type helperSpec = helper.Spec

// HelperMain is the helper mode of the oceancode binary (package helper's
// Main: see there). It returns only on failure, or with *ExitStatus when
// the command ran as the helper's child. args are the arguments after
// HelperArg.
func HelperMain(args []string) error { return helper.Main(args) }

// HelperExitCode is the helper process's exit status for HelperMain's
// error, by the shell's conventions: the command's own status when it ran
// as the helper's child (network allowlist), 127 when it was not found, 126
// when it could not be confined or executed.
func HelperExitCode(err error) int { return helper.ExitCode(err) }

// LandlockRules describes, one rule a line, the Landlock ruleset the helper
// applies for p (golden-tested; also shown by inspect). The helper asks for
// the newest ABI go-landlock knows and downgrades to the kernel's.
func LandlockRules(p Policy, env Env) (string, error) {
	pl, err := buildPlan(p, env)
	if err != nil {
		return "", err
	}
	return landlockText(pl.helper), nil
}

func landlockText(h helperSpec) string {
	var b strings.Builder
	if !h.Landlock {
		b.WriteString("landlock: not applied (kernel without Landlock; bubblewrap alone confines the child)\n")
		return b.String()
	}
	b.WriteString("landlock: best effort up to ABI 11, handled: all file-system rights; scoped: abstract unix sockets, signals\n")
	for _, p := range h.RO {
		fmt.Fprintf(&b, "read  %s (read files, read dirs, execute)\n", p)
	}
	for _, p := range h.RW {
		fmt.Fprintf(&b, "write %s (all file rights, refer, resolve unix)\n", p)
	}
	for _, p := range h.Dev {
		fmt.Fprintf(&b, "dev   %s (all file rights, device ioctls, resolve unix)\n", p)
	}
	b.WriteString("anything else: denied (no writes, no unix-socket connects on ABI >= 9)\n")
	return b.String()
}
