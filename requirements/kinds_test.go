package requirements

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func mustParse(t *testing.T, s string) *Policy {
	t.Helper()
	p, err := Parse([]byte(s), ParseOptions{File: "policy.json"})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestVersionAllowed(t *testing.T) {
	for _, c := range []struct {
		min, agent string
		ok         bool
		want       string
	}{
		{"", "dev", true, ""},
		{"1.4.0", "1.4.0", true, ""},
		{"1.4.0", "v1.4.0", true, ""},
		{"v1.4.0", "1.10.0", true, ""}, // numeric, not lexical
		{"1.4.0", "2.0.0", true, ""},
		{"1.4.0", "1.3.9", false, "this oceancode is version 1.3.9, older than the requirements' min_version 1.4.0"},
		{"1.4.0", "1.4.0-rc.1", false, "older than the requirements' min_version 1.4.0"}, // a pre-release precedes its release
		{"1.4.0-rc.1", "1.4.0-rc.2", true, ""},
		{"1.4.0", "dev", false, "development build (version dev), which satisfies no min_version"},
		{"1.4.0", "1.4", false, "development build"},
		{"1.4.0", "", false, "development build"},
	} {
		ok, why := (&Policy{MinVersion: c.min}).VersionAllowed(c.agent)
		if ok != c.ok || !strings.Contains(why, c.want) {
			t.Errorf("min %q agent %q: %v %q, want %v containing %q", c.min, c.agent, ok, why, c.ok, c.want)
		}
	}
}

func TestModelAndProviderAllowed(t *testing.T) {
	p := mustParse(t, `{"schema_version":1,"allowed_models":["anthropic/claude-*","corp/*"],
		"allowed_providers":[{"type":"anthropic"},{"type":"openai","hosts":["llm.corp.example","*.gw.corp.example:8443"]}]}`)
	for _, c := range []struct {
		model string
		ok    bool
	}{{"anthropic/claude-sonnet-4-5", true}, {"corp/qwen/qwen3", true}, {"anthropic/gpt-4", false}, {"openai/claude-x", false}, {"anthropic/claude", false}} {
		ok, why := p.ModelAllowed(c.model)
		if ok != c.ok {
			t.Errorf("model %s: %v (%s), want %v", c.model, ok, why, c.ok)
		}
		if !ok && why != "model "+c.model+" is not allowed by the requirements' allowed_models (anthropic/claude-*, corp/*)" {
			t.Errorf("model %s: reason %q", c.model, why)
		}
	}
	for _, c := range []struct {
		typ, baseURL string
		ok           bool
	}{
		{"anthropic", "", true},
		{"anthropic", "https://api.anthropic.com", true},
		{"anthropic", "https://API.anthropic.com./v1", true},
		{"anthropic", "https://proxy.example", false},
		{"openai", "", false}, // api.openai.com is not listed
		{"openai", "https://llm.corp.example/v1", true},
		{"openai", "http://llm.corp.example:8080/v1", true},
		{"openai", "https://a.gw.corp.example:8443/v1", true},
		{"openai", "https://a.gw.corp.example/v1", false}, // port 443, the entry says 8443
		{"openai", "https://gw.corp.example:8443/v1", false},
		{"anthropic", "https://llm.corp.example", false}, // the host is listed for another type
		{"openai", "not a url", false},
	} {
		ok, why := p.ProviderAllowed("corp", c.typ, c.baseURL)
		if ok != c.ok {
			t.Errorf("%s at %q: %v (%s), want %v", c.typ, c.baseURL, ok, why, c.ok)
		}
		if !ok && !strings.HasPrefix(why, "provider corp") {
			t.Errorf("%s at %q: reason %q does not name the provider", c.typ, c.baseURL, why)
		}
	}
	_, why := p.ProviderAllowed("corp", "anthropic", "https://proxy.example")
	if want := "provider corp (type anthropic, endpoint proxy.example:443) is not allowed by the requirements' allowed_providers (anthropic at api.anthropic.com; openai at llm.corp.example or *.gw.corp.example:8443)"; why != want {
		t.Errorf("reason\n got %q\nwant %q", why, want)
	}
	if ok, _ := (&Policy{}).ModelAllowed("any/thing"); !ok {
		t.Error("a policy without allowed_models refuses a model")
	}
}

func TestScopes(t *testing.T) {
	p := mustParse(t, `{"schema_version":1,"allowed_permission_modes":["default","plan","acceptEdits"],"min_sandbox_mode":"workspace-write",
		"allowed_models":["anthropic/*"],"instructions":"Org text.","min_version":"1.2.0","rules":{"deny":["Bash(curl:*)"]},
		"scopes":[
		 {"name":"ci","match":{"hosts":["CI-*.example.com"]},"require":{"shell_posture":"default-deny","min_sandbox_mode":"read-only","min_version":"1.5.0"}},
		 {"name":"contractors","match":{"groups":["contractors"]},"require":{"allowed_permission_modes":["plan","dontAsk"],"allowed_models":["anthropic/claude-haiku-*"],
		   "instructions":"Contractor text.","rules":{"ask":["Edit(**)"]},"min_version":"1.1.0","disable_bypass_permissions":true}}]}`)
	for _, c := range []struct {
		name    string
		m       Machine
		applied []string
		check   func(t *testing.T, e *Policy)
	}{
		{name: "neither", m: Machine{Hostname: "laptop", Groups: []string{"staff"}}, check: func(t *testing.T, e *Policy) {
			if e.ShellPosture != "" || e.MinSandboxMode != "workspace-write" || e.Instructions != "Org text." || e.MinVersion != "1.2.0" {
				t.Errorf("base policy changed: %+v", e)
			}
		}},
		{name: "ci host, case-insensitive", m: Machine{Hostname: "ci-7.Example.com"}, applied: []string{"ci"}, check: func(t *testing.T, e *Policy) {
			if e.ShellPosture != ShellPostureDefaultDeny || e.MinSandboxMode != "read-only" || e.MinVersion != "1.5.0" {
				t.Errorf("ci not folded in: %+v", e)
			}
		}},
		{name: "contractor", m: Machine{Hostname: "laptop", Groups: []string{"staff", "contractors"}}, applied: []string{"contractors"}, check: func(t *testing.T, e *Policy) {
			if !slices.Equal(e.AllowedPermissionModes, []string{"plan"}) || !e.DisableBypassPermissions {
				t.Errorf("modes %v bypass %v, want [plan] true", e.AllowedPermissionModes, e.DisableBypassPermissions)
			}
			if e.MinVersion != "1.2.0" { // the stronger floor stays
				t.Errorf("min_version %s", e.MinVersion)
			}
			if e.Instructions != "Org text.\n\nContractor text." {
				t.Errorf("instructions %q", e.Instructions)
			}
			if !slices.Equal(e.Rules.Deny, []string{"Bash(curl:*)"}) || !slices.Equal(e.Rules.Ask, []string{"Edit(**)"}) {
				t.Errorf("rules %+v", e.Rules)
			}
			// Both model lists must hold.
			if ok, _ := e.ModelAllowed("anthropic/claude-haiku-4"); !ok {
				t.Error("haiku refused")
			}
			if ok, why := e.ModelAllowed("anthropic/claude-opus-4"); ok || !strings.Contains(why, "scope contractors allowed_models") {
				t.Errorf("opus: %v %q", ok, why)
			}
			if got := e.AllowedModelSets(); len(got) != 2 {
				t.Errorf("model sets %q", got)
			}
		}},
		{name: "unknown hostname and groups apply every scope", m: Machine{HostnameUnknown: true, GroupsUnknown: true}, applied: []string{"ci", "contractors"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, status := p.ForMachine(c.m)
			var applied []string
			for _, s := range status {
				if s.Applied {
					applied = append(applied, s.Name)
				}
				if s.Why == "" {
					t.Errorf("scope %s: no reason", s.Name)
				}
			}
			if !slices.Equal(applied, c.applied) {
				t.Errorf("applied %v, want %v (%+v)", applied, c.applied, status)
			}
			if c.check != nil {
				c.check(t, e)
			}
			if p.Rules.Ask != nil || p.ShellPosture != "" {
				t.Error("ForMachine changed the signed policy")
			}
		})
	}
}

func TestParseNewKindMessages(t *testing.T) {
	for _, c := range []struct{ name, payload, want string }{
		{"bad version", `{"schema_version":1,"min_version":"1.4"}`, `/min_version: "min_version" must be a semantic version`},
		{"model without provider", `{"schema_version":1,"allowed_models":["claude-*"]}`, `/allowed_models/0: "allowed_models[0]" must be a PROVIDER/MODEL pattern`},
		{"unknown provider type", `{"schema_version":1,"allowed_providers":[{"type":"gemini"}]}`, "/allowed_providers/0/type"},
		{"bad provider host", `{"schema_version":1,"allowed_providers":[{"type":"openai","hosts":["https://llm.corp"]}]}`, `/allowed_providers/0/hosts/0: allowed_providers host "https://llm.corp"`},
		{"unknown posture", `{"schema_version":1,"shell_posture":"paranoid"}`, "/shell_posture"},
		{"empty instructions", `{"schema_version":1,"instructions":""}`, "/instructions"},
		{"pinned model not allowed", `{"schema_version":1,"allowed_models":["anthropic/*"],"pins":{"model":"openai/gpt-5"}}`, `pin "model" sets model openai/gpt-5, which allowed_models (anthropic/*) excludes`},
		{"scope without match", `{"schema_version":1,"scopes":[{"name":"a","match":{},"require":{"shell_posture":"default-deny"}}]}`, "/scopes/0/match"},
		{"scope pins", `{"schema_version":1,"scopes":[{"name":"a","match":{"groups":["g"]},"require":{"pins":{"model":"a/b"}}}]}`, "/scopes/0/require"},
		{"scope twice", `{"schema_version":1,"scopes":[{"name":"a","match":{"groups":["g"]},"require":{"shell_posture":"default-deny"}},{"name":"a","match":{"groups":["h"]},"require":{"shell_posture":"default-deny"}}]}`, `scope "a" is listed twice`},
		{"scope bad rule", `{"schema_version":1,"scopes":[{"name":"a","match":{"groups":["g"]},"require":{"rules":{"deny":["Edit([)"]}}}]}`, "/scopes/0/require/rules/deny/0"},
		{"scope modes disjoint", `{"schema_version":1,"allowed_permission_modes":["default"],"scopes":[{"name":"a","match":{"groups":["g"]},"require":{"allowed_permission_modes":["plan"]}}]}`, `scope "a" allows only plan, none of which`},
		{"scope host pattern", `{"schema_version":1,"scopes":[{"name":"a","match":{"hosts":["ci_1"]},"require":{"shell_posture":"default-deny"}}]}`, `/scopes/0/match/hosts/0: "scopes[0].match.hosts[0]" must be a hostname pattern`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.payload), ParseOptions{File: "policy.json"})
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want ErrInvalid containing %q", err, c.want)
			}
		})
	}
}

// Two scopes that both apply and share no permission mode leave the
// machine none: the effective policy says so (agents refuse sessions).
func TestScopesLeavingNoMode(t *testing.T) {
	p := mustParse(t, `{"schema_version":1,"scopes":[
		{"name":"a","match":{"groups":["g"]},"require":{"allowed_permission_modes":["plan"]}},
		{"name":"b","match":{"groups":["g"]},"require":{"allowed_permission_modes":["default"]}}]}`)
	e, _ := p.ForMachine(Machine{Groups: []string{"g"}})
	if c := e.Conflict(); !strings.Contains(c, "scope b allows only the permission modes default, none of which the policy allows (plan)") {
		t.Errorf("conflict %q", c)
	}
	if e, _ := p.ForMachine(Machine{Groups: []string{"h"}}); e.Conflict() != "" {
		t.Errorf("no scope applies, yet conflict %q", e.Conflict())
	}
}
