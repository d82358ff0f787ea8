// Package report renders a resolved configuration the way `oceancode
// inspect` and `oceanadmin simulate` show it: a stable, versioned JSON object
// (docs/configuration.md) and a text form for people. Secret-looking values
// are redacted unless asked otherwise.
package report

import (
	"sort"
	"strings"

	"github.com/oceancode/oceancode/internal/secret"
	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/provenance"
	"github.com/oceancode/oceancode/requirements"
)

// Version is the JSON shape's version; fields may be added, never renamed.
const Version = 1

// Report is the --json shape of inspect.
type Report struct {
	Version      int                 `json:"version"`
	Requirements Requirements        `json:"requirements"`
	Attestation  Attestation         `json:"attestation"`
	Layers       []layers.LayerInfo  `json:"layers"`
	Keys         map[string]Key      `json:"keys"`
	Locks        *Locks              `json:"locks,omitempty"`
	Diagnostics  []layers.Diagnostic `json:"diagnostics,omitempty"`
	Blocking     string              `json:"blocking,omitempty"`
	// Sandbox is what the runtime says about the configured sandbox on this
	// machine; the CLI fills it (the report itself knows only config).
	Sandbox *Sandbox `json:"sandbox,omitempty"`
	// Workspace is the project's trust and every key it ignored.
	Workspace *Workspace `json:"workspace,omitempty"`
	// Usage is the workspace's stored sessions' totals (usage.go).
	Usage *Usage `json:"usage,omitempty"`
	// Instructions are the instruction files a session here puts in the
	// prompt (agent/instructions.Report); the CLI fills it, when there
	// are any (docs/instructions.md).
	Instructions any `json:"instructions,omitempty"`
	order        []string
}

// Workspace is the workspace trust block (docs/trust.md).
type Workspace struct {
	Root          string `json:"root"`
	State         string `json:"state"`
	Reason        string `json:"reason"`
	ProjectConfig string `json:"project_config"`
	Digest        string `json:"digest,omitempty"`
	// Loosening lists what the project's config loosens, each key with
	// Ignored set when it was not applied.
	Loosening []ProjectKey `json:"loosening"`
}

