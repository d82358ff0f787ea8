// Package requirements reads, checks and verifies the administrator's signed
// requirements.json: a DSSE envelope whose payload carries hard requirements
// (locked-out permission modes, an MCP allow-list, pins, extra deny and ask
// rules, a minimum sandbox mode, a version floor, allowed models and
// provider endpoints, organisation instructions, a shell posture, and
// scopes that add requirements on some hosts or groups).
//
// Parsing is strict: the size is capped before anything is parsed, and
// duplicate keys, unknown keys, floats and integers beyond 2^53 are refused.
// Verification follows the failure matrix of docs/requirements-format.md: anything
// unsigned, tampered, signed by an unknown key, malformed, schema-invalid,
// issued in the future (beyond MaxClockSkew), expiring before it was issued,
// expired with on_expiry "block", or older than the highest serial this
// machine has seen is refused and never applied; so is a missing or
// unreadable file while a key is trusted. A refused file falls back to
// the last-known-good envelope kept in the user's state directory, re-verified
// from its signed bytes; without one, sessions are refused.
package requirements

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/oceancode/oceancode/internal/jsonpos"
	"github.com/oceancode/oceancode/internal/mcplaunch"
	"github.com/oceancode/oceancode/policycheck"
	"github.com/oceancode/oceancode/schema"
	"github.com/oceancode/oceancode/signing"
)

// PayloadType is the DSSE payload type of a requirements envelope. A
// signature over any other type never verifies as requirements.
const PayloadType = "application/vnd.oceancode.requirements+json"

// MaxSize caps a requirements file (envelope or payload) before parsing.
const MaxSize = 1 << 20

// Sandbox modes, weakest first.
var sandboxStrength = map[string]int{"danger-full-access": 0, "workspace-write": 1, "read-only": 2}

// SandboxStronger reports whether sandbox mode a confines more than b.
func SandboxStronger(a, b string) bool { return sandboxStrength[a] > sandboxStrength[b] }

// Policy is the requirements payload.
type Policy struct {
	SchemaVersion            int            `json:"schema_version"`
	Serial                   int64          `json:"serial,omitempty"`
	IssuedAt                 string         `json:"issued_at,omitempty"`
	ExpiresAt                string         `json:"expires_at,omitempty"`
	OnExpiry                 string         `json:"on_expiry,omitempty"`
	Org                      string         `json:"org,omitempty"`
	Threshold                int            `json:"threshold,omitempty"`
	DisableBypassPermissions bool           `json:"disable_bypass_permissions,omitempty"`
	AllowedPermissionModes   []string       `json:"allowed_permission_modes,omitempty"`
	MinSandboxMode           string         `json:"min_sandbox_mode,omitempty"`
	MCP                      *MCP           `json:"mcp,omitempty"`
	Pins                     map[string]any `json:"pins,omitempty"`
	Rules                    *Rules         `json:"rules,omitempty"`
	MinVersion               string         `json:"min_version,omitempty"`
	AllowedModels            []string       `json:"allowed_models,omitempty"`
	AllowedProviders         []ProviderRule `json:"allowed_providers,omitempty"`
	Instructions             string         `json:"instructions,omitempty"`
	ShellPosture             string         `json:"shell_posture,omitempty"`
	// AllowManagedHooksOnly keeps only the managed layer's hooks and the
	// requirements' own (pins): every other hook is dropped and named.
	AllowManagedHooksOnly bool    `json:"allow_managed_hooks_only,omitempty"`
	Scopes                []Scope `json:"scopes,omitempty"`
	// ProjectConfig says how far a project's own config may loosen the
	// session: "trust" (the default: the user decides per workspace),
	// "tighten-only" (never) or "signed" (only with a project signature by
	// a key of RepoSigners). docs/trust.md.
	ProjectConfig string `json:"project_config,omitempty"`
	// RepoSigners are the public keys (signing's formats) whose project
	// signature lets a project's config loosen under "signed".
	RepoSigners []string `json:"repo_signers,omitempty"`
	// AllowManagedCommandsOnly and AllowManagedSkillsOnly keep only the
	// managed layer's custom commands and skills (docs/commands.md): every
	// user and project one is dropped, and named in inspect and on stderr.
	AllowManagedCommandsOnly bool `json:"allow_managed_commands_only,omitempty"`
	AllowManagedSkillsOnly   bool `json:"allow_managed_skills_only,omitempty"`

	// Set by ForMachine: the allowed sets of the policy and of every scope
	// that applies, each of which a session must satisfy.
	scoped    bool
	conflict  string
	models    []modelSet
	providers []providerSet
}

