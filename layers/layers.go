// Package layers builds the effective configuration from its layers —
// default < project < user < session < managed < requirements — with the
// provenance of every key: which layer, file, line and column set it, what it
// overrode, whether requirements pinned it, and which values were refused.
//
// Files are parsed strictly (duplicate keys refused) and validated against
// the embedded JSON Schemas. A broken managed file refuses sessions (the
// admin's policy is never half-applied); a broken user or project file
// refuses sessions too, while an unknown key there is a warning and is
// ignored. Merging honours each key's x-merge annotation (replace, append,
// union), and the merged values are served by koanf (Resolved.K). The signed
// requirements are verified by package requirements and applied last: pins,
// locks, extra rules.
//
// Resolve never prints and never logs: everything it noticed is in
// Resolved.Diagnostics and Resolved.Layers.
package layers

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/knadh/koanf/v2"

	"github.com/oceancode/oceancode/internal/jsonpos"
	"github.com/oceancode/oceancode/internal/version"
	"github.com/oceancode/oceancode/provenance"
	"github.com/oceancode/oceancode/requirements"
	"github.com/oceancode/oceancode/schema"
	"github.com/oceancode/oceancode/signing"
)

// Layer statuses, as inspect shows them.
const (
	StatusUsed    = "used"
	StatusIgnored = "ignored"
	StatusInvalid = "invalid"
)

// LayerInfo is one source that was found, used or not.
type LayerInfo struct {
	Layer  provenance.Layer `json:"layer"`
	Source string           `json:"source"`
	Status string           `json:"status"`
	Reason string           `json:"reason,omitempty"`
}

// Severity of a diagnostic.
type Severity string

// Severities.
const (
	Error   Severity = "error"
	Warning Severity = "warning"
)

// Diagnostic is something the loader noticed, with where.
type Diagnostic struct {
	Severity Severity         `json:"severity"`
	Layer    provenance.Layer `json:"layer"`
	Source   string           `json:"source"`
	Line     int              `json:"line,omitempty"`
	Column   int              `json:"column,omitempty"`
	Pointer  string           `json:"pointer,omitempty"`
	Message  string           `json:"message"`
}

func (d Diagnostic) String() string {
	loc := provenance.Origin{Source: d.Source, Line: d.Line, Column: d.Column}.Location()
	s := string(d.Severity) + ": " + loc
	if d.Pointer != "" {
		s += ": " + d.Pointer
	}
	return s + ": " + d.Message
}

// Setting is one session-layer value from a flag or the environment.
type Setting struct {
	Key    string // dotted key, e.g. "sandbox.mode"
	Value  any
	Source string // "flag:--sandbox", "env:OC_SANDBOX_MODE"
}

// Probe is a setting injected into a layer.
type Probe struct {
	Layer provenance.Layer
	Setting
}

func probesOf(ps []Probe, l provenance.Layer) []Setting {
	var out []Setting
	for _, p := range ps {
		if p.Layer == l {
			out = append(out, p.Setting)
		}
	}
	return out
}

// Explicit names the files of each layer directly instead of discovering
// them (oceanadmin simulate). Anchors stand in for the admin anchor.
type Explicit struct {
	Project      []string
	User         []string
	Managed      []string
	Requirements string
	Anchors      requirements.Anchors
}

// Options are the inputs of Resolve.
type Options struct {
	Dir    string              // working directory ("" = process's)
	Getenv func(string) string // environment (nil = os.Getenv)
	Flags  []Setting           // session-layer flags
	// Probes inject settings into a layer as if a file of that layer had
	// set them (oceancode doctor --policy tries every path to a locked
	// value this way). Never built from user input.
	Probes []Probe
	// ManagedDir overrides SystemManagedDir (tests only; never user input).
	// With it set, no OS-native managed source is read unless
	// ManagedPreferences names one.
	ManagedDir string
	// ManagedPreferences names a managed-preferences plist read as the
	// OS-native managed source in place of the system's (tests only; never
	// user input).
	ManagedPreferences string
	// StateDir overrides the user's state dir; NoState disables the
	// anti-rollback state and last-known-good policy (offline simulation).
	StateDir string
	NoState  bool
	// StateReadOnly checks against the state but never writes it (probes).
	StateReadOnly bool
	Now           time.Time
	// AnchorCheck holds the owner the admin anchor must have (uid 0).
	AnchorCheck signing.AnchorCheck
	// Explicit replaces discovery (simulate).
	Explicit *Explicit
	// AgentVersion is the version min_version is checked against (""
	// = this binary's, internal/version.Version); tests and oceanadmin
	// simulate --agent-version inject it.
	AgentVersion string
	// Machine is what requirements scopes are matched on (nil = this
	// machine's hostname and the user's groups).
	Machine *requirements.Machine
	// Trust holds the workspace trust inputs (--trust-project).
	Trust TrustOptions
}

