package layers_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/layers/layerstest"
	"github.com/oceancode/oceancode/provenance"
	"github.com/oceancode/oceancode/requirements"
)

func fullMachine(t *testing.T) *layerstest.Machine { return layerstest.Full(t) }

func TestResolveAllLayers(t *testing.T) {
	t.Parallel()
	m := fullMachine(t)
	r := m.Resolve()
	if err := r.Err(); err != nil {
		t.Fatalf("Err() = %v\ndiagnostics: %v", err, r.Diagnostics)
	}
	if r.Requirements.Status != requirements.Verified {
		t.Fatalf("requirements %s: %s", r.Requirements.Status, r.Requirements.Reason)
	}
	get := func(k string) *provenance.Entry {
		t.Helper()
		e := r.Entries[k]
		if e == nil {
			t.Fatalf("no entry %s; have %v", k, r.Entries.Keys())
		}
		return e
	}
	// A pinned key that the user and the project both tried to change.
	e := get("sandbox.mode")
	if e.Value != "workspace-write" || e.Origin.Layer != provenance.Requirements || !e.Origin.Pinned {
		t.Errorf("sandbox.mode = %v from %v", e.Value, e.Origin)
	}
	if diff := cmp.Diff([]string{"read-only", "danger-full-access"}, values(e.Overrides)); diff != "" {
		t.Errorf("sandbox.mode overrides (-want +got):\n%s", diff)
	}
	// bypassPermissions asked by the user, refused with a reason.
	e = get("permission_mode")
	if e.Value != "default" || len(e.Refused) != 1 || e.Refused[0].Value != "bypassPermissions" || e.Refused[0].Origin.Layer != provenance.User {
		t.Errorf("permission_mode = %v, refused %+v", e.Value, e.Refused)
	}
	// Lines and columns point at the key in the file.
	e = get(`permission.bash["git status"]`)
	if e.Value != "deny" || e.Origin.Layer != provenance.User || e.Origin.Line != 4 || e.Origin.Column != 41 {
		t.Errorf(`permission.bash["git status"] = %v from %+v`, e.Value, e.Origin)
	}
	// Union: sandbox.deny keeps every layer's roots once.
	if diff := cmp.Diff([]any{".git", "secrets", ".env"}, get("sandbox.deny").Value); diff != "" {
		t.Errorf("sandbox.deny (-want +got):\n%s", diff)
	}
	// Append: shell.allow keeps project then managed rules.
	if diff := cmp.Diff([]any{"Bash(make:*)", "Bash(go test:*)"}, get("shell.allow").Value); diff != "" {
		t.Errorf("shell.allow (-want +got):\n%s", diff)
	}
	// Drop-ins merge in lexical order: 20-team wins over 10-base.
	if e := get("jev.enabled"); e.Value != true || !strings.HasSuffix(e.Origin.Source, "20-team.json") {
		t.Errorf("jev.enabled = %v from %v", e.Value, e.Origin)
	}
	if e := get("jev.permissions"); e.Value != "act" {
		t.Errorf("jev.permissions = %v", e.Value)
	}
	// Session layer from the environment.
	if e := get("sandbox.network"); e.Value != "on" || e.Origin.Source != "env:OC_SANDBOX_NETWORK" {
		t.Errorf("sandbox.network = %v from %v", e.Value, e.Origin)
	}
	// project < local
	if e := get("model"); !strings.HasSuffix(e.Origin.Source, "oceancode.local.json") {
		t.Errorf("model from %v", e.Origin)
	}
	if r.ProjectRoot != m.Project {
		t.Errorf("ProjectRoot = %s, want %s", r.ProjectRoot, m.Project)
	}
}