// MCP is the MCP server allow-list. A nil *MCP leaves MCP unrestricted; an
// empty AllowedServers allows no server at all.
type MCP struct {
	AllowedServers []MCPServer `json:"allowed_servers"`
}

// MCPServer is one allowed server: its name and its identity (a command path,
// optionally with the SHA-256 of the executable, or a URL). Args pins the
// exact argument vector (required for an interpreter or launcher, whose
// arguments decide what runs); ScriptSHA256 pins the file an interpreter
// runs (python3 /opt/mcp/srv.py: srv.py's digest).
type MCPServer struct {
	Name         string   `json:"name"`
	Command      string   `json:"command,omitempty"`
	Args         []string `json:"args,omitempty"`
	SHA256       string   `json:"sha256,omitempty"`
	ScriptSHA256 string   `json:"script_sha256,omitempty"`
	URL          string   `json:"url,omitempty"`
}

// MCPCandidate is a server about to start, as the agent identified it: the
// executable's digest and, for an interpreter or launcher (Runner), the
// script it runs and that file's digest.
type MCPCandidate struct {
	Name         string
	Command      string
	Args         []string
	SHA256       string
	Runner       string
	Script       string
	ScriptSHA256 string
	URL          string
}

// relativeScript reports whether the entry's pinned arguments run a script
// named by a relative path: a file of whichever project the server runs in.
func (s MCPServer) relativeScript() bool {
	l, err := mcplaunch.Analyze(s.Command, s.Args)
	return err == nil && l.Kind == mcplaunch.Script && !mcplaunch.AbsolutePath(l.Script)
}

// Rules are extra rules requirements add; they can only narrow.
type Rules struct {
	Deny []string `json:"deny,omitempty"`
	Ask  []string `json:"ask,omitempty"`
}

// Expires returns the parsed expiry (zero when absent).
func (p *Policy) Expires() time.Time {
	t, _ := time.Parse(time.RFC3339, p.ExpiresAt)
	return t
}

// EffectiveThreshold is the number of distinct trusted signatures the
// policy requires (at least 1).
func (p *Policy) EffectiveThreshold() int {
	if p.Threshold < 1 {
		return 1
	}
	return p.Threshold
}

