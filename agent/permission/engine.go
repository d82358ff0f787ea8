package permission

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/oceancode/oceancode/provenance"
)

// Locks are the limits the signed requirements impose, handed to the engine
// as plain values so that a lock is enforced by the runtime itself (boot and
// live mode switches alike).
type Locks struct {
	// DisallowedModes maps a locked-out mode to the reason, e.g.
	// bypassPermissions → "locked out by requirements
	// /etc/oceancode/requirements.json (serial 7)".
	DisallowedModes map[Mode]string
	// Deny and Ask are the requirements' extra rules. They are evaluated
	// after everything else and can only narrow: a requirements rule
	// applies when it is stricter than the decision so far.
	Deny, Ask []Rule
	// ShellPosture is a named shell posture ("" = none). PostureDefaultDeny
	// makes every bash command ask, and nothing below the requirements
	// loosens that: config allow rules, shell.allow, the read-only safe
	// list, a mode's allow rules and session approvals no longer allow a
	// bash call. Deny rules and the dangerous floor still deny.
	ShellPosture Posture
	// PostureOrigin is where the posture came from (the requirements file).
	PostureOrigin provenance.Origin
}

// Posture is a named shell posture.
type Posture string

// PostureDefaultDeny: every bash command asks ("bash * ask" that no lower
// layer can loosen).
const PostureDefaultDeny Posture = "default-deny"

// Config is everything the engine needs, as plain values.
type Config struct {
	// Agent is the agent's name: "build" (also ""), "plan", "explore" or a
	// custom agent, which gets build's defaults.
	Agent string
	// AgentRules are the agent's own configured rules (a custom agent's
	// definition, or config rules scoped to this agent). They come after
	// the config rules.
	AgentRules []Rule
	// Rules are the config's permission rules, already in layer order
	// (lowest layer first), each with its provenance.
	Rules []Rule
	// Mode is the boot mode ("" = default).
	Mode Mode
	// ModeOrigin is where Mode was set (flag, config file, agent definition).
	ModeOrigin provenance.Origin
	// Locks are the requirements' locks.
	Locks Locks
}

// ModeChange reports a mode request and what came of it.
type ModeChange struct {
	Requested Mode
	Effective Mode
	// Reason is empty when the requested mode took effect, else why not.
	Reason string
}

// Downgraded reports whether the requested mode was refused.
func (c ModeChange) Downgraded() bool { return c.Requested != c.Effective }

// tier is one stage of evaluation.
type tier uint8

const (
	tierRules    tier = iota // base, agent defaults, config, agent config: last match wins
	tierRestrict             // the agent's restrictions: only narrow
	tierMode                 // the mode's rules: last match wins, never reopens a deny
	tierReq                  // requirements: only narrow
	numTiers
)

// crule is a rule with its compiled pattern.
type crule struct {
	r        *Rule
	m        matcher
	catchAll bool // the pattern is "*"
	tier     tier
	// strict: a catch-all ask that applies to safe bash segments too (the
	// default-deny shell posture).
	strict bool
}

// ruleset holds one tier's rules, by key. Each key's list holds the rules
// for that key and the "*" rules, in order; keys with no rule of their own
// use star.
type ruleset struct {
	byKey map[string][]crule
	star  []crule
	all   []*Rule
}

func (rs *ruleset) forKey(k string) []crule {
	if l, ok := rs.byKey[k]; ok {
		return l
	}
	return rs.star
}

func buildRuleset(rules []*Rule, t tier) (ruleset, error) {
	rs := ruleset{byKey: map[string][]crule{}, all: rules}
	keys := map[string]bool{}
	all := make([]crule, 0, len(rules))
	for _, r := range rules {
		m, err := compile(r.Key, r.Pattern)
		if err != nil {
			return ruleset{}, fmt.Errorf("permission: rule %s from %s: %w", r, r.Origin, err)
		}
		all = append(all, crule{r: r, m: m, catchAll: m.kind == matchAll, tier: t})
		if r.Key != "*" {
			keys[r.Key] = true
		}
	}
	for _, c := range all {
		if c.r.Key == "*" {
			rs.star = append(rs.star, c)
		}
	}
	for k := range keys {
		var l []crule
		for _, c := range all {
			if c.r.Key == k || c.r.Key == "*" {
				l = append(l, c)
			}
		}
		rs.byKey[k] = l
	}
	return rs, nil
}