// TestRuleOrder: permission rules from every layer are kept in layer order,
// then file order, with requirements' rules last.
func TestRuleOrder(t *testing.T) {
	t.Parallel()
	r := fullMachine(t).Resolve()
	var got []string
	for _, rule := range r.Rules {
		got = append(got, rule.Origin.Layer.String()+" "+provenance.KeyPath(rule.Path...)+"="+rule.Action)
	}
	want := []string{
		`project permission.bash["git status"]=allow`,
		`project permission.bash["npm test"]=allow`,
		`project permission.edit["*"]=ask`,
		`user permission.bash["*"]=ask`,
		`user permission.bash["git status"]=deny`,
		`managed permission.bash["rm -rf:*"]=deny`,
		`requirements permission.bash["curl:*"]=deny`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
}

// TestKoanfAgreesWithProvenance: the merged values and the provenance are
// computed on separate paths; they must agree on every key.
func TestKoanfAgreesWithProvenance(t *testing.T) {
	t.Parallel()
	r := fullMachine(t).Resolve()
	for _, k := range r.Entries.Keys() {
		segs, err := provenance.SplitKey(k)
		if err != nil {
			t.Fatal(err)
		}
		got := r.K.Get(strings.Join(segs, layers.Delim))
		if !reflect.DeepEqual(got, r.Entries[k].Value) {
			t.Errorf("%s: koanf has %#v, provenance has %#v", k, got, r.Entries[k].Value)
		}
	}
}

func TestBrokenFiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		setup    func(m *layerstest.Machine)
		errIs    error
		severity layers.Severity
		msg      string
		line     int
	}{
		{"managed invalid JSON", func(m *layerstest.Machine) { m.Managed("{\n  \"sandbox\": {\n}") }, layers.ErrInvalidConfig, layers.Error, "invalid JSON", 3},
		{"managed unknown key refused", func(m *layerstest.Machine) { m.Managed("{\n  \"sandbx\": {}\n}") }, layers.ErrInvalidConfig, layers.Error, `unknown key "sandbx"`, 2},
		{"managed drop-in bad value", func(m *layerstest.Machine) { m.DropIn("x.json", `{"permission_mode": "yolo"}`) }, layers.ErrInvalidConfig, layers.Error, "must be one of", 1},
		{"user unknown key is a warning", func(m *layerstest.Machine) { m.UserConfig("{\n \"modle\": \"x/y\"\n}") }, nil, layers.Warning, "ignored", 2},
		{"user typo gets did-you-mean", func(m *layerstest.Machine) { m.UserConfig("{\n \"modle\": \"x/y\"\n}") }, nil, layers.Warning, `did you mean "model"?`, 2},
		// Another agent's permission vocabulary is never dropped silently:
		// the file is not applied, and the message names our equivalent.
		{"user Claude Code permissions refuses", func(m *layerstest.Machine) {
			m.UserConfig("{\n  \"permissions\": {\"deny\": [\"Bash(rm:*)\"]}\n}")
		}, layers.ErrInvalidConfig, layers.Error, `"permissions" is Claude Code's spelling; OceanCode's equivalent: "permission"`, 2},
		{"project Codex approval_policy refuses", func(m *layerstest.Machine) { m.ProjectConfig(`{"approval_policy": "never"}`) }, layers.ErrInvalidConfig, layers.Error, `"approval_policy" is Codex's spelling; OceanCode's equivalent: "permission_mode"`, 1},
		{"project Cline autoApprove refuses", func(m *layerstest.Machine) { m.ProjectConfig(`{"autoApprove": ["x"]}`) }, layers.ErrInvalidConfig, layers.Error, `"autoApprove" is Cline and Roo Code's spelling`, 1},
		// Other peer keys are warnings with the hint; the rest applies.
		{"user mcpServers in the wrong file", func(m *layerstest.Machine) { m.UserConfig(`{"mcpServers": {}}`) }, nil, layers.Warning, `OceanCode's equivalent: "mcp": {"servers": {…}} in this file, or keep "mcpServers" in the project's .mcp.json; the key is ignored`, 1},
		{"managed peer key names the equivalent", func(m *layerstest.Machine) { m.Managed(`{"sandbox_mode": "read-only"}`) }, layers.ErrInvalidConfig, layers.Error, `"sandbox_mode" is Codex's spelling`, 1},
		{"nested peer-looking key is an ordinary unknown key", func(m *layerstest.Machine) { m.UserConfig(`{"sandbox": {"permissions": 1}}`) }, nil, layers.Warning, `unknown key "permissions"`, 1},
		{"user bad value refuses", func(m *layerstest.Machine) { m.UserConfig(`{"sandbox": {"mode": "off"}}`) }, layers.ErrInvalidConfig, layers.Error, "must be one of", 1},
		{"project duplicate key refuses", func(m *layerstest.Machine) { m.ProjectConfig("{\"model\": \"a/b\",\n \"model\": \"c/d\"}") }, layers.ErrInvalidConfig, layers.Error, "duplicate", 2},
		{"project not an object", func(m *layerstest.Machine) { m.ProjectConfig(`[]`) }, layers.ErrInvalidConfig, layers.Error, "JSON object", 1},
		{"env bad value", func(m *layerstest.Machine) { m.Env["OC_PERMISSION_MODE"] = "yolo" }, layers.ErrInvalidConfig, layers.Error, "OC_PERMISSION_MODE", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := layerstest.New(t)
			tt.setup(m)
			r := m.Resolve()
			err := r.Err()
			if tt.errIs == nil && err != nil || tt.errIs != nil && !errors.Is(err, tt.errIs) {
				t.Fatalf("Err() = %v, want %v", err, tt.errIs)
			}
			if len(r.Diagnostics) == 0 {
				t.Fatal("no diagnostic")
			}
			d := r.Diagnostics[0]
			if d.Severity != tt.severity || !strings.Contains(d.String(), tt.msg) || d.Line != tt.line {
				t.Errorf("diagnostic = %s (severity %s, line %d), want %s mentioning %q at line %d", d, d.Severity, d.Line, tt.severity, tt.msg, tt.line)
			}
		})
	}
}

