// Package policyproof proves that the requirements policy in effect on a
// machine holds: for each lock (a locked-out mode, a pinned key, a deny
// rule, the minimum sandbox, the version floor, the allowed models and
// providers, the organisation instructions, the shell posture) it tries
// every path by which the lock could be reached — flags, environment,
// project, user and managed config, agent definitions, "always" approvals,
// the live mode switch — through the code a session runs (layers.Resolve,
// sessionconfig, agent/gate, a real loopback server), and checks that the
// dangerous floor holds under bypassPermissions with an allow-all rule.
//
// It is a bridge like sessionconfig: it reads the resolved layers and
// builds the runtime's gate and sessions from them, so it lives at the
// module root (agent/... never imports layers). Results are typed: each
// Result says which Lock it proved, by which path, and an Outcome; `oceancode
// doctor --policy` only renders them and maps a Broken one to its exit
// status (docs/runtime.md, "oceancode doctor").
package policyproof

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/oceancode/oceancode/agent/gate"
	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/provenance"
	"github.com/oceancode/oceancode/sessionconfig"
)

// Outcome is what came of one check.
type Outcome int

const (
	// Held: the path was tried and the lock held.
	Held Outcome = iota + 1
	// Broken: the path reached what the lock forbids.
	Broken
	// NotRun: the check could not run (sessions refused here, the engine
	// could not be built, …); never a Broken of the lock it was meant to
	// prove. Result.Err says why.
	NotRun
	// NotApplicable: there is nothing to try (a scope that does not apply
	// to this machine, a pinned key with no other valid value).
	NotApplicable
)

// Kind is the kind of lock a check proves.
type Kind int

const (
	Mode             Kind = iota + 1 // a permission mode locked out (Subject: the mode)
	Pin                              // a pinned key (Subject: the key)
	Deny                             // a requirements deny rule (Subject: the rule)
	MinSandbox                       // the minimum sandbox mode (Subject: the mode)
	Floor                            // the dangerous floor
	Scope                            // a scope of the requirements (Subject: its name)
	MinVersion                       // the version floor (Subject: the version)
	AllowedModels                    // the allowed models
	AllowedProviders                 // the allowed provider endpoints
	Instructions                     // the organisation instructions
	ShellPosture                     // the shell posture (Subject: its name)
	ManagedHooks                     // allow_managed_hooks_only (hooks.go)
)

// Lock is what a check proves.
type Lock struct {
	Kind    Kind
	Subject string
}

// String names the lock as doctor prints it: "mode bypassPermissions
// locked out", "pin sandbox.mode", "deny Bash(curl:*)", ….
func (l Lock) String() string {
	switch l.Kind {
	case Mode:
		return "mode " + l.Subject + " locked out"
	case Pin:
		return "pin " + l.Subject
	case Deny:
		return "deny " + l.Subject
	case MinSandbox:
		return "sandbox at least " + l.Subject
	case Floor:
		return "dangerous floor"
	case Scope:
		return "scope " + l.Subject
	case MinVersion:
		return "version at least " + l.Subject
	case AllowedModels:
		return "allowed models"
	case AllowedProviders:
		return "allowed providers"
	case Instructions:
		return "organisation instructions"
	case ShellPosture:
		return "shell posture " + l.Subject
	case ManagedHooks:
		return "only managed hooks run"
	}
	return fmt.Sprintf("lock kind %d %s", int(l.Kind), l.Subject)
}

// Result is one check: a path by which Lock could be reached, and whether
// it held.
type Result struct {
	Lock    Lock
	Path    string // how it was tried: "flag --permission-mode", "user config", …
	Outcome Outcome
	// Detail is what came of it, a clause for people ("downgraded to
	// default, and announced"; for NotRun "could not run: " and Err).
	Detail string
	// Err is why a NotRun check could not run.
	Err error
}

// ErrRefused is wrapped by a NotRun result's Err when sessions are refused
// on this machine, so no session-building check can run.
var ErrRefused = errors.New("sessions are refused here")

// Config is the machine the proof runs on.
type Config struct {
	// Layers are the loader's options for this machine (the directory,
	// the environment, …), as the command that resolved the base config
	// used them. Each check adds its probes and flags to a copy; the
	// anti-rollback state is read, never written.
	Layers layers.Options
	// Home is the user's home directory (the permission engine's ~).
	Home string
}

// Prove runs every check of the policy in base (the resolved config of
// this machine), and the dangerous floor, and returns the results in a
// stable order.
func Prove(base *layers.Resolved, c Config) []Result {
	if c.Layers.Dir == "" {
		// Sessions are built in the directory the layers are read from.
		c.Layers.Dir, _ = os.Getwd()
	}
	p := &prover{cfg: c}
	p.run(base)
	return p.results
}

