package requirements

import (
	"fmt"
	"net/url"
	"os"
	"os/user"
	"slices"
	"strconv"
	"strings"

	"github.com/oceancode/oceancode/policycheck"
)

// ShellPostureDefaultDeny is the shell_posture that makes every bash
// command ask, with no lower layer able to loosen it.
const ShellPostureDefaultDeny = "default-deny"

// ProviderRule is one allowed_providers entry: a provider type and the
// hosts its base_url may name (none: the type's own endpoint only).
type ProviderRule struct {
	Type  string   `json:"type"`
	Hosts []string `json:"hosts,omitempty"`
}

// Scope adds requirements on the machines it matches.
type Scope struct {
	Name    string       `json:"name"`
	Match   ScopeMatch   `json:"match"`
	Require ScopeRequire `json:"require"`
}

// ScopeMatch says where a scope applies: a hostname pattern or a group.
type ScopeMatch struct {
	Hosts  []string `json:"hosts,omitempty"`
	Groups []string `json:"groups,omitempty"`
}

// ScopeRequire is what a scope adds; every field only narrows.
type ScopeRequire struct {
	DisableBypassPermissions bool           `json:"disable_bypass_permissions,omitempty"`
	AllowedPermissionModes   []string       `json:"allowed_permission_modes,omitempty"`
	MinSandboxMode           string         `json:"min_sandbox_mode,omitempty"`
	Rules                    *Rules         `json:"rules,omitempty"`
	MinVersion               string         `json:"min_version,omitempty"`
	AllowedModels            []string       `json:"allowed_models,omitempty"`
	AllowedProviders         []ProviderRule `json:"allowed_providers,omitempty"`
	Instructions             string         `json:"instructions,omitempty"`
	ShellPosture             string         `json:"shell_posture,omitempty"`
	AllowManagedHooksOnly    bool           `json:"allow_managed_hooks_only,omitempty"`
}

// Machine is what scopes are matched on. A field that could not be read
// is marked unknown, and every scope that matches on it then applies
// (scopes only narrow, so not knowing fails closed).
type Machine struct {
	Hostname        string
	Groups          []string
	HostnameUnknown bool
	GroupsUnknown   bool
}

// CurrentMachine reads this machine's hostname and the OS groups of the
// user running the process.
func CurrentMachine() Machine {
	var m Machine
	if h, err := os.Hostname(); err != nil || h == "" {
		m.HostnameUnknown = true
	} else {
		m.Hostname = h
	}
	u, err := user.Current()
	var ids []string
	if err == nil {
		ids, err = u.GroupIds()
	}
	if err != nil {
		m.GroupsUnknown = true
		return m
	}
	for _, id := range ids {
		g, err := user.LookupGroupId(id)
		if err != nil {
			m.GroupsUnknown = true
			continue
		}
		m.Groups = append(m.Groups, g.Name)
	}
	return m
}

// ScopeStatus says whether a scope applies on a machine and why.
type ScopeStatus struct {
	Name    string `json:"name"`
	Applied bool   `json:"applied"`
	Why     string `json:"why"`
}

// Applies says whether s applies on m, and why.
func (s Scope) Applies(m Machine) (bool, string) {
	host := strings.ToLower(strings.TrimSuffix(m.Hostname, "."))
	for _, p := range s.Match.Hosts {
		switch {
		case m.HostnameUnknown:
			return true, "the hostname cannot be read, so a scope matching on hosts applies"
		case policycheck.Glob(strings.ToLower(p), host):
			return true, fmt.Sprintf("hostname %q matches %q", host, p)
		}
	}
	for _, g := range s.Match.Groups {
		switch {
		case m.GroupsUnknown:
			return true, "the user's groups cannot be read, so a scope matching on groups applies"
		case slices.Contains(m.Groups, g):
			return true, fmt.Sprintf("the user is in group %s", g)
		}
	}
	return false, fmt.Sprintf("hostname %q matches none of the hosts and the user is in none of the groups", host)
}

// constraint is one allowed set (models or providers) with where it came
// from, for messages.
type modelSet struct {
	from     string // "allowed_models" or "scope NAME allowed_models"
	patterns []string
}

type providerSet struct {
	from  string
	rules []ProviderRule
}

