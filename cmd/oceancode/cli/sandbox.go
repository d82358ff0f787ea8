package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/oceancode/oceancode/agent/childenv"
	"github.com/oceancode/oceancode/agent/sandbox"
	"github.com/oceancode/oceancode/agent/sandbox/egress"
	"github.com/oceancode/oceancode/internal/exitcode"
	"github.com/oceancode/oceancode/internal/secretenv"
	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/sessionconfig"
)

// sandboxHelperArg makes Main run the sandbox helper: oceancode re-executed
// inside bubblewrap applies Landlock, seccomp and rlimits to itself and
// execs the command. Keep that path tiny: no cobra, no config.
const sandboxHelperArg = sandbox.HelperArg

// runSandboxHelper is the helper mode of this binary itself, used when the
// lean helper (cmd/oceancode-sandbox) is not installed beside it. Exit
// statuses follow the shell's conventions (sandbox.HelperExitCode).
func runSandboxHelper(args []string) error {
	err := sandbox.HelperMain(args)
	if err == nil {
		return nil
	}
	var st *sandbox.ExitStatus
	return &exitcode.Err{Code: sandbox.HelperExitCode(err), Err: err, Silent: errors.As(err, &st)}
}

// sandboxOptions are the flags of "oceancode sandbox". --mode and --network
// are session-layer settings (so requirements still apply to them); the rest
// add to the resolved sandbox.* configuration for this one run.
type sandboxOptions struct {
	mode       string
	network    string
	allowHosts []string
	workspace  string
	writable   []string
	deny       []string
	denyRead   []string
	// modeSet and networkSet say whether the flags were given.
	modeSet, networkSet bool
}

func newSandboxCmd(app *App) *cobra.Command {
	var o sandboxOptions
	cmd := &cobra.Command{
		Use:   "sandbox [--mode M] [--network off|allowlist|on] [flags] -- CMD [ARGS...]",
		Short: "Run a command under the kernel sandbox, exactly as the bash tool would",
		Long: `Run a command confined by the kernel sandbox (bubblewrap + Landlock + seccomp on
Linux) with the composed child environment, exactly as the agent's bash tool
would. The exit status is the command's own. If the sandbox is requested and
cannot be set up, the command is refused (exit 5), never run unconfined.

With --network allowlist the command has no network of its own: an egress
proxy started for this run lets HTTP and HTTPS through to the --allow-host
entries (host, host:port, *.domain[:port] or an IP literal; ports 443 and 80
by default) and refuses everything else with 403; each refusal is reported on
stderr.`,
		Args: args(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, argv []string) error {
			o.modeSet, o.networkSet = cmd.Flags().Changed("mode"), cmd.Flags().Changed("network")
			return runSandbox(cmd.Context(), app, o, argv)
		},
	}
	f := cmd.Flags()
	f.SetInterspersed(false)
	f.StringVar(&o.mode, "mode", string(sandbox.ModeWorkspaceWrite), "read-only | workspace-write | danger-full-access (default: the configured mode, else workspace-write)")
	f.StringVar(&o.network, "network", string(sandbox.NetworkOff), "off | allowlist | on (default: the configured sandbox.network)")
	f.StringArrayVar(&o.allowHosts, "allow-host", nil, "host, host:port, *.domain[:port] or IP allowed with --network allowlist (repeatable)")
	f.StringVar(&o.workspace, "workspace", "", "workspace root (default: the current directory)")
	f.StringArrayVar(&o.writable, "writable", nil, "extra writable root (repeatable)")
	f.StringArrayVar(&o.deny, "deny", nil, "root refused for reads and writes, even inside the workspace (repeatable)")
	f.StringArrayVar(&o.denyRead, "deny-read", nil, "path made unreadable (repeatable)")
	return cmd
}

// sandboxPolicy turns the flags into a policy for a command run from cwd.
func sandboxPolicy(o sandboxOptions, cwd string) (sandbox.Policy, error) {
	ws := o.workspace
	if ws == "" {
		ws = cwd
	}
	if !filepath.IsAbs(ws) {
		ws = filepath.Join(cwd, ws)
	}
	p := sandbox.Policy{
		Enabled:    true,
		Mode:       sandbox.Mode(o.mode),
		Network:    sandbox.Network(o.network),
		AllowHosts: o.allowHosts,
		Writable:   o.writable,
		Deny:       o.deny,
		DenyRead:   o.denyRead,
		Workspace:  filepath.Clean(ws),
	}
	if rel, err := filepath.Rel(p.Workspace, cwd); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
		p.Dir = cwd
	}
	return p, p.Validate()
}

