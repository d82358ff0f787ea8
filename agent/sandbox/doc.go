// Package sandbox confines the children the agent spawns at the OS level.
//
// A [Policy] (mode, workspace, extra writable roots, deny roots, deny-read
// paths, network, resource limits) is turned into:
//
//   - a bubblewrap argument list ([BwrapArgs], pure and golden-tested): new
//     user, PID, IPC, UTS, cgroup and (network off or allowlist) network
//     namespaces, the host root mounted read-only, writable roots bound back
//     read-write, protected paths re-bound read-only after them, credential
//     stores and deny roots masked, /proc/sys read-only, private /tmp and
//     /run, all capabilities dropped, no nested user namespaces
//     (--disable-userns), a new session, and death with the agent;
//     bubblewrap makes every mount;
//   - a Landlock ruleset ([LandlockRules], golden-tested as text) plus a
//     seccomp filter and resource limits, applied by a helper that holds no
//     capability right before it execs the command: the C exec helper
//     (cmd/oceancode-sandbox-exec), or the Go one (the lean
//     oceancode-sandbox, or the oceancode binary re-executed in a hidden
//     mode: [HelperArg], [HelperMain]). go-landlock always restricts the
//     whole calling process, so the agent itself is never restricted.
//
// With network allowlist the command's network namespace has no route out
// either; its only egress is the session's HTTP/HTTPS proxy
// ([egress.Proxy], set as [Policy.Egress]), whose unix socket is
// bind-mounted into the sandbox and exposed on 127.0.0.1 by the helper,
// which then runs the command as its child and forwards connections.
//
// The sandbox is never silently disabled: [Command] refuses to run a command
// when the policy asks for confinement and bubblewrap cannot provide it
// ([ErrUnavailable]); a kernel without Landlock runs with bubblewrap alone
// and [Detect] reports a warning. [Policy.Describe] and [Support] carry what
// doctor and inspect show.
//
// On macOS, [SBPLProfile] generates the sandbox-exec profile for the same
// policy; the runner that uses it is built only on darwin.
package sandbox