// Rule is one permission rule from configuration, in evaluation order.
type Rule struct {
	Path   []string // e.g. ["permission","bash","git status"] or ["agents","x","permission","edit","*"]
	Action string
	Origin provenance.Origin
}

// Item is one element of a list-valued key with its own origin.
type Item struct {
	Value  any
	Origin provenance.Origin
}

// Locks are the constraints requirements impose on the runtime.
type Locks struct {
	// DisallowedModes maps a permission mode to why it cannot be selected.
	DisallowedModes map[string]string `json:"disallowed_modes,omitempty"`
	// Pinned lists the keys requirements pin; the runtime must not change them.
	Pinned []string `json:"pinned,omitempty"`
	// MCPRefused maps a configured MCP server to why it may not start.
	MCPRefused map[string]string `json:"mcp_refused,omitempty"`
	// MinSandboxMode is the weakest sandbox mode allowed ("" = none).
	MinSandboxMode string `json:"min_sandbox_mode,omitempty"`
	// Policy is the requirements policy in effect on this machine, the
	// scopes that apply folded in (nil = none).
	Policy *requirements.Policy `json:"-"`
	// MinVersion is the version floor in effect ("" = none).
	MinVersion string `json:"min_version,omitempty"`
	// Refused says why the requirements refuse sessions on this machine
	// although they verified: this agent is below the version floor, or
	// the scopes that apply leave no permission mode ("" = they do not).
	Refused string `json:"refused,omitempty"`
	// Instructions is the organisation text appended to every agent's
	// system prompt ("" = none).
	Instructions string `json:"instructions,omitempty"`
	// ShellPosture is the named shell posture ("" = none, or
	// "default-deny").
	ShellPosture string `json:"shell_posture,omitempty"`
	// Scopes says which of the policy's scopes apply here, and why.
	Scopes []requirements.ScopeStatus `json:"scopes,omitempty"`
	// DroppedHooks are the hook groups allow_managed_hooks_only dropped
	// (hooks.go).
	DroppedHooks []DroppedHook `json:"dropped_hooks,omitempty"`
}

// Resolved is the effective configuration and everything known about it.
type Resolved struct {
	// K holds the merged values (koanf; the key delimiter is Delim).
	K *koanf.Koanf
	// Entries is the provenance of every effective leaf key.
	Entries provenance.Map
	// Layers lists every source found, used or not, lowest layer first.
	Layers []LayerInfo
	// Requirements is the outcome of verifying requirements.json.
	Requirements *requirements.Result
	// Diagnostics lists what the loader noticed.
	Diagnostics []Diagnostic
	// Rules are the permission rules of every layer in evaluation order.
	Rules []Rule
	// Lists holds per-element origins of list-valued keys.
	Lists map[string][]Item
	// ProjectRoot is the project's root ("" when none was found).
	ProjectRoot string
	// Locks are requirements' constraints.
	Locks Locks
	// EnforcedAnchor is true when the admin anchor exists.
	EnforcedAnchor bool
	// OSManaged names the OS-native managed source in effect ("" none): the
	// macOS managed-preferences plist or the Windows policy key.
	OSManaged string
	// Workspace is the project's trust and the loosening keys it ignored.
	Workspace *Workspace
	// ManagedDir is the managed layer's directory (its commands/ and
	// skills/ are the managed layer's custom commands and skills).
	ManagedDir string
}

// Delim is the koanf key delimiter: a byte no config key contains, so keys
// such as permission patterns ("*.md") stay whole.
const Delim = "\x1f"

// Sentinels for Resolved.Err, for the CLI's exit-code mapping.
var (
	ErrInvalidConfig       = errors.New("invalid configuration")
	ErrRequirementsRefused = errors.New("requirements refused")
)

