// Package sessionconfig turns the resolved configuration into one
// session's engine config: the turn loop's plain values (agent.Config),
// the sub-agent hook, the warnings a front end shows, and what must be
// closed when the session ends.
//
// Every configuration key the runtime reads is declared once, in keys.go,
// as a typed value (StringKey, IntKey, BoolKey, ListKey, ObjectKey[T], and
// functions for per-name keys such as agents.NAME.permission_mode), and read
// through its typed accessor, which returns the value, its origin and
// whether it is set, or an error naming the key and where the bad value came
// from. A test checks the registry against the embedded config schema, so a
// misspelt key fails the build's tests instead of silently reading nothing.
//
// The package sits between the configuration packages (layers, provenance,
// schema) and the runtime (agent/...), which never imports them. It returns
// errors, never exit codes: ErrUsage, ErrNoModel and ErrInvalid are its kinds.
// Sessions are built from it by package sessionfactory (the front ends' one
// way to a session), which turns these kinds into its own; only doctor's
// policy probes call Build directly.
package sessionconfig

import (
	"context"
	"errors"
	"fmt"
	"github.com/oceancode/oceancode/agent/checkpoint"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/childenv"
	"github.com/oceancode/oceancode/agent/fsguard"
	"github.com/oceancode/oceancode/agent/gate"
	"github.com/oceancode/oceancode/agent/hooks"
	"github.com/oceancode/oceancode/agent/instructions"
	"github.com/oceancode/oceancode/agent/mcp"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/provider"
	"github.com/oceancode/oceancode/agent/redact"
	"github.com/oceancode/oceancode/agent/sandbox"
	"github.com/oceancode/oceancode/agent/sandbox/egress"
	"github.com/oceancode/oceancode/agent/tools"
	"github.com/oceancode/oceancode/internal/secret"
	"github.com/oceancode/oceancode/internal/secretenv"
	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/requirements"
)

// Error kinds: errors.Is(err, ErrUsage) for what the front end's user asked
// for wrongly (no model, a model not PROVIDER/MODEL, a provider nobody
// configured); errors.Is(err, ErrInvalid) for configuration that cannot be
// used. Other errors (the egress proxy cannot start) are neither.
// ErrNoModel (also ErrUsage) says neither the request nor the configuration
// names a model.
var (
	ErrUsage   = errors.New("usage")
	ErrInvalid = errors.New("invalid configuration")
	ErrNoModel = errors.New("no model")
)

// kindError tags an error with a kind without changing its message.
type kindError struct {
	kind error
	err  error
}

func (e *kindError) Error() string   { return e.err.Error() }
func (e *kindError) Unwrap() []error { return []error{e.kind, e.err} }

func usage(err error) error   { return &kindError{ErrUsage, err} }
func invalid(err error) error { return &kindError{ErrInvalid, err} }

// Request is what a front end asks for (run's flags; serve's POST
// /api/session body). Zero fields take the configuration's values.
type Request struct {
	Agent          string // "" is build
	Model          string // PROVIDER/MODEL
	PermissionMode string
	Sandbox        string // a sandbox mode
	Auto           bool
	MaxTurns       int
	Timeout        time.Duration
	// Via names where the request came from, in its settings' origins:
	// "" is run's flags ("flag:--permission-mode"); serve passes "api"
	// ("api:permission_mode"), so a downgrade note names the request.
	Via string
	// MCPServers are MCP servers the front end's client passes for this
	// session (serve's POST /api/session "mcp_servers"): origin client, so
	// no trust prompt and no ask where no mcp rule decides; the allow-list
	// applies as to every server. A name the configuration already declares
	// is refused (ErrUsage), never silently replaced.
	MCPServers map[string]mcp.Server
}

// Settings are the request's session-layer settings, for layers.Resolve.
func (r Request) Settings() []layers.Setting {
	var s []layers.Setting
	add := func(k Key, v, flag string) {
		if v == "" {
			return
		}
		src := "flag:--" + flag
		if r.Via != "" {
			src = r.Via + ":" + k.Path()
		}
		s = append(s, layers.Setting{Key: k.Path(), Value: v, Source: src})
	}
	add(PermissionMode, r.PermissionMode, "permission-mode")
	add(SandboxMode, r.Sandbox, "sandbox")
	add(Model, r.Model, "model")
	return s
}