// ForMachine returns the policy in effect on m: the policy with the
// require block of every scope that applies folded in (modes intersected,
// the stronger sandbox minimum and version floor, rules and instructions
// added, each scope's model and provider lists required on top of the
// policy's own), and every scope's status. p itself is not changed.
func (p *Policy) ForMachine(m Machine) (*Policy, []ScopeStatus) {
	e := *p
	e.models, e.providers, e.conflict = nil, nil, ""
	if len(p.AllowedModels) > 0 {
		e.models = []modelSet{{"allowed_models", p.AllowedModels}}
	}
	if len(p.AllowedProviders) > 0 {
		e.providers = []providerSet{{"allowed_providers", p.AllowedProviders}}
	}
	var status []ScopeStatus
	for _, s := range p.Scopes {
		ok, why := s.Applies(m)
		status = append(status, ScopeStatus{Name: s.Name, Applied: ok, Why: why})
		if !ok {
			continue
		}
		r := s.Require
		e.DisableBypassPermissions = e.DisableBypassPermissions || r.DisableBypassPermissions
		if len(r.AllowedPermissionModes) > 0 {
			if len(e.AllowedPermissionModes) == 0 {
				e.AllowedPermissionModes = r.AllowedPermissionModes
			} else {
				var both []string
				for _, mode := range e.AllowedPermissionModes {
					if slices.Contains(r.AllowedPermissionModes, mode) {
						both = append(both, mode)
					}
				}
				if len(both) == 0 {
					// No mode is left: sessions are refused here.
					e.conflict = fmt.Sprintf("scope %s allows only the permission modes %s, none of which the policy allows (%s): no mode is left on this machine", s.Name, strings.Join(r.AllowedPermissionModes, ", "), strings.Join(e.AllowedPermissionModes, ", "))
				} else {
					e.AllowedPermissionModes = both
				}
			}
		}
		if r.MinSandboxMode != "" && (e.MinSandboxMode == "" || SandboxStronger(r.MinSandboxMode, e.MinSandboxMode)) {
			e.MinSandboxMode = r.MinSandboxMode
		}
		if r.Rules != nil {
			rules := Rules{}
			if e.Rules != nil {
				rules = Rules{Deny: slices.Clone(e.Rules.Deny), Ask: slices.Clone(e.Rules.Ask)}
			}
			rules.Deny = append(rules.Deny, r.Rules.Deny...)
			rules.Ask = append(rules.Ask, r.Rules.Ask...)
			e.Rules = &rules
		}
		if r.MinVersion != "" && (e.MinVersion == "" || versionLess(e.MinVersion, r.MinVersion)) {
			e.MinVersion = r.MinVersion
		}
		if len(r.AllowedModels) > 0 {
			e.models = append(e.models, modelSet{"scope " + s.Name + " allowed_models", r.AllowedModels})
		}
		if len(r.AllowedProviders) > 0 {
			e.providers = append(e.providers, providerSet{"scope " + s.Name + " allowed_providers", r.AllowedProviders})
		}
		if r.Instructions != "" {
			if e.Instructions != "" {
				e.Instructions += "\n\n"
			}
			e.Instructions += r.Instructions
		}
		if r.ShellPosture != "" {
			e.ShellPosture = r.ShellPosture
		}
		e.AllowManagedHooksOnly = e.AllowManagedHooksOnly || r.AllowManagedHooksOnly
	}
	e.scoped = true
	return &e, status
}

// Conflict says why the scopes that apply leave this machine no way to
// run a session ("" = they do not).
func (p *Policy) Conflict() string { return p.conflict }

// modelSets are the allowed-model lists a model must satisfy, each.
func (p *Policy) modelSets() []modelSet {
	if p.scoped || len(p.AllowedModels) == 0 {
		return p.models
	}
	return []modelSet{{"allowed_models", p.AllowedModels}}
}

func (p *Policy) providerSets() []providerSet {
	if p.scoped || len(p.AllowedProviders) == 0 {
		return p.providers
	}
	return []providerSet{{"allowed_providers", p.AllowedProviders}}
}

// ModelAllowed says whether a session may use model (PROVIDER/MODEL), and
// if not, why, naming the rule.
func (p *Policy) ModelAllowed(model string) (bool, string) {
	for _, s := range p.modelSets() {
		ok := false
		for _, pat := range s.patterns {
			ok = ok || policycheck.Glob(pat, model)
		}
		if !ok {
			return false, fmt.Sprintf("model %s is not allowed by the requirements' %s (%s)", model, s.from, strings.Join(s.patterns, ", "))
		}
	}
	return true, ""
}