// Engine evaluates tool calls. It is immutable after New and safe for
// concurrent use; WithMode returns a new Engine.
type Engine struct {
	agent  string
	mode   Mode
	change ModeChange
	locks  Locks
	origin provenance.Origin // where the mode was set

	tiers [numTiers]ruleset
	// base is the "* * allow" rule, so the MCP origin fallback can tell
	// "no rule decided".
	base *Rule
}

// builtin is the origin of the engine's own rules.
var builtin = provenance.Origin{Layer: provenance.Default, Source: "builtin"}

// New compiles c into an Engine. A mode the locks rule out becomes Default
// (see ModeChange); an invalid rule, a requirements allow rule or an unknown
// mode is an error naming it.
func New(c Config) (*Engine, error) {
	mode, err := ParseMode(string(c.Mode))
	if err != nil {
		return nil, err
	}
	e := &Engine{agent: agentName(c.Agent), origin: c.ModeOrigin}
	e.locks = copyLocks(c.Locks)

	base := &Rule{Key: "*", Pattern: "*", Action: Allow, Origin: builtin, Source: "base"}
	e.base = base
	rules := []*Rule{base}
	for _, r := range agentDefaults(e.agent) {
		rules = append(rules, r)
	}
	add := func(list []Rule, source string) error {
		for i := range list {
			r, err := normRule(list[i], source)
			if err != nil {
				return err
			}
			rules = append(rules, r)
		}
		return nil
	}
	if err := add(c.Rules, "config"); err != nil {
		return nil, err
	}
	if err := add(c.AgentRules, "agent:"+e.agent); err != nil {
		return nil, err
	}
	if e.tiers[tierRules], err = buildRuleset(rules, tierRules); err != nil {
		return nil, err
	}
	if e.tiers[tierRestrict], err = buildRuleset(agentRestrictions(e.agent), tierRestrict); err != nil {
		return nil, err
	}
	var req []*Rule
	for _, l := range []struct {
		rules []Rule
		want  Action
	}{{c.Locks.Deny, Deny}, {c.Locks.Ask, Ask}} {
		for i := range l.rules {
			r, err := normRule(l.rules[i], "requirements")
			if err != nil {
				return nil, err
			}
			if r.Action != l.want {
				return nil, fmt.Errorf("permission: requirements rule %s from %s: requirements can only deny or ask (listed under %s)", r, r.Origin, l.want)
			}
			req = append(req, r)
		}
	}
	var posture *Rule
	switch c.Locks.ShellPosture {
	case "":
	case PostureDefaultDeny:
		posture = &Rule{Key: "bash", Pattern: "*", Action: Ask, Origin: c.Locks.PostureOrigin, Source: PostureSource}
		req = append(req, posture)
	default:
		return nil, fmt.Errorf("permission: shell posture %q from %s: unknown (want %s)", c.Locks.ShellPosture, c.Locks.PostureOrigin, PostureDefaultDeny)
	}
	if e.tiers[tierReq], err = buildRuleset(req, tierReq); err != nil {
		return nil, err
	}
	if posture != nil {
		rs := &e.tiers[tierReq]
		for _, l := range append([][]crule{rs.star}, slices.Collect(maps.Values(rs.byKey))...) {
			for i := range l {
				l[i].strict = l[i].r == posture
			}
		}
	}
	eff, ch := e.effectiveMode(mode, Default)
	if eff == "" {
		return nil, fmt.Errorf("permission: mode %s: %s", mode, ch.Reason)
	}
	e.change = ch
	e.setMode(eff)
	return e, nil
}

func copyLocks(l Locks) Locks {
	out := Locks{Deny: append([]Rule(nil), l.Deny...), Ask: append([]Rule(nil), l.Ask...), ShellPosture: l.ShellPosture, PostureOrigin: l.PostureOrigin}
	if l.DisallowedModes != nil {
		out.DisallowedModes = make(map[Mode]string, len(l.DisallowedModes))
		for k, v := range l.DisallowedModes {
			out.DisallowedModes[k] = v
		}
	}
	return out
}