// Host is what Build needs from the process around it.
type Host struct {
	// Getenv reads the process's environment (HOME, the providers' key
	// variables); nil is an empty environment.
	Getenv  func(string) string
	WorkDir string
	// Provider returns the provider for a resolved provider config (run
	// passes its pre-started remote.Client; serve pools clients by config).
	Provider func(provider.Config) (provider.Provider, error)
	// Warn, if set, receives each warning line as Build finds it, so a
	// front end can print it even when Build then fails; Session.Warnings
	// holds them all either way.
	Warn func(line string)
}

// Session is one session's engine config.
type Session struct {
	// Turn is the turn loop's configuration: Provider, Model, System, Gate,
	// Tools, Env, Auto, limits, Redact, Notices. The front end or the
	// engine sets OnEvent, OnMessage, Approvals and Ask.
	Turn agent.Config
	// SubAgent returns the turn config of the task tool's sub-agent name
	// ("" is explore): its own gate, its prompt, the built-in tools only,
	// the session's model. Its Env is nil: the caller runs it in the
	// session's environment.
	SubAgent func(name string) (agent.Config, error)
	// Warnings are lines for the front end's stderr, without a prefix
	// (downgraded modes and sandboxes, secrets that could not be hidden).
	Warnings []string
	// MCP is the session's MCP servers (started by Build, in parallel; the
	// first turn waits for their listing through Turn.Extra). Its Add is
	// the runtime add (POST /mcp, `/mcp add`).
	MCP *mcp.Manager
	// Close releases what the session holds (the egress proxy, the MCP
	// servers); it is never nil and may be called more than once.
	Close func()
	// Reconfigure builds the config of another model or agent for the
	// running session (runner.Options.Reconfigure): the same checks as
	// Build (the requirements' allowed_models and allowed_providers; the
	// agent's rules and mode locks).
	Reconfigure func(ctx context.Context, agent, model string) (agent.Config, error)
	// Sandbox and Policy are the status strings (runner.Options.Sandbox,
	// Policy): SandboxStatus and PolicyStatus.
	Sandbox, Policy string
	// Instructions are the session's instruction files (AGENTS.md,
	// CLAUDE.md): those in the system prompt and those joined since.
	Instructions *instructions.Set
	// Model is the session's model as PROVIDER/MODEL (runner.Options.Model:
	// what the session's record keeps, so a resume takes it up).
	Model string
	// Hooks runs the session's hooks (nil: none); Turn.Hooks is its Fire.
	// The factory gives it the session's id (SetSession).
	Hooks *hooks.Runner
	// Custom is the session's custom commands and skills.
	Custom Custom
	// Checkpoints are the checkpoints the session keeps
	// (runner.Options.Checkpoints; nil: off): CheckpointOptions.
	Checkpoints *checkpoint.Options
}

func (s *Session) warn(h Host, line string) {
	s.Warnings = append(s.Warnings, line)
	if h.Warn != nil {
		h.Warn(line)
	}
}

// Check reports what is wrong with the request itself (a usage error).
func (r Request) Check() error {
	if r.PermissionMode != "" {
		if _, err := permission.ParseMode(r.PermissionMode); err != nil {
			return usage(fmt.Errorf("check request permission_mode: %w", err))
		}
	}
	if r.Sandbox != "" && !slices.Contains(SandboxMode.Enum(), r.Sandbox) {
		return usage(fmt.Errorf("check request sandbox %q: want one of %s", r.Sandbox, strings.Join(SandboxMode.Enum(), ", ")))
	}
	if r.MaxTurns < 0 {
		return usage(fmt.Errorf("check request max_turns %d: want 1 or more (0: the config's)", r.MaxTurns))
	}
	if r.Timeout < 0 {
		return usage(fmt.Errorf("check request timeout %v: want a positive duration (0: the config's)", r.Timeout))
	}
	return nil
}