// Err says why a session must not start, or nil: a managed, user or project
// file that is broken (ErrInvalidConfig), or requirements refused with no
// last-known-good policy (ErrRequirementsRefused). inspect and doctor run
// regardless.
func (r *Resolved) Err() error {
	var broken []Diagnostic
	for _, d := range r.Diagnostics {
		if d.Severity == Error {
			broken = append(broken, d)
		}
	}
	if len(broken) > 0 {
		return &ConfigError{Diagnostics: broken}
	}
	if r.Requirements != nil && r.Requirements.Blocking() {
		return &RefusedError{Result: r.Requirements}
	}
	if r.Locks.Refused != "" {
		return &MachineError{Path: r.Requirements.Path, Reason: r.Locks.Refused}
	}
	return nil
}

// MachineError says the verified requirements refuse sessions on this
// machine: the agent is older than min_version, or the scopes that apply
// leave no permission mode. No session starts (exit 4, like other refused
// requirements).
type MachineError struct{ Path, Reason string }

func (e *MachineError) Error() string {
	return fmt.Sprintf("requirements %s refuse this oceancode, so no session can start:\n  %s\n  'oceancode inspect' shows the requirements in effect", e.Path, e.Reason)
}

func (e *MachineError) Unwrap() error { return ErrRequirementsRefused }

// ConfigError lists the errors that make the configuration unusable.
type ConfigError struct{ Diagnostics []Diagnostic }

func (e *ConfigError) Error() string {
	s := fmt.Sprintf("configuration is invalid (%d error(s)); fix the file(s) below, or ask your administrator if it is a managed file, then run 'oceancode inspect' to check:", len(e.Diagnostics))
	for _, d := range e.Diagnostics {
		s += "\n  " + d.String()
	}
	return s
}

func (e *ConfigError) Unwrap() error { return ErrInvalidConfig }

// RefusedError says requirements were refused and nothing stands in.
type RefusedError struct{ Result *requirements.Result }

func (e *RefusedError) Error() string {
	r := e.Result
	ids := "none"
	if len(r.TrustedKeys) > 0 {
		ids = ""
		for i, id := range r.TrustedKeys {
			if i > 0 {
				ids += ", "
			}
			ids += id
		}
	}
	return fmt.Sprintf("requirements %s refused, and no last-known-good policy exists on this machine, so no session can start:\n  %s\n  trusted key IDs: %s\n  what to do: ask your administrator to deploy a requirements.json signed by one of these keys (check it with 'oceanadmin verify'); 'oceancode inspect' shows the details",
		r.Path, r.Reason, ids)
}

func (e *RefusedError) Unwrap() error { return ErrRequirementsRefused }