func TestUnknownUserKeyIgnoredRestApplied(t *testing.T) {
	t.Parallel()
	m := layerstest.New(t)
	m.UserConfig(`{"modle": "x/y", "model": "a/b"}`)
	r := m.Resolve()
	if _, ok := r.Entries["modle"]; ok {
		t.Error("unknown key applied")
	}
	if e := r.Entries["model"]; e == nil || e.Value != "a/b" {
		t.Errorf("model = %v", e)
	}
}

// TestEnforcedModeIgnoresEnvOverrides: with the admin anchor present, a user
// cannot point the agent at a weaker policy.
func TestEnforcedModeIgnoresEnvOverrides(t *testing.T) {
	t.Parallel()
	m := layerstest.New(t)
	m.Anchor()
	m.Requirements(3, map[string]any{"disable_bypass_permissions": true})
	weak := filepath.Join(m.Root, "weak")
	os.MkdirAll(weak, 0o755)
	os.WriteFile(filepath.Join(weak, "managed.json"), []byte(`{"permission_mode": "bypassPermissions"}`), 0o644)
	os.WriteFile(filepath.Join(weak, "requirements.json"), []byte(`{}`), 0o644)
	m.Env["OC_MANAGED_CONFIG"] = filepath.Join(weak, "managed.json")
	m.Env["OC_REQUIREMENTS"] = filepath.Join(weak, "requirements.json")
	m.Env["OC_REQUIREMENTS_PUBKEY"] = layerstest.FixedKey("attacker").Public().String()
	r := m.Resolve()
	if r.Requirements.Status != requirements.Verified || r.Requirements.Path != filepath.Join(m.ManagedDir, "requirements.json") {
		t.Fatalf("requirements %s from %s: %s", r.Requirements.Status, r.Requirements.Path, r.Requirements.Reason)
	}
	ignored := 0
	for _, l := range r.Layers {
		if l.Status == layers.StatusIgnored && strings.HasPrefix(l.Source, "env:") {
			ignored++
		}
	}
	if ignored != 2 {
		t.Errorf("ignored env overrides = %d, want 2: %+v", ignored, r.Layers)
	}
	if e := r.Entries["permission_mode"]; e.Value != "default" {
		t.Errorf("permission_mode = %v", e.Value)
	}
	if !r.EnforcedAnchor {
		t.Error("EnforcedAnchor = false")
	}
}