// Build turns the resolved configuration and the request into a session's
// engine config. A bad request is ErrUsage; a configuration the layers
// refused is res.Err() (errors.Is layers.ErrInvalidConfig or
// layers.ErrRequirementsRefused), which front ends usually check first to
// tell a bad flag from a broken file. On error nothing stays open.
func Build(ctx context.Context, res *layers.Resolved, req Request, h Host) (*Session, error) {
	if err := req.Check(); err != nil {
		return nil, err
	}
	if res == nil {
		return nil, errors.New("build session: no resolved configuration")
	}
	if err := res.Err(); err != nil {
		return nil, err
	}
	if h.Getenv == nil {
		h.Getenv = func(string) string { return "" }
	}
	name := req.Agent
	if name == "" {
		name = agent.Build
	}
	s := &Session{}
	var closers []func()
	s.Close = func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
		closers = nil
	}
	home := h.Getenv("HOME")
	// The state and config directories are secrets paths for the read and
	// grep tools and the shell guard, as .env is.
	stateDir := layers.StateDir(h.Getenv)
	fsguard.SetSecretDirs(stateDir, layers.UserConfigDir(h.Getenv))
	gc, err := GateConfig(res, name, home)
	if err != nil {
		return nil, invalid(err)
	}
	cwd := h.WorkDir
	if cwd == "" {
		return nil, errors.New("build session: no working directory")
	}
	// Outside a project the working directory is the root: of this gate as
	// of the tools, the sub-agents and a switched agent (agentBuild).
	root := res.ProjectRoot
	if root == "" {
		root = cwd
		gc.Boundary.ProjectRoot = cwd
	}
	g, err := gate.New(gc)
	if err != nil {
		return nil, invalid(err)
	}
	if s.Checkpoints, err = CheckpointOptions(res, h.Getenv); err != nil {
		return nil, invalid(err)
	}
	// A mode or sandbox asked for and downgraded by the requirements — from
	// a flag, the environment, a config file or the agent's definition — is
	// said so, as a warning and as a mode_change event: never silently.
	for _, d := range Downgrades(res, append(ModeKeys(name), SandboxKeys...)...) {
		s.warn(h, d.Note())
		s.Turn.Notices = append(s.Turn.Notices, d.Event())
	}
	if err := secretenv.Err(); err != nil {
		s.warn(h, fmt.Sprintf("warning: commands may read what this process could not hide: %v", err))
	}
	if ch := g.Engine().ModeChange(); ch.Downgraded() {
		s.warn(h, fmt.Sprintf("permission mode %s is not available: %s; running in %s", ch.Requested, ch.Reason, ch.Effective))
	}

	model, _, _, err := Model.Get(res)
	if err != nil {
		return nil, invalid(err)
	}
	prov, modelName, err := providerFor(res, model, req.Via, h)
	if err != nil {
		return nil, err
	}

	pol, _, err := Sandbox.Decode(res)
	if err != nil {
		return nil, invalid(err)
	}
	pol.Workspace, pol.Dir = root, cwd
	if pol.Confined() && pol.EffectiveNetwork() == sandbox.NetworkAllowlist {
		px, err := egress.New(egress.Config{Allow: pol.AllowHosts})
		if err != nil {
			return nil, invalid(fmt.Errorf("%s: %w", SandboxAllowHosts.Path(), err))
		}
		if err := px.Start(); err != nil {
			return nil, fmt.Errorf("start the egress proxy: %w", err)
		}
		closers = append(closers, func() { px.Close() })
		pol.Egress = px
	}
	fail := func(err error) (*Session, error) {
		s.Close()
		return nil, err
	}
	envCfg, _, err := ChildEnv.Decode(res)
	if err != nil {
		return fail(invalid(err))
	}
	tracker := &fsguard.Tracker{}
	tracker.Start(time.Now())
	env := &tools.Env{Boundary: gc.Boundary, Cwd: cwd, Tracker: tracker, Sandbox: pol,
		ChildEnv: childenv.Compose(secretenv.Environ(), envCfg), Todos: &tools.TodoList{}}

	// The MCP servers start now, in parallel, each through the one start
	// check (allow-list, trust); the first model request waits only for
	// their tool listing.
	mc, err := MCPSettings(res, root, h.Getenv)
	if err != nil {
		return fail(err)
	}
	if mc.Servers, err = withClientServers(mc.Servers, req.MCPServers); err != nil {
		return fail(err)
	}
	mc.Env, mc.Sandbox = env.ChildEnv, pol
	mc.Policy.Denied = mcp.DeniedBy(func(s, t string) bool { return g.Engine().OfferedMCP(s, t) }) // the live mode's engine
	mc.Sandbox.Dir = root
	s.MCP = mcp.Start(mc)
	closers = append(closers, func() { s.MCP.Close() })

	maxTurns, timeout := req.MaxTurns, req.Timeout
	if v, _, ok, err := LimitsTimeout.Get(res); err != nil {
		return fail(invalid(err))
	} else if ok && timeout == 0 {
		timeout = time.Duration(v) * time.Second
	}
	if v, _, ok, err := LimitsMaxTurns.Get(res); err != nil {
		return fail(invalid(err))
	} else if ok && maxTurns == 0 {
		maxTurns = v
	}
	maxTokens, _, _, err := LimitsMaxTokens.Get(res)
	if err != nil {
		return fail(invalid(err))
	}
	custom := s.loadCustom(res, h, model)
	redactor := sessionRedactor(root, stateDir)
	closers = append(closers, redactor.Wait) // its first load may still write to the state dir
	ab := agentBuild{res: res, home: home, boundary: gc.Boundary, root: root, cwd: cwd, tools: custom.tools}
	if err := s.withInstructions(h, res, cwd, redactor.Redact, &ab); err != nil {
		return fail(invalid(err))
	}
	system, err := ab.system(name)
	if err != nil {
		return fail(err)
	}
	notices := s.Turn.Notices
	s.Turn = agent.Config{
		Agent: name, Model: modelName, Provider: prov, Gate: g, Env: env,
		System:   system,
		Tools:    custom.tools(),
		Commands: custom.Commands,
		Auto:     req.Auto,
		MaxTurns: maxTurns, Timeout: timeout, MaxTokens: maxTokens,
		Redact:    redactor.Redact,
		Notices:   notices,
		Extra:     s.MCP.Extra,
		Workspace: WorkspaceTrustOf(res),
		Touched:   s.touched,
	}
	if err := withModel(res, model, &s.Turn); err != nil {
		return fail(err)
	}
	s.Reconfigure = reconfigurer(ab, req.Via, h, s.MCP)
	s.Sandbox, s.Policy, s.Model = SandboxStatus(pol), PolicyStatus(res), model
	if err := s.withAdvisor(h, res, prov, modelName, root); err != nil {
		return fail(invalid(err))
	}
	hr := &hooks.Runner{Sandbox: pol, Env: env.ChildEnv, Dir: cwd, ProjectRoot: root, Redact: redactor.Redact}
	if err := s.withHooks(h, res, hr); err != nil {
		return fail(invalid(err))
	}
	// Sub-agents get the built-in tools only, never MCP or skill tools,
	// and a gate of their own agent's rules within the session's boundary.
	base := s.Turn
	s.SubAgent = func(subName string) (agent.Config, error) {
		sub := base
		sub.Agent = subName
		if subName == "" {
			sub.Agent = agent.Explore
		}
		var err error
		if sub.Gate, sub.System, err = ab.parts(sub.Agent); err != nil {
			return agent.Config{}, err
		}
		sub.Tools = tools.Builtins()
		sub.Hooks = toolHooksOnly(base.Hooks)
		sub.Extra = nil // no MCP tools
		sub.Notices, sub.OnEvent, sub.OnMessage = nil, nil, nil
		sub.Env = nil // the session's, as the engine holds it (its ask and task hooks)
		return sub, nil
	}
	return s, nil
}