// Resolve loads every layer and returns the effective configuration.
func Resolve(o Options) *Resolved {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Dir == "" {
		o.Dir, _ = os.Getwd()
	}
	if o.ManagedDir == "" {
		// A test build's own managed dir (testbuild.go); none otherwise.
		if d, prefs := testManaged(); d != "" {
			o.ManagedDir, o.ManagedPreferences = d, prefs
		}
	}
	managedDir := o.ManagedDir
	if managedDir == "" {
		managedDir = SystemManagedDir()
	}
	r := &Resolved{Entries: provenance.Map{}, Lists: map[string][]Item{}, ManagedDir: managedDir}
	m := newMerger(r)

	// The OS-native managed source (macOS managed preferences, the Windows
	// policy key), where MDM puts policy.
	var osm *OSManaged
	if o.Explicit == nil {
		var (
			src string
			err error
		)
		if osm, src, err = readOSSource(o); err != nil {
			m.diag(Diagnostic{Severity: Error, Layer: provenance.Managed, Source: src, Message: err.Error()})
			r.Layers = append(r.Layers, LayerInfo{Layer: provenance.Managed, Source: src, Status: StatusInvalid, Reason: err.Error()})
		}
	}

	// Trust anchors decide whether env overrides of policy paths count.
	// An OS source's TrustedKeys is the admin anchor in place of the dir's.
	var anchors requirements.Anchors
	switch {
	case o.Explicit != nil:
		anchors = o.Explicit.Anchors
	case osm != nil && osm.TrustedKeys != nil:
		anchors = requirements.AnchorsFromData(osSourceName(osm, OSValueTrustedKeys), osm.TrustedKeys, o.Getenv)
	default:
		anchors = requirements.ResolveAnchors(requirements.AnchorOptions{ManagedDir: managedDir, Getenv: o.Getenv, Check: o.AnchorCheck})
	}
	r.EnforcedAnchor = anchors.Enforced && o.Explicit == nil
	if osm != nil {
		r.OSManaged = osm.Source
	}

	// default
	m.addMap(provenance.Origin{Layer: provenance.Default, Source: "builtin"}, defaults())
	r.Layers = append(r.Layers, LayerInfo{Layer: provenance.Default, Source: "builtin", Status: StatusUsed})

	// project, user
	var projectFiles, userFiles, managedFiles []string
	reqPath := ""
	if o.Explicit != nil {
		// Simulation names the project files itself: they are the
		// admin's to judge (the requirements' project_config still holds).
		o.Trust.All = true
		projectFiles, userFiles, managedFiles, reqPath = o.Explicit.Project, o.Explicit.User, o.Explicit.Managed, o.Explicit.Requirements
	} else {
		r.ProjectRoot = ProjectRoot(o.Dir)
		if r.ProjectRoot != "" {
			projectFiles = []string{
				filepath.Join(r.ProjectRoot, ".oceancode", "oceancode.json"),
				filepath.Join(r.ProjectRoot, ".oceancode", "oceancode.local.json"),
			}
		}
		if d := userConfigDir(o.Getenv); d != "" {
			userFiles = []string{filepath.Join(d, "oceancode.json")}
		}
		managedFiles, reqPath = r.managedSources(o, managedDir, anchors.Enforced, osm)
	}
	var reqData []byte
	if osm != nil {
		managedFiles, reqPath, reqData = r.osPrecedence(osm, managedDir, managedFiles, reqPath)
	}
	// requirements, verified before the project layer: project_config
	// decides whether the project's loosening keys can apply at all.
	stateDir := o.StateDir
	if stateDir == "" && !o.NoState {
		stateDir = StateDir(o.Getenv)
	}
	if o.NoState {
		stateDir = ""
	}
	res := requirements.Load(requirements.Options{Path: reqPath, Data: reqData, Anchors: anchors, Now: o.Now, StateDir: stateDir, ReadOnly: o.StateReadOnly})
	var docs []projectDoc
	for _, f := range projectFiles {
		doc, _, err := parseFile(f)
		if root, ok := m.checkDoc(provenance.Project, f, doc, err, schema.Config, o.Explicit != nil); ok {
			rel, _ := filepath.Rel(r.ProjectRoot, f)
			if r.ProjectRoot == "" {
				rel = filepath.Base(f)
			}
			docs = append(docs, projectDoc{path: f, rel: rel, root: root, doc: doc, info: len(r.Layers) - 1})
		}
	}
	policy, signers := projectPolicy(res)
	m.mergeProject(o, docs, policy, stateDir, signers)
	m.addSettings(provenance.Project, probesOf(o.Probes, provenance.Project))
	for _, f := range userFiles {
		m.addFile(provenance.User, f, schema.Config, o.Explicit != nil)
	}
	m.addSettings(provenance.User, probesOf(o.Probes, provenance.User))
	managedRequired := o.Explicit != nil || (!anchors.Enforced && o.Getenv(EnvManagedConfig) != "")

	// session: environment, then flags
	m.addSettings(provenance.Session, envSettings(o.Getenv))
	m.addSettings(provenance.Session, o.Flags)
	m.addSettings(provenance.Session, probesOf(o.Probes, provenance.Session))

	// managed
	if osm != nil && osm.Managed != nil {
		m.addData(provenance.Managed, osSourceName(osm, OSValueManaged), osm.Managed, schema.Managed)
	}
	for _, f := range managedFiles {
		m.addFile(provenance.Managed, f, schema.Managed, managedRequired)
	}
	m.addSettings(provenance.Managed, probesOf(o.Probes, provenance.Managed))

	// requirements (loaded above)
	r.Requirements = res
	info := LayerInfo{Layer: provenance.Requirements, Source: reqPath, Status: StatusUsed}
	switch res.Status {
	case requirements.Verified:
	case requirements.ExpiredWarn, requirements.LastKnownGood:
		info.Reason = res.Reason
	case requirements.NotEnforced:
		info.Status, info.Reason = StatusIgnored, res.Reason
	default:
		info.Status, info.Reason = StatusInvalid, res.Reason
	}
	if res.Status != requirements.NotEnforced || fileExists(reqPath) || reqData != nil {
		r.Layers = append(r.Layers, info)
	}
	if res.Policy != nil {
		// The hostname and groups are read only for a policy with scopes.
		machine := o.Machine
		if machine == nil {
			machine = &requirements.Machine{}
			if len(res.Policy.Scopes) > 0 {
				*machine = requirements.CurrentMachine()
			}
		}
		eff, scopes := res.Policy.ForMachine(*machine)
		r.Locks.Scopes = scopes
		m.applyRequirements(eff, reqPath)
		agentVersion := o.AgentVersion
		if agentVersion == "" {
			agentVersion = version.Version
		}
		r.Locks.MinVersion = eff.MinVersion
		if ok, why := eff.VersionAllowed(agentVersion); !ok {
			r.Locks.Refused = why
		} else if c := eff.Conflict(); c != "" {
			r.Locks.Refused = c
		}
		r.Locks.Instructions, r.Locks.ShellPosture = eff.Instructions, eff.ShellPosture
	}

	m.finish()
	sort.SliceStable(r.Layers, func(i, j int) bool { return r.Layers[i].Layer < r.Layers[j].Layer })
	return r
}