// ModeAllowed says whether a permission mode may be selected under this
// policy, and if not, why.
func (p *Policy) ModeAllowed(mode string) (bool, string) {
	if mode == "bypassPermissions" && p.DisableBypassPermissions {
		return false, "bypassPermissions is locked out by requirements (disable_bypass_permissions)"
	}
	if len(p.AllowedPermissionModes) > 0 {
		for _, m := range p.AllowedPermissionModes {
			if m == mode {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%s is not in the requirements' allowed_permission_modes (%s)", mode, strings.Join(p.AllowedPermissionModes, ", "))
	}
	return true, ""
}

// MCPAllowed says whether an MCP server with this identity may start. A
// digest the caller has not computed is ""; a pinned digest then refuses.
// An interpreter or launcher (python3, node, npx, uvx, …) is admitted only
// by an entry that pins its arguments: a pinned python3 does not admit
// python3 -c ANY.
func (p *Policy) MCPAllowed(c MCPCandidate) (bool, string) {
	if p.MCP == nil {
		return true, ""
	}
	for _, s := range p.MCP.AllowedServers {
		if s.Name != c.Name {
			continue
		}
		switch {
		case s.URL != "" && s.URL == c.URL:
			return true, ""
		case s.Command != "" && s.Command == c.Command:
			if why := s.commandMismatch(c); why != "" {
				return false, fmt.Sprintf("MCP server %q: %s", c.Name, why)
			}
			return true, ""
		}
		return false, fmt.Sprintf("MCP server %q: its identity does not match the requirements allow-list entry (both name and command/URL must match)", c.Name)
	}
	if len(p.MCP.AllowedServers) == 0 {
		return false, fmt.Sprintf("MCP server %q: requirements allow no MCP server", c.Name)
	}
	return false, fmt.Sprintf("MCP server %q is not in the requirements MCP allow-list", c.Name)
}

// commandMismatch says how a local server differs from the entry s whose
// command it has ("" when it matches): the arguments, the executable's
// digest, the script's.
func (s MCPServer) commandMismatch(c MCPCandidate) string {
	runner := c.Runner != "" || mcplaunch.IsRunner(s.Command)
	switch {
	case s.Args == nil && runner:
		return fmt.Sprintf("%s is an interpreter or launcher and its allow-list entry pins no arguments (\"args\"), so it admits nothing: its arguments decide what runs", s.Command)
	case s.Args != nil && !slices.Equal(s.Args, c.Args):
		return fmt.Sprintf("its arguments %q are not the ones the allow-list entry pins (%q)", c.Args, s.Args)
	case s.SHA256 != "" && !strings.EqualFold(s.SHA256, c.SHA256):
		return fmt.Sprintf("the executable %s does not match the SHA-256 pinned by requirements", s.Command)
	case s.ScriptSHA256 != "" && !strings.EqualFold(s.ScriptSHA256, c.ScriptSHA256):
		return fmt.Sprintf("the script %s does not match the script_sha256 pinned by requirements (sha256 %s)", c.Script, c.ScriptSHA256)
	case s.ScriptSHA256 == "" && c.Script != "" && (s.SHA256 != "" || s.relativeScript()):
		return fmt.Sprintf("it runs the script %s, which its allow-list entry does not pin: add \"script_sha256\": %q", c.Script, c.ScriptSHA256)
	}
	return ""
}

// ErrInvalid marks a payload that is not a valid requirements policy.
var ErrInvalid = errors.New("invalid requirements payload")

// InvalidError lists what is wrong with a payload, each with its JSON
// Pointer and line:column.
type InvalidError struct {
	File       string
	Violations []schema.Violation
}

func (e *InvalidError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "requirements: %s: %d problem(s)", e.File, len(e.Violations))
	for _, v := range e.Violations {
		b.WriteString("\n  ")
		b.WriteString(v.Error())
	}
	return b.String()
}

func (e *InvalidError) Unwrap() error { return ErrInvalid }

// ParseOptions says how strict Parse is.
type ParseOptions struct {
	// File names the payload in messages.
	File string
	// Signed requires the fields oceanadmin sign fills in (serial,
	// issued_at, expires_at): a deployed payload must have them, a policy an
	// admin is editing need not.
	Signed bool
}

// Parse parses a requirements payload strictly.
func Parse(data []byte, o ParseOptions) (*Policy, error) {
	file := o.File
	if file == "" {
		file = "payload"
	}
	if len(data) > MaxSize {
		return nil, fmt.Errorf("requirements: %s: %d bytes exceeds the %d-byte limit: %w", file, len(data), MaxSize, ErrInvalid)
	}
	doc, err := jsonpos.Parse(data, jsonpos.Options{MaxDepth: 32})
	if err != nil {
		return nil, fmt.Errorf("requirements: %s: %w: %w", file, err, ErrInvalid)
	}
	viol := schema.ValidateValue(schema.Requirements, file, doc)
	flagged := map[string]bool{}
	for _, v := range viol {
		flagged[v.Pointer] = true
	}
	for _, v := range numberViolations(file, doc) {
		if !flagged[v.Pointer] {
			viol = append(viol, v)
		}
	}
	// The semantic checks (pins, rules, contradictions) are the ones
	// oceanadmin runs too: every problem is reported, not only the first.
	for _, v := range policycheck.Payload(file, doc) {
		if !flagged[v.Pointer] || v.Keyword == policycheck.KeywordContradiction {
			viol = append(viol, v)
		}
	}
	var p Policy
	if len(viol) == 0 {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		dec.UseNumber()
		if err := dec.Decode(&p); err != nil {
			return nil, fmt.Errorf("requirements: %s: decode: %w: %w", file, err, ErrInvalid)
		}
		if o.Signed {
			viol = append(viol, signedFieldViolations(file, doc, &p)...)
		}
		viol = append(viol, repoSignerViolations(file, doc, &p)...)
	}
	if len(viol) > 0 {
		sort.SliceStable(viol, func(i, j int) bool {
			if viol[i].Line != viol[j].Line {
				return viol[i].Line < viol[j].Line
			}
			return viol[i].Column < viol[j].Column
		})
		return nil, &InvalidError{File: file, Violations: viol}
	}
	return &p, nil
}

func signedFieldViolations(file string, doc *jsonpos.Doc, p *Policy) []schema.Violation {
	var out []schema.Violation
	add := func(field, msg string) {
		pos, _ := doc.Pos("")
		out = append(out, schema.Violation{File: file, Pointer: "/" + field, Line: pos.Line, Column: pos.Column, Keyword: "required", Message: msg})
	}
	if p.Serial < 1 {
		add("serial", `missing "serial": sign the policy with oceanadmin sign, which fills it in`)
	}
	if p.IssuedAt == "" {
		add("issued_at", `missing "issued_at": sign the policy with oceanadmin sign, which fills it in`)
	}
	if p.ExpiresAt == "" {
		add("expires_at", `missing "expires_at": sign the policy with oceanadmin sign, which fills it in`)
	}
	return out
}

// numberViolations refuses floats and integers beyond ±2^53 anywhere in the
// payload: a policy's numbers are serials, thresholds and limits, and a value
// that different JSON readers would round differently is an attack surface.
func numberViolations(file string, doc *jsonpos.Doc) []schema.Violation {
	var out []schema.Violation
	var walk func(ptr string, v any)
	walk = func(ptr string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, c := range v {
				walk(ptr+jsonpos.Pointer(k), c)
			}
		case []any:
			for i, c := range v {
				walk(fmt.Sprintf("%s/%d", ptr, i), c)
			}
		case json.Number:
			pos, _ := doc.Pos(ptr)
			s := string(v)
			if strings.ContainsAny(s, ".eE") {
				out = append(out, schema.Violation{File: file, Pointer: ptr, Line: pos.Line, Column: pos.Column, Keyword: "integer",
					Message: fmt.Sprintf("%s is not an integer: requirements allow no fractional or exponent numbers", s)})
				return
			}
			n, err := v.Int64()
			if err != nil || n > 1<<53 || n < -(1<<53) {
				out = append(out, schema.Violation{File: file, Pointer: ptr, Line: pos.Line, Column: pos.Column, Keyword: "integer",
					Message: fmt.Sprintf("%s is beyond ±2^53, which JSON readers cannot all represent exactly", s)})
			}
		}
	}
	walk("", doc.Value)
	return out
}

// repoSignerViolations refuses a repo_signers entry that is not a public
// key in one of the trusted_keys formats (docs/trust.md).
func repoSignerViolations(file string, doc *jsonpos.Doc, p *Policy) []schema.Violation {
	var out []schema.Violation
	for i, k := range p.RepoSigners {
		if _, err := signing.ParsePublicKey(k); err != nil {
			ptr := jsonpos.Pointer("repo_signers", strconv.Itoa(i))
			pos, _ := doc.Pos(ptr)
			out = append(out, schema.Violation{File: file, Pointer: ptr, Line: pos.Line, Column: pos.Column, Keyword: "repo_signers",
				Message: fmt.Sprintf("repo_signers[%d] is not a public key: %v; give a key line as in trusted_keys (ed25519:BASE64, ssh-ed25519 …, or a minisign key)", i, err)})
		}
	}
	return out
}