// ProjectKey is one loosening key of the project's config.
type ProjectKey struct {
	Key     string `json:"key"`
	Source  string `json:"source"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Value   any    `json:"value"`
	Why     string `json:"why"`
	Ignored bool   `json:"ignored"`
}

// workspace builds the trust block, values redacted as the keys' are.
func workspace(ws *layers.Workspace, o Options) *Workspace {
	if ws == nil {
		return nil
	}
	out := &Workspace{Root: o.shorten(ws.Root), State: ws.State, Reason: o.shorten(ws.Reason), ProjectConfig: ws.ProjectConfig, Digest: ws.Digest, Loosening: []ProjectKey{}}
	ignored := len(ws.Ignored) > 0
	for _, k := range ws.Loosening {
		if !matches(k.Key, o.Prefixes) {
			continue // inspect KEY…: only those keys
		}
		v := k.Value
		if !o.ShowSecrets {
			v = redactValue(k.Key, v)
			if IsSecretKey(k.Key) {
				v = Redacted
			}
		}
		out.Loosening = append(out.Loosening, ProjectKey{Key: k.Key, Source: o.shorten(k.Source), Line: k.Line, Column: k.Column, Value: v, Why: k.Why, Ignored: ignored})
	}
	if len(o.Prefixes) > 0 && len(out.Loosening) == 0 {
		return nil
	}
	return out
}

// Attestation is what a fleet compares across machines to find drift
// (docs/fleet.md): which policy is in effect, who signed it, what it was
// checked against and where it came from. Every field is always present.
type Attestation struct {
	// Status is the requirements status (verified, last_known_good, …).
	Status        string   `json:"status"`
	Serial        int64    `json:"serial"`
	PayloadSHA256 string   `json:"payload_sha256"`
	Signers       []string `json:"signers"`
	TrustedKeys   []string `json:"trusted_keys"`
	TrustSource   string   `json:"trust_source"`
	// PolicySource is where the requirements were read from.
	PolicySource string `json:"policy_source"`
	// OSManaged names the OS-native managed source in effect ("" none).
	OSManaged string `json:"os_managed"`
	// LastKnownGood is this machine's anti-rollback mark for the trusted
	// key set (null: no state, or nothing verified yet).
	LastKnownGood *LastKnownGood `json:"last_known_good"`
}

// LastKnownGood is the last policy verified on this machine; InUse says it
// stands in for a refused file.
type LastKnownGood struct {
	InUse         bool   `json:"in_use"`
	Serial        int64  `json:"serial"`
	PayloadSHA256 string `json:"payload_sha256"`
}

// Requirements is the requirements status block.
type Requirements struct {
	Status        string   `json:"status"`
	Reason        string   `json:"reason,omitempty"`
	Path          string   `json:"path,omitempty"`
	Serial        int64    `json:"serial,omitempty"`
	PayloadSHA256 string   `json:"payload_sha256,omitempty"`
	Signers       []string `json:"signers,omitempty"`
	ExpiresAt     string   `json:"expires_at,omitempty"`
	Org           string   `json:"org,omitempty"`
	TrustedKeys   []string `json:"trusted_keys,omitempty"`
	TrustSource   string   `json:"trust_source,omitempty"`
	Enforced      bool     `json:"enforced_by_admin_anchor,omitempty"`
	Warnings      []string `json:"warnings,omitempty"`
}

// Key is one effective key.
type Key struct {
	Value     any       `json:"value"`
	Layer     string    `json:"layer"`
	Source    string    `json:"source"`
	Line      int       `json:"line"`
	Column    int       `json:"column,omitempty"`
	Pinned    bool      `json:"pinned,omitempty"`
	Merge     string    `json:"merge,omitempty"`
	Overrides []Step    `json:"overrides,omitempty"`
	Merged    []Step    `json:"merged_from,omitempty"`
	Refused   []Refusal `json:"refused,omitempty"`
}

// Step is one value in an override chain.
type Step struct {
	Value  any    `json:"value"`
	Layer  string `json:"layer"`
	Source string `json:"source"`
	Line   int    `json:"line"`
}

// Refusal is a value asked for and not applied.
type Refusal struct {
	Value  any    `json:"value"`
	Layer  string `json:"layer"`
	Source string `json:"source"`
	Line   int    `json:"line"`
	Reason string `json:"reason"`
}

// Sandbox describes the configured sandbox and whether it can run here.
type Sandbox struct {
	Configured string   `json:"configured"`         // e.g. "sandbox workspace-write, network off"
	Available  bool     `json:"available"`          // bubblewrap (or sandbox-exec) found
	Problem    string   `json:"problem,omitempty"`  // why not, and what to install
	Warnings   []string `json:"warnings,omitempty"` // e.g. no Landlock
}

// Locks are requirements' constraints, as shown.
type Locks struct {
	DisallowedModes map[string]string `json:"disallowed_modes,omitempty"`
	Pinned          []string          `json:"pinned,omitempty"`
	MCPRefused      map[string]string `json:"mcp_refused,omitempty"`
	MinSandboxMode  string            `json:"min_sandbox_mode,omitempty"`
	// The newer requirement kinds (docs/requirements-format.md).
	MinVersion       string   `json:"min_version,omitempty"`
	Refused          string   `json:"refused,omitempty"`
	AllowedModels    []string `json:"allowed_models,omitempty"`
	AllowedProviders []string `json:"allowed_providers,omitempty"`
	Instructions     string   `json:"instructions,omitempty"`
	ShellPosture     string   `json:"shell_posture,omitempty"`
	Scopes           []string `json:"scopes,omitempty"` // "name: applies (why)" or "name: does not apply (why)"
	// Hooks is "managed-only" under allow_managed_hooks_only ("" = none).
	Hooks string `json:"hooks,omitempty"`
	// DroppedHooks names each hook group allow_managed_hooks_only dropped:
	// "hooks.EVENT [MATCHER] "COMMAND" at FILE:LINE:COL (LAYER)".
	DroppedHooks []string `json:"dropped_hooks,omitempty"`
	// Commands and Skills are "managed-only" under
	// allow_managed_commands_only and allow_managed_skills_only;
	// DroppedCustom names each command and skill they dropped (the CLI
	// fills it: the report does not read command files). docs/commands.md.
	Commands      string   `json:"commands,omitempty"`
	Skills        string   `json:"skills,omitempty"`
	DroppedCustom []string `json:"dropped_custom,omitempty"`
}

// Options change what Build includes.
type Options struct {
	Prefixes    []string // only keys with these prefixes (none = all)
	ShowSecrets bool
	// Abbrev shortens paths: each Dir (and what lies below it) is shown as
	// its Name, for instance the home directory as "~".
	Abbrev []Abbrev
}

// Abbrev is one path abbreviation.
type Abbrev struct{ Dir, Name string }

// shorten applies the abbreviations to every path-like occurrence in s.
func (o Options) shorten(s string) string {
	for _, a := range o.Abbrev {
		if a.Dir == "" || a.Dir == "/" {
			continue
		}
		var b strings.Builder
		rest := s
		for {
			i := strings.Index(rest, a.Dir)
			if i < 0 {
				b.WriteString(rest)
				break
			}
			end := i + len(a.Dir)
			b.WriteString(rest[:i])
			if end == len(rest) || rest[end] == '/' || rest[end] == ' ' || rest[end] == ':' || rest[end] == '"' || rest[end] == ')' {
				b.WriteString(a.Name)
			} else {
				b.WriteString(a.Dir)
			}
			rest = rest[end:]
		}
		s = b.String()
	}
	return s
}

// attestation summarises the policy in effect.
func attestation(r *layers.Resolved, sh func(string) string) Attestation {
	a := Attestation{Signers: []string{}, TrustedKeys: []string{}, OSManaged: sh(r.OSManaged)}
	req := r.Requirements
	if req == nil {
		return a
	}
	a.Status, a.PayloadSHA256, a.TrustSource, a.PolicySource = string(req.Status), req.PayloadSHA256, sh(req.TrustSource), sh(req.Path)
	a.Signers = append(a.Signers, req.Signers...)
	a.TrustedKeys = append(a.TrustedKeys, req.TrustedKeys...)
	if req.Policy != nil {
		a.Serial = req.Policy.Serial
	}
	if m := req.LastKnownGood; m != nil {
		a.LastKnownGood = &LastKnownGood{InUse: req.Status == requirements.LastKnownGood, Serial: m.Serial, PayloadSHA256: m.PayloadSHA256}
	}
	return a
}

// Build turns a resolved configuration into a report.
func Build(r *layers.Resolved, o Options) *Report {
	sh := o.shorten
	rep := &Report{Version: Version, Layers: []layers.LayerInfo{}, Keys: map[string]Key{}}
	for _, l := range r.Layers {
		l.Source, l.Reason = sh(l.Source), sh(o.redact(l.Reason))
		rep.Layers = append(rep.Layers, l)
	}
	var redacted []string // pairs: a diagnostic's message as written, as shown
	for _, d := range r.Diagnostics {
		msg := o.redactDiagnostic(d)
		if msg != d.Message {
			redacted = append(redacted, d.Message, msg)
		}
		d.Source, d.Message = sh(d.Source), sh(msg)
		rep.Diagnostics = append(rep.Diagnostics, d)
	}
	if req := r.Requirements; req != nil {
		rep.Requirements = Requirements{Status: string(req.Status), Reason: sh(req.Reason), Path: sh(req.Path),
			PayloadSHA256: req.PayloadSHA256, Signers: req.Signers, TrustedKeys: req.TrustedKeys,
			TrustSource: sh(req.TrustSource), Enforced: r.EnforcedAnchor}
		for _, w := range req.Warnings {
			rep.Requirements.Warnings = append(rep.Requirements.Warnings, sh(w))
		}
		if p := req.Policy; p != nil {
			rep.Requirements.Serial, rep.Requirements.ExpiresAt, rep.Requirements.Org = p.Serial, p.ExpiresAt, p.Org
		}
	}
	rep.Attestation = attestation(r, sh)
	rep.Workspace = workspace(r.Workspace, o)
	if l := r.Locks; l.Policy != nil {
		rep.Locks = &Locks{DisallowedModes: l.DisallowedModes, Pinned: l.Pinned, MCPRefused: l.MCPRefused, MinSandboxMode: l.MinSandboxMode}
		newKinds(rep.Locks, l)
	}
	if err := r.Err(); err != nil {
		b := err.Error()
		if len(redacted) > 0 {
			b = strings.NewReplacer(redacted...).Replace(b)
		}
		rep.Blocking = sh(o.redact(b))
	}
	for _, k := range r.Entries.Keys() {
		if !matches(k, o.Prefixes) {
			continue
		}
		e := r.Entries[k]
		hide := !o.ShowSecrets && IsSecretKey(k)
		val := func(v any) any {
			if hide && v != nil {
				return Redacted
			}
			if o.ShowSecrets {
				return v
			}
			return redactValue(k, v)
		}
		key := Key{Value: val(e.Value), Layer: e.Origin.Layer.String(), Source: sh(e.Origin.Source), Line: e.Origin.Line,
			Column: e.Origin.Column, Pinned: e.Origin.Pinned, Merge: e.Merge}
		for _, ov := range e.Overrides {
			key.Overrides = append(key.Overrides, Step{Value: val(ov.Value), Layer: ov.Origin.Layer.String(), Source: sh(ov.Origin.Source), Line: ov.Origin.Line})
		}
		if len(e.Contributors) > 1 {
			for _, c := range e.Contributors {
				key.Merged = append(key.Merged, Step{Value: val(c.Value), Layer: c.Origin.Layer.String(), Source: sh(c.Origin.Source), Line: c.Origin.Line})
			}
		}
		for _, rf := range e.Refused {
			key.Refused = append(key.Refused, Refusal{Value: val(rf.Value), Layer: rf.Origin.Layer.String(), Source: sh(rf.Origin.Source), Line: rf.Origin.Line, Reason: sh(rf.Reason)})
		}
		rep.Keys[k] = key
		rep.order = append(rep.order, k)
		if v, ok := e.Value.(string); ok && strings.HasSuffix(k, ".api_key_env") && secret.LooksLikeKey(v) {
			rep.Diagnostics = append(rep.Diagnostics, layers.Diagnostic{Severity: layers.Error, Layer: e.Origin.Layer,
				Source: sh(e.Origin.Source), Line: e.Origin.Line, Column: e.Origin.Column, Pointer: "/" + strings.ReplaceAll(k, ".", "/"),
				Message: k + " holds what looks like an API key, not the name of an environment variable (oceancode run refuses it): put the key in a variable and name that variable here"})
		}
	}
	return rep
}

func matches(key string, prefixes []string) bool {
	if len(prefixes) == 0 {
		return true
	}
	for _, p := range prefixes {
		if provenance.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

// Redacted stands in for a secret value.
const Redacted = "<redacted>"

// redact hides credential shapes in a text the report shows (a reason, a
// diagnostic), unless secrets are asked for.
func (o Options) redact(s string) string {
	if o.ShowSecrets {
		return s
	}
	return secret.Redact(s)
}

// redactDiagnostic is d's message as shown: credential shapes hidden, and
// the value quoted after "; got " when it is a secret key's or a pasted key
// (a schema violation quotes the offending value).
func (o Options) redactDiagnostic(d layers.Diagnostic) string {
	msg := o.redact(d.Message)
	if o.ShowSecrets || d.Pointer == "" {
		return msg
	}
	key := strings.ReplaceAll(strings.TrimPrefix(d.Pointer, "/"), "/", ".")
	if i := strings.LastIndex(msg, "; got "); i >= 0 && (IsSecretKey(key) || strings.HasSuffix(key, "_env")) {
		msg = msg[:i] + "; got " + Redacted
	}
	return msg
}

// redactValue hides what looks secret inside a value that is not secret
// by its key: a key pasted where a variable's name belongs (…_env), a
// secret-named flag's value in an argument list (an MCP server's
// "--token X"), a password in a URL, any credential-shaped string, and the
// values of secret-named members of an object.
func redactValue(key string, v any) any {
	switch x := v.(type) {
	case string:
		if strings.HasSuffix(strings.ToLower(key), "_env") && secret.LooksLikeKey(x) {
			return Redacted
		}
		return secret.Redact(x)
	case []any:
		strs := make([]string, len(x))
		for i, e := range x {
			s, ok := e.(string)
			if !ok {
				strs = nil
				break
			}
			strs[i] = s
		}
		out := make([]any, len(x))
		if strs != nil {
			for i, s := range secret.Args(strs) {
				out[i] = s
			}
			return out
		}
		for i, e := range x {
			out[i] = redactValue(key, e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if secret.Name(k) && !strings.HasSuffix(strings.ToLower(k), "_env") && e != nil {
				out[k] = Redacted
				continue
			}
			out[k] = redactValue(key+"."+k, e)
		}
		return out
	}
	return v
}

// IsSecretKey reports whether a key's value looks secret: any header or MCP
// server environment value, any child_env.set value or leaf whose name
// mentions a key, secret, token, password or credential. Names of
// environment variables (…_env) are not secrets.
func IsSecretKey(key string) bool {
	segs, err := provenance.SplitKey(key)
	if err != nil || len(segs) == 0 {
		return true
	}
	last := segs[len(segs)-1]
	for i, s := range segs[:len(segs)-1] {
		if s == "headers" || (s == "env" && i > 0 && i+1 < len(segs)) {
			return true
		}
	}
	if strings.HasSuffix(strings.ToLower(last), "_env") {
		return false
	}
	return secret.Name(last)
}

// DropKeys removes every key (inspect --layers).
func (r *Report) DropKeys() {
	r.Keys = map[string]Key{}
	r.order = []string{}
}

// KeysInOrder returns the report's keys in sorted order.
func (r *Report) KeysInOrder() []string {
	if r.order == nil && len(r.Keys) > 0 {
		for k := range r.Keys {
			r.order = append(r.order, k)
		}
		sort.Strings(r.order)
	}
	return r.order
}

// newKinds fills in the newer requirement kinds.
func newKinds(out *Locks, l layers.Locks) {
	out.MinVersion, out.Refused = l.MinVersion, l.Refused
	out.AllowedModels, out.AllowedProviders = l.Policy.AllowedModelSets(), l.Policy.AllowedProviderSets()
	out.Instructions, out.ShellPosture = l.Instructions, l.ShellPosture
	if l.Policy.AllowManagedHooksOnly {
		out.Hooks = "managed-only"
	}
	if l.Policy.AllowManagedCommandsOnly {
		out.Commands = "managed-only"
	}
	if l.Policy.AllowManagedSkillsOnly {
		out.Skills = "managed-only"
	}
	for _, d := range l.DroppedHooks {
		out.DroppedHooks = append(out.DroppedHooks, d.String())
	}
	for _, s := range l.Scopes {
		verdict := "does not apply"
		if s.Applied {
			verdict = "applies"
		}
		out.Scopes = append(out.Scopes, s.Name+": "+verdict+" ("+s.Why+")")
	}
}
