package sandbox

import (
	"fmt"
	"strings"

	"github.com/oceancode/oceancode/agent/sandbox/helper"
)

// ExecHelperBinary is the exec helper's file name: the C twin of the lean
// helper for the plain exec path (cmd/oceancode-sandbox-exec), beside the
// agent's own binary (Linux). Without it the Go helper serves (≈ 1.3 ms
// more per sandboxed command: docs/benchmarks.md); doctor says which one
// runs.
const ExecHelperBinary = "oceancode-sandbox-exec"

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

// newRuleset is helper.NewRuleset (plan.go's helper is a path).
func newRuleset(abi int, ro, rw, dev []string) *helper.Ruleset {
	return helper.NewRuleset(abi, ro, rw, dev)
}

// LandlockRules describes, one rule a line, the Landlock ruleset the helper
// applies for p (golden-tested; also shown by inspect): env.LandlockABI's
// rights, computed outside the sandbox, applied inside as numbers.
func LandlockRules(p Policy, env Env) (string, error) {
	pl, err := buildPlan(p, env)
	if err != nil {
		return "", err
	}
	return landlockText(pl.helper.Landlock, env.LandlockABI), nil
}

func landlockText(r *helper.Ruleset, abi int) string {
	var b strings.Builder
	switch {
	case r == nil && abi == 1:
		b.WriteString("landlock: not applied (Landlock ABI 1, Linux < 5.19, cannot allow renames across directories; bubblewrap alone confines the child)\n")
		return b.String()
	case r == nil:
		b.WriteString("landlock: not applied (kernel without Landlock; bubblewrap alone confines the child)\n")
		return b.String()
	}
	scoped := "none (ABI < 6)"
	if r.Scoped != 0 {
		scoped = "abstract unix sockets, signals"
	}
	fmt.Fprintf(&b, "landlock: ABI %d, handled: every file-system right it knows (%#x); scoped: %s\n", abi, r.FS, scoped)
	for _, pr := range r.Rules {
		switch pr.Access {
		case helper.ReadRights & r.FS:
			fmt.Fprintf(&b, "read  %s (read files, read dirs, execute)\n", pr.Path)
		case helper.RWRights & r.FS:
			fmt.Fprintf(&b, "write %s (all file rights, refer, resolve unix)\n", pr.Path)
		case helper.DevRights & r.FS:
			fmt.Fprintf(&b, "dev   %s (all file rights, device ioctls, resolve unix)\n", pr.Path)
		default:
			fmt.Fprintf(&b, "rule  %s (%#x)\n", pr.Path, pr.Access)
		}
	}
	b.WriteString("anything else: denied (no writes, no unix-socket connects on ABI >= 9)\n")
	return b.String()
}