// sessionRedactor is the pass every tool result takes (agent/redact): the
// workspace's secrets files, the environment's secrets and provider keys,
// and the server token serve keeps in the state dir, which also holds the
// notes of workspaces whose secrets files' history held no value.
func sessionRedactor(root, stateDir string) *redact.Redactor {
	var files []redact.File
	cache := ""
	if stateDir != "" {
		files = append(files, redact.File{Path: filepath.Join(stateDir, "server.token"), Name: "server token"})
		cache = filepath.Join(stateDir, "history-clean")
	}
	return redact.New(redact.Config{Root: root, Files: files, HistoryCache: cache})
}

// providerFor picks the provider and model name from "PROVIDER/MODEL" and
// the provider's configuration, and asks the host for the provider; the
// API key is read from the environment.
func providerFor(res *layers.Resolved, model, via string, h Host) (provider.Provider, string, error) {
	if model == "" {
		how := "pass --model PROVIDER/MODEL"
		if via == "api" {
			how = `send "model": "PROVIDER/MODEL" in the request`
		}
		return nil, "", usage(&kindError{ErrNoModel, fmt.Errorf("no model: %s or set \"model\" in the config (see docs/providers.md)", how)})
	}
	name, modelName, ok := strings.Cut(model, "/")
	if !ok || name == "" || modelName == "" {
		return nil, "", usage(fmt.Errorf("model %q: want PROVIDER/MODEL, e.g. anthropic/claude-sonnet-4-5 or local/qwen3-coder", model))
	}
	// The allowed models first: a refused model is refused whether or not
	// its provider is configured.
	if err := refusedBy(res, model, func(p *requirements.Policy) (bool, string) { return p.ModelAllowed(model) }); err != nil {
		return nil, "", err
	}
	pc, _, err := Provider(name).Decode(res)
	if err != nil {
		return nil, "", invalid(err)
	}
	if pc.Type == "" {
		switch name {
		case "anthropic", "openai":
			pc.Type = name
		default:
			return nil, "", usage(fmt.Errorf("model %q: no provider %q is configured: add \"provider\": {%q: {\"type\": \"openai\", \"base_url\": …}} (see docs/providers.md)", model, name, name))
		}
	}
	if pc.APIKeyEnv == "" {
		pc.APIKeyEnv = DefaultKeyEnv(pc.Type)
	}
	cfg := provider.Config{Type: pc.Type, BaseURL: pc.BaseURL, Headers: pc.Headers, Stream: pc.Stream == nil || *pc.Stream}
	if pc.APIKeyEnv != "" {
		if secret.LooksLikeKey(pc.APIKeyEnv) {
			return nil, "", invalid(fmt.Errorf("provider %q: api_key_env holds what looks like an API key, not the name of an environment variable: put the key in a variable (export %s=…) and name that variable here", name, DefaultKeyEnv(pc.Type)))
		}
		cfg.APIKey = h.Getenv(pc.APIKeyEnv)
		// The key's variable leaves the environment children see, even
		// when its name does not look secret.
		secretenv.Hide(pc.APIKeyEnv)
		remember(cfg.APIKey)
	}
	switch pc.Type {
	case "anthropic", "openai":
	default:
		return nil, "", invalid(fmt.Errorf("provider %q: type %q: %w (want anthropic or openai)", name, pc.Type, provider.ErrUnknownType))
	}
	if err := refusedBy(res, model, func(p *requirements.Policy) (bool, string) { return p.ProviderAllowed(name, pc.Type, pc.BaseURL) }); err != nil {
		return nil, "", err
	}
	if h.Provider == nil {
		return nil, "", errors.New("build session: the host has no provider")
	}
	p, err := h.Provider(cfg)
	if err != nil {
		return nil, "", err
	}
	return p, modelName, nil
}