// DefaultEndpoint is the endpoint a provider type talks to without a
// base_url.
func DefaultEndpoint(typ string) string {
	return map[string]string{"anthropic": "https://api.anthropic.com", "openai": "https://api.openai.com/v1"}[typ]
}

// ProviderAllowed says whether a session may talk to provider name of type
// typ at baseURL ("" = the type's own endpoint), and if not, why.
func (p *Policy) ProviderAllowed(name, typ, baseURL string) (bool, string) {
	sets := p.providerSets()
	if len(sets) == 0 {
		return true, ""
	}
	endpoint := baseURL
	if endpoint == "" {
		endpoint = DefaultEndpoint(typ)
	}
	u, err := url.Parse(endpoint)
	if err != nil || u.Hostname() == "" {
		return false, fmt.Sprintf("provider %s: base_url %q names no host, so the requirements' allowed_providers cannot admit it", name, baseURL)
	}
	port := uint16(443)
	if u.Scheme == "http" {
		port = 80
	}
	if s := u.Port(); s != "" {
		n, err := strconv.ParseUint(s, 10, 16)
		if err != nil {
			return false, fmt.Sprintf("provider %s: base_url %q has a bad port", name, baseURL)
		}
		port = uint16(n)
	}
	for _, s := range sets {
		ok := false
		for _, r := range s.rules {
			if r.Type != typ {
				continue
			}
			for _, h := range r.hosts() {
				if m, _ := policycheck.HostMatches(h, u.Hostname(), port); m {
					ok = true
				}
			}
		}
		if !ok {
			return false, fmt.Sprintf("provider %s (type %s, endpoint %s:%d) is not allowed by the requirements' %s", name, typ, u.Hostname(), port, s.describe())
		}
	}
	return true, ""
}

// hosts are the hosts an entry admits: its own, or its type's endpoint.
func (r ProviderRule) hosts() []string {
	if len(r.Hosts) > 0 {
		return r.Hosts
	}
	if u, err := url.Parse(DefaultEndpoint(r.Type)); err == nil && u.Hostname() != "" {
		return []string{u.Hostname()}
	}
	return nil
}

// describe renders a provider set: "allowed_providers (anthropic at api.anthropic.com; …)".
func (s providerSet) describe() string {
	var list []string
	for _, r := range s.rules {
		list = append(list, r.Type+" at "+strings.Join(r.hosts(), " or "))
	}
	return s.from + " (" + strings.Join(list, "; ") + ")"
}

// VersionAllowed says whether an agent of version v may start sessions
// under min_version, and if not, why. A version that is not a semantic
// version (a development build: "dev") satisfies no floor.
func (p *Policy) VersionAllowed(v string) (bool, string) {
	if p.MinVersion == "" {
		return true, ""
	}
	min, err := parseVersion(p.MinVersion)
	if err != nil {
		return false, fmt.Sprintf("the requirements' min_version %q is not a semantic version", p.MinVersion)
	}
	have, err := parseVersion(v)
	if err != nil {
		return false, fmt.Sprintf("this oceancode is a development build (version %s), which satisfies no min_version; the requirements need %s or newer: install a release of oceancode %s or newer", v, p.MinVersion, min)
	}
	if have.less(min) {
		return false, fmt.Sprintf("this oceancode is version %s, older than the requirements' min_version %s: upgrade oceancode to %s or newer", have, p.MinVersion, min)
	}
	return true, ""
}

// versionLess reports a < b for two valid versions (false when either is not).
func versionLess(a, b string) bool {
	va, err1 := parseVersion(a)
	vb, err2 := parseVersion(b)
	return err1 == nil && err2 == nil && va.less(vb)
}

// AllowedModelSets describes each allowed-model list a session must
// satisfy ("allowed_models: anthropic/claude-*"), for inspect.
func (p *Policy) AllowedModelSets() []string {
	var out []string
	for _, s := range p.modelSets() {
		out = append(out, s.from+" ("+strings.Join(s.patterns, ", ")+")")
	}
	return out
}

// AllowedProviderSets describes each allowed-provider list a session must
// satisfy ("allowed_providers (anthropic at api.anthropic.com)"), for inspect.
func (p *Policy) AllowedProviderSets() []string {
	var out []string
	for _, s := range p.providerSets() {
		out = append(out, s.describe())
	}
	return out
}