// managedSources lists the managed files and the requirements path. In
// enforced mode the env overrides are ignored and shown as ignored.
func (r *Resolved) managedSources(o Options, dir string, enforced bool, osm *OSManaged) ([]string, string) {
	envManaged := o.Getenv(EnvManagedConfig)
	envReq := o.Getenv(EnvRequirements)
	osFiles := func() []string {
		files := []string{filepath.Join(dir, "managed.json")}
		drop, _ := filepath.Glob(filepath.Join(dir, "managed.d", "*.json"))
		sort.Strings(drop)
		return append(files, drop...)
	}
	if enforced || osm != nil {
		why := fmt.Sprintf("ignored: the admin trust anchor %s exists, so the managed config and requirements come only from %s", filepath.Join(dir, requirements.AnchorFile), dir)
		if osm != nil {
			why = fmt.Sprintf("ignored: the OS-managed source %s exists, so the managed config and requirements come only from it and %s", osm.Source, dir)
		}
		if envManaged != "" {
			r.Layers = append(r.Layers, LayerInfo{Layer: provenance.Managed, Source: "env:" + EnvManagedConfig + "=" + envManaged, Status: StatusIgnored,
				Reason: why})
		}
		if envReq != "" {
			r.Layers = append(r.Layers, LayerInfo{Layer: provenance.Requirements, Source: "env:" + EnvRequirements + "=" + envReq, Status: StatusIgnored,
				Reason: why})
		}
		return osFiles(), filepath.Join(dir, "requirements.json")
	}
	files := osFiles()
	req := filepath.Join(dir, "requirements.json")
	if envManaged != "" {
		files = []string{envManaged}
		req = filepath.Join(filepath.Dir(envManaged), "requirements.json")
	}
	if envReq != "" {
		req = envReq
	}
	return files, req
}

func fileExists(p string) bool {
	if p == "" {
		return false
	}
	_, err := os.Stat(p)
	return err == nil
}

// parseFile reads and parses one config file.
func parseFile(path string) (*jsonpos.Doc, []byte, error) {
	data, err := readConfig(path)
	if err != nil {
		return nil, nil, err
	}
	doc, err := parseData(data)
	return doc, data, err
}

// readConfig reads one config file, which must be a regular file (a
// symlink is followed) of at most schema.MaxConfigSize bytes. A cloned
// repository's .oceancode/oceancode.json or .mcp.json that is a symlink to
// /dev/zero or a FIFO would otherwise exhaust memory or block every
// command that loads the config.
func readConfig(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file (%s): only a regular file is read as config", fi.Mode().Type())
	}
	// The file's own size is named (as oceanadmin validate names it); a
	// file that grows after the stat is cut at the cap and refused by
	// parseData.
	if err := schema.CheckSize(int(min(fi.Size(), math.MaxInt32))); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, schema.MaxConfigSize+1))
}

// parseData parses one config document.
func parseData(data []byte) (*jsonpos.Doc, error) {
	if err := schema.CheckSize(len(data)); err != nil {
		return nil, err
	}
	return jsonpos.Parse(data, jsonpos.Options{MaxDepth: schema.MaxConfigDepth})
}