// TestEnvOverridesWithoutAnchor: without an admin anchor the env overrides
// are the seed's mechanism and work.
func TestEnvOverridesWithoutAnchor(t *testing.T) {
	t.Parallel()
	m := layerstest.New(t)
	dir := filepath.Join(m.Root, "policy")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "managed.json"), []byte(`{"sandbox": {"network": "off"}}`), 0o644)
	os.WriteFile(filepath.Join(dir, "requirements.json"), m.Policy(1, map[string]any{"pins": map[string]any{"model": "corp/approved"}}), 0o644)
	m.Env["OC_MANAGED_CONFIG"] = filepath.Join(dir, "managed.json")
	m.Env["OC_REQUIREMENTS_PUBKEY"] = m.Key.Public().String()
	m.UserConfig(`{"model": "mine/fast"}`)
	r := m.Resolve()
	if r.Requirements.Status != requirements.Verified {
		t.Fatalf("%s: %s", r.Requirements.Status, r.Requirements.Reason)
	}
	if e := r.Entries["model"]; e.Value != "corp/approved" || !e.Origin.Pinned {
		t.Errorf("model = %v from %v", e.Value, e.Origin)
	}
	// A named managed file that is missing is an error, not silently skipped.
	m.Env["OC_MANAGED_CONFIG"] = filepath.Join(dir, "gone.json")
	if err := m.Resolve().Err(); !errors.Is(err, layers.ErrInvalidConfig) {
		t.Errorf("missing $OC_MANAGED_CONFIG file: Err() = %v", err)
	}
}

func TestRequirementsRefusedBlocks(t *testing.T) {
	t.Parallel()
	m := layerstest.New(t)
	m.Anchor()
	p := m.Requirements(2, nil)
	data, _ := os.ReadFile(p)
	os.WriteFile(p, []byte(strings.Replace(string(data), `"payload": "e`, `"payload": "f`, 1)), 0o644)
	r := m.Resolve()
	err := r.Err()
	if !errors.Is(err, layers.ErrRequirementsRefused) {
		t.Fatalf("Err() = %v", err)
	}
	for _, want := range []string{p, m.Key.Public().ID(), "what to do"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q does not mention %q", err, want)
		}
	}
}

func TestMinSandboxAndMCPLocks(t *testing.T) {
	t.Parallel()
	m := layerstest.New(t)
	m.Anchor()
	m.UserConfig(`{"mcp": {"servers": {"github": {"command": "/usr/bin/true"}, "rogue": {"url": "https://evil.example.com/mcp"}}}}`)
	m.Requirements(1, map[string]any{
		"min_sandbox_mode": "workspace-write",
		"mcp":              map[string]any{"allowed_servers": []any{map[string]any{"name": "github", "command": "/usr/bin/true"}}},
	})
	r := m.Resolve()
	if e := r.Entries["sandbox.mode"]; e == nil || e.Value != "workspace-write" {
		t.Errorf("sandbox.mode = %+v", e)
	}
	if e := r.Entries["sandbox.enabled"]; e == nil || e.Value != true || len(e.Refused) != 1 {
		t.Errorf("sandbox.enabled = %+v", e)
	}
	if _, ok := r.Locks.MCPRefused["rogue"]; !ok {
		t.Errorf("rogue MCP server not refused: %v", r.Locks.MCPRefused)
	}
	if _, ok := r.Locks.MCPRefused["github"]; ok {
		t.Errorf("allowed MCP server refused: %v", r.Locks.MCPRefused)
	}
}