// refusedBy refuses a model or provider endpoint the requirements'
// allowed_models or allowed_providers (of the policy, or of a scope that
// applies here) exclude, before any provider is built: every front end
// builds its provider here, so none can reach a model the policy refuses.
// The error is layers.ErrRequirementsRefused (exit 4).
func refusedBy(res *layers.Resolved, model string, allowed func(*requirements.Policy) (bool, string)) error {
	pol := res.Locks.Policy
	if pol == nil {
		return nil
	}
	ok, why := allowed(pol)
	if ok {
		return nil
	}
	src := ""
	if res.Requirements != nil {
		src = " " + res.Requirements.Path
	}
	return &kindError{layers.ErrRequirementsRefused, fmt.Errorf("start session with model %s: refused by requirements%s: %s", model, src, why)}
}

// DefaultKeyEnv is the variable a provider type's key is read from when
// api_key_env does not say.
func DefaultKeyEnv(typ string) string {
	return map[string]string{"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}[typ]
}

// remembered holds the keys given to secretenv.Remember, so a server that
// builds many sessions with one key adds it (and rebuilds the redactor)
// once.
var remembered sync.Map

func remember(key string) {
	if key == "" {
		return
	}
	if _, dup := remembered.LoadOrStore(key, true); !dup {
		secretenv.Remember(key)
	}
}