// prover tries paths against the machine's real configuration.
type prover struct {
	cfg     Config
	results []Result
}

func (p *prover) resolve(probes []layers.Probe, flags []layers.Setting, env map[string]string, tweak ...func(*layers.Options)) *layers.Resolved {
	o := p.cfg.Layers
	if len(env) > 0 {
		getenv := o.Getenv
		o.Getenv = func(k string) string {
			if v, ok := env[k]; ok {
				return v
			}
			if getenv == nil {
				return ""
			}
			return getenv(k)
		}
	}
	// Probes read the anti-rollback state (so a last-known-good policy
	// counts) but never write it.
	o.Flags = append(slices.Clip(o.Flags), flags...)
	o.Probes, o.StateReadOnly = probes, true
	for _, f := range tweak {
		f(&o)
	}
	return layers.Resolve(o)
}

func (p *prover) add(l Lock, path string, o Outcome, detail string) {
	p.results = append(p.results, Result{Lock: l, Path: path, Outcome: o, Detail: detail})
}

// notRun records a check that could not run, with why: never a Broken of
// the lock it was meant to prove.
func (p *prover) notRun(l Lock, path string, err error) {
	p.results = append(p.results, Result{Lock: l, Path: path, Outcome: NotRun, Detail: "could not run: " + err.Error(), Err: err})
}

// layerPaths are the config layers a user or project controls, plus managed.
var layerPaths = []struct {
	layer provenance.Layer
	name  string
}{{provenance.Project, "project config"}, {provenance.User, "user config"}, {provenance.Managed, "managed config"}}

// probe is a setting a check writes into one layer.
func probe(layer provenance.Layer, key string, v any) []layers.Probe {
	return []layers.Probe{{Layer: layer, Setting: layers.Setting{Key: key, Value: v, Source: "doctor:probe"}}}
}

// run proves every lock of the policy in effect, and the dangerous floor.
func (p *prover) run(base *layers.Resolved) {
	pol := base.Locks.Policy
	p.floor()
	if pol == nil {
		return
	}
	for _, mode := range slices.Sorted(maps.Keys(base.Locks.DisallowedModes)) {
		p.mode(mode)
		p.liveMode(base, mode)
	}
	for _, k := range slices.Sorted(maps.Keys(pol.Pins)) {
		p.pin(k, pol.Pins[k])
	}
	if pol.Rules != nil {
		for _, r := range pol.Rules.Deny {
			p.denyRule(r)
		}
	}
	if pol.MinSandboxMode != "" {
		p.minSandbox(pol.MinSandboxMode)
	}
	p.newKinds(base)
	if pol.AllowManagedHooksOnly {
		p.managedHooks() // hooks.go
	}
}

// refused is the error a check that needs a session gets when r refuses
// sessions.
func refused(r *layers.Resolved) error {
	if err := r.Err(); err != nil {
		return fmt.Errorf("%w: %s", ErrRefused, RefusedWhy(err))
	}
	return nil
}

// RefusedWhy says in one clause why sessions are refused, for err from
// layers.Resolved.Err.
func RefusedWhy(err error) string {
	var ce *layers.ConfigError
	var re *layers.RefusedError
	switch {
	case errors.As(err, &ce):
		return fmt.Sprintf("the configuration has %d error(s)", len(ce.Diagnostics))
	case errors.As(err, &re):
		return fmt.Sprintf("requirements %s refused, and no last-known-good policy exists on this machine (%s)", re.Result.Path, strings.TrimSuffix(oneLine(re.Result.Reason), "."))
	}
	return oneLine(err.Error())
}

func oneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }

// gateFor builds the gate exactly as a session does: the session gate
// first, then the same sessionconfig.GateConfig and gate.New as run.
func (p *prover) gateFor(r *layers.Resolved, agent string) (*gate.Gate, error) {
	if err := refused(r); err != nil {
		return nil, err
	}
	cfg, err := sessionconfig.GateConfig(r, agent, p.cfg.Home)
	if err != nil {
		return nil, fmt.Errorf("the permission engine cannot be built: %w", err)
	}
	return gate.New(cfg)
}

// announced says whether a session would announce the downgrade of key (on
// stderr and as a mode_change event), as run does.
func announced(r *layers.Resolved, keys ...sessionconfig.Key) bool {
	return len(sessionconfig.Downgrades(r, keys...)) > 0
}

// flags are the session-layer settings of a run's flags.
func flags(req sessionconfig.Request) []layers.Setting { return req.Settings() }