func values(vs []provenance.Value) []string {
	var out []string
	for _, v := range vs {
		if s, ok := v.Value.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// TestMissingRequirementsIsNoWeakerPolicy: with trusted keys configured (the
// admin anchor, or the key variable where no anchor exists), a deleted or
// unreadable requirements.json never means "no policy": the last-known-good
// policy stays in force, and without one sessions are refused.
func TestMissingRequirementsIsNoWeakerPolicy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		setup func(m *layerstest.Machine)
		lkg   bool // verify the file once before it goes
		dir   bool // replace the file by a directory (unreadable) instead of deleting it
	}{
		{name: "anchor, deleted, last-known-good", setup: func(m *layerstest.Machine) { m.Anchor() }, lkg: true},
		{name: "anchor, unreadable, last-known-good", setup: func(m *layerstest.Machine) { m.Anchor() }, lkg: true, dir: true},
		{name: "anchor, deleted, nothing verified before", setup: func(m *layerstest.Machine) { m.Anchor() }},
		{name: "key variable, deleted, last-known-good", setup: func(m *layerstest.Machine) { m.Env["OC_REQUIREMENTS_PUBKEY"] = m.Key.Public().String() }, lkg: true},
		{name: "key variable, deleted, nothing verified before", setup: func(m *layerstest.Machine) { m.Env["OC_REQUIREMENTS_PUBKEY"] = m.Key.Public().String() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := layerstest.New(t)
			tt.setup(m)
			p := m.Requirements(3, map[string]any{"disable_bypass_permissions": true})
			if tt.lkg {
				if r := m.Resolve(); r.Requirements.Status != requirements.Verified {
					t.Fatalf("first load: %s %s", r.Requirements.Status, r.Requirements.Reason)
				}
			}
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			if tt.dir {
				os.Mkdir(p, 0o755)
			}
			r := m.Resolve()
			if !tt.lkg {
				if err := r.Err(); !errors.Is(err, layers.ErrRequirementsRefused) || !strings.Contains(err.Error(), p) {
					t.Fatalf("Err() = %v, want a refusal naming %s", err, p)
				}
				if r.Locks.Policy != nil {
					t.Fatal("a policy is in force although none verified")
				}
				return
			}
			if r.Requirements.Status != requirements.LastKnownGood || r.Err() != nil {
				t.Fatalf("status %s (%s), Err() = %v", r.Requirements.Status, r.Requirements.Reason, r.Err())
			}
			if _, locked := r.Locks.DisallowedModes["bypassPermissions"]; !locked {
				t.Errorf("bypassPermissions not locked out under the last-known-good policy: %+v", r.Locks)
			}
		})
	}
}

// Requirements that verified can still refuse this machine: an agent below
// min_version, or scopes that leave no mode. The version and the machine
// are injected.
func TestRequirementsRefuseThisMachine(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		policy  map[string]any
		version string
		want    string
	}{
		{"below the floor", map[string]any{"min_version": "1.4.0"}, "1.3.0", "this oceancode is version 1.3.0, older than the requirements' min_version 1.4.0"},
		{"a scope raises the floor", map[string]any{"min_version": "1.0.0", "scopes": []any{map[string]any{"name": "ci", "match": map[string]any{"hosts": []any{"ci-*"}}, "require": map[string]any{"min_version": "1.4.0"}}}}, "1.3.0", "min_version 1.4.0"},
		{"scopes leave no mode", map[string]any{"scopes": []any{
			map[string]any{"name": "a", "match": map[string]any{"hosts": []any{"ci-*"}}, "require": map[string]any{"allowed_permission_modes": []any{"plan"}}},
			map[string]any{"name": "b", "match": map[string]any{"groups": []any{"dev"}}, "require": map[string]any{"allowed_permission_modes": []any{"default"}}}}}, "1.3.0", "no mode is left on this machine"},
		{"at the floor", map[string]any{"min_version": "1.3.0"}, "v1.3.0", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := layerstest.New(t)
			m.Anchor()
			m.Requirements(1, c.policy)
			o := m.Options()
			o.AgentVersion = c.version
			o.Machine = &requirements.Machine{Hostname: "ci-1", Groups: []string{"dev"}}
			err := layers.Resolve(o).Err()
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var me *layers.MachineError
			if !errors.Is(err, layers.ErrRequirementsRefused) || !errors.As(err, &me) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want a MachineError containing %q", err, c.want)
			}
		})
	}
}