// normRule validates a caller's rule and returns a copy the engine owns.
func normRule(in Rule, source string) (*Rule, error) {
	r := in
	r.Key = Key(r.Key)
	if r.Key == "" {
		return nil, fmt.Errorf("permission: rule %q from %s: empty tool key", in.Pattern, in.Origin)
	}
	if err := checkName(r.Key); err != nil {
		return nil, fmt.Errorf("permission: rule %s from %s: %w", in.Spec(), in.Origin, err)
	}
	if r.Pattern == "" {
		r.Pattern = "*"
	}
	if !r.Action.Valid() {
		return nil, fmt.Errorf("permission: rule %s from %s: invalid action %d", r.Spec(), r.Origin, int(r.Action))
	}
	if r.Source == "" {
		r.Source = source
	}
	return &r, nil
}

// effectiveMode applies the locks: a locked-out mode becomes Default, or
// fallback when Default itself is locked out ("" when that is locked too).
func (e *Engine) effectiveMode(m, fallback Mode) (Mode, ModeChange) {
	ch := ModeChange{Requested: m, Effective: m}
	why, locked := e.locks.DisallowedModes[m]
	if !locked {
		return m, ch
	}
	if why == "" {
		why = "locked out by requirements"
	}
	// The requirements' reasons name the mode already ("bypassPermissions
	// is locked out …"): say it once.
	if !strings.HasPrefix(why, string(m)+" ") {
		why = fmt.Sprintf("%s is %s", m, why)
	}
	to := Default
	if dwhy, dlocked := e.locks.DisallowedModes[Default]; dlocked {
		if _, flocked := e.locks.DisallowedModes[fallback]; flocked || fallback == Default {
			ch.Effective = ""
			ch.Reason = fmt.Sprintf("%s, and default is %s", why, strings.TrimPrefix(dwhy, "default is "))
			return "", ch
		}
		to = fallback
	}
	ch.Effective = to
	ch.Reason = fmt.Sprintf("%s; using %s", why, to)
	return to, ch
}

func (e *Engine) setMode(m Mode) {
	e.mode = m
	rules := modeRules(m, e.origin)
	rs, err := buildRuleset(rules, tierMode)
	if err != nil { // the engine's own rules always compile
		panic(err)
	}
	e.tiers[tierMode] = rs
}

// Mode returns the effective mode.
func (e *Engine) Mode() Mode { return e.mode }

// Agent returns the agent name the engine was built for.
func (e *Engine) Agent() string { return e.agent }

// ModeChange reports what New did with the configured mode (a lock may have
// downgraded it).
func (e *Engine) ModeChange() ModeChange { return e.change }

// ModeLock reports whether the locks rule mode m out, and the reason a
// switch to it would give — WithMode's ModeChange, without building the
// engine (a state shows every mode's lock).
func (e *Engine) ModeLock(m Mode) (locked bool, reason string) {
	if _, ch := e.effectiveMode(m, e.mode); ch.Downgraded() {
		return true, ch.Reason
	}
	return false, ""
}

// WithMode returns an engine in mode m, for a live switch. A mode the locks
// rule out becomes Default (or stays the current mode when Default is locked
// out too), and the ModeChange says why. An unknown mode leaves the mode as
// it is, with the reason.
func (e *Engine) WithMode(m Mode) (*Engine, ModeChange) {
	n := *e
	n.origin = provenance.Origin{Layer: provenance.Session, Source: "live mode switch"}
	if !m.Valid() {
		pm, err := ParseMode(string(m))
		if err != nil {
			return e, ModeChange{Requested: m, Effective: e.mode, Reason: err.Error()}
		}
		m = pm
	}
	eff, ch := n.effectiveMode(m, e.mode)
	if eff == "" { // cannot happen: fallback is the current, allowed mode
		return e, ModeChange{Requested: m, Effective: e.mode, Reason: ch.Reason}
	}
	n.change = ch
	n.setMode(eff)
	return &n, ch
}

// Rules returns every rule the engine evaluates, in evaluation order (tier
// by tier), for inspection and explanations.
func (e *Engine) Rules() []Rule {
	var out []Rule
	for t := range e.tiers {
		for _, r := range e.tiers[t].all {
			out = append(out, *r)
		}
	}
	return out
}