func runSandbox(ctx context.Context, app *App, o sandboxOptions, argv []string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	// The probe result is kept in the state directory, and the once-per-
	// process sandbox set-up overlaps with loading the configuration.
	sandbox.SetProbeCacheDir(layers.StateDir(app.Getenv))
	cwd := app.Dir
	var err error
	if cwd == "" {
		cwd, err = os.Getwd()
	}
	if err != nil {
		return fmt.Errorf("sandbox: working directory: %w", err)
	}
	if o.mode != string(sandbox.ModeDangerFullAccess) {
		sandbox.Prewarm(sandbox.Limits{})
		// The search for nested repositories runs on another core while
		// the configuration loads.
		if ws, err := sandboxPolicy(o, cwd); err == nil {
			sandbox.PrewarmWorkspace(ws.Workspace)
		}
	}
	// The configuration decides as it would for the bash tool; --mode and
	// --network enter as session-layer flags, so pins and min_sandbox_mode
	// still hold.
	if o.modeSet || o.networkSet {
		probe := sandbox.Policy{Enabled: true, Mode: sandbox.Mode(o.mode), Network: sandbox.Network(o.network), Workspace: cwd}
		if err := probe.Validate(); err != nil {
			return exitcode.With(exitcode.Usage, err)
		}
	}
	var flags []layers.Setting
	if o.modeSet {
		flags = append(flags, layers.Setting{Key: sessionconfig.SandboxMode.Path(), Value: o.mode, Source: "flag:--mode"})
	}
	if o.networkSet {
		flags = append(flags, layers.Setting{Key: sessionconfig.SandboxNetwork.Path(), Value: o.network, Source: "flag:--network"})
	}
	res, err := loadConfig(app, flags)
	if err != nil {
		return err
	}
	if err := sessionGate(res); err != nil {
		return err
	}
	// --mode read-only under a pin runs under the pinned mode: say so.
	announce(app.Stderr, sessionconfig.Downgrades(res, sessionconfig.SandboxMode, sessionconfig.SandboxNetwork))
	cfgPolicy, _, err := sessionconfig.Sandbox.Decode(res)
	if err != nil {
		return exitcode.With(exitcode.Invalid, err)
	}
	o.mode, o.network = string(cfgPolicy.EffectiveMode()), string(cfgPolicy.Network)
	if o.mode == "" {
		o.mode = string(sandbox.ModeWorkspaceWrite) // the sandbox is off in config: this verb exists to run under it
	}
	if o.network == "" {
		o.network = string(sandbox.NetworkOff)
	}
	o.allowHosts = append(cfgPolicy.AllowHosts, o.allowHosts...)
	o.writable = append(cfgPolicy.Writable, o.writable...)
	o.deny = append(cfgPolicy.Deny, o.deny...)
	o.denyRead = append(cfgPolicy.DenyRead, o.denyRead...)
	p, err := sandboxPolicy(o, cwd)
	if err != nil {
		return exitcode.With(exitcode.Usage, err)
	}
	p.Limits = cfgPolicy.Limits
	envCfg, _, err := sessionconfig.ChildEnv.Decode(res)
	if err != nil {
		return exitcode.With(exitcode.Invalid, err)
	}
	stderr := app.Stderr
	if _, ok := stderr.(*os.File); !ok {
		// The proxy's reports and the command's stderr copy run at once.
		stderr = &syncWriter{w: stderr}
	}
	if p.Confined() && p.EffectiveNetwork() == sandbox.NetworkAllowlist {
		// One proxy for this one command; the agent starts one per session.
		proxy, err := egress.New(egress.Config{Allow: p.AllowHosts, OnDecision: func(d egress.Decision) {
			if !d.Allowed {
				fmt.Fprintf(stderr, "oceancode: %s\n", d)
			}
		}})
		if err != nil {
			return exitcode.With(exitcode.Usage, err)
		}
		if err := proxy.Start(); err != nil {
			return err
		}
		defer proxy.Close()
		p.Egress = proxy
	}
	c, err := sandbox.Command(ctx, p, argv, childenv.Compose(secretenv.Environ(), envCfg))
	switch {
	case errors.Is(err, sandbox.ErrUnavailable):
		return exitcode.With(exitcode.Denied, fmt.Errorf("%w; refusing to run %q unconfined", err, argv[0]))
	case errors.Is(err, sandbox.ErrInvalidPolicy):
		return exitcode.With(exitcode.Usage, err)
	case err != nil:
		return err
	}
	for _, w := range c.Warnings {
		fmt.Fprintf(app.Stderr, "oceancode: warning: %s\n", w)
	}
	c.Stdin, c.Stdout, c.Stderr = app.Stdin, app.Stdout, stderr
	err = c.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code := ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code = 128 + int(ws.Signal())
		}
		return &exitcode.Err{Code: code, Err: err, Silent: true}
	}
	if err != nil {
		return fmt.Errorf("sandbox: run %s: %w", argv[0], err)
	}
	return nil
}

// syncWriter serialises writes from several goroutines.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}
