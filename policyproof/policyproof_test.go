package policyproof_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/layers/layerstest"
	"github.com/oceancode/oceancode/policyproof"
)

// locked is a machine whose signed requirements lock out
// bypassPermissions, ask for at least a workspace-write sandbox, deny
// curl and pin sandbox.mode, plus fields.
func locked(t *testing.T, fields map[string]any) *layerstest.Machine {
	m := layerstest.New(t)
	m.Anchor()
	f := map[string]any{
		"disable_bypass_permissions": true,
		"min_sandbox_mode":           "workspace-write",
		"rules":                      map[string]any{"deny": []any{"Bash(curl:*)"}},
		"pins":                       map[string]any{"sandbox.mode": "workspace-write"},
	}
	for k, v := range fields {
		f[k] = v
	}
	m.Requirements(1, f)
	return m
}

func config(m *layerstest.Machine) policyproof.Config {
	o := m.Options()
	o.AgentVersion = "1.5.0"
	return policyproof.Config{Layers: o, Home: m.Home}
}

func prove(t *testing.T, base, on *layerstest.Machine) []policyproof.Result {
	t.Helper()
	o := config(base).Layers
	res := layers.Resolve(o)
	return policyproof.Prove(res, config(on))
}

// only keeps the results of one kind of lock.
func only(rs []policyproof.Result, k policyproof.Kind) []policyproof.Result {
	var out []policyproof.Result
	for _, r := range rs {
		if r.Lock.Kind == k {
			out = append(out, r)
		}
	}
	return out
}

func byPath(rs []policyproof.Result, path string) (policyproof.Result, bool) {
	for _, r := range rs {
		if r.Path == path {
			return r, true
		}
	}
	return policyproof.Result{}, false
}

// Without a policy only the dangerous floor is proved, and it holds for
// every command.
func TestNoPolicyProvesTheFloor(t *testing.T) {
	m := layerstest.New(t)
	rs := prove(t, m, m)
	if len(rs) != 4 {
		t.Fatalf("%d results, want the floor's 4: %+v", len(rs), rs)
	}
	for _, r := range rs {
		if r.Lock.Kind != policyproof.Floor || r.Outcome != policyproof.Held || !strings.HasPrefix(r.Path, "allow-all rule + bypassPermissions: ") || !strings.HasPrefix(r.Detail, "denied: ") {
			t.Errorf("floor: %+v", r)
		}
	}
}

// On a machine whose requirements hold, every path of every lock is
// proved Held: none Broken, none skipped.
func TestLockedMachineHolds(t *testing.T) {
	m := locked(t, nil)
	rs := prove(t, m, m)
	for _, r := range rs {
		if r.Outcome != policyproof.Held || r.Err != nil {
			t.Errorf("%s via %s: outcome %d: %s", r.Lock, r.Path, r.Outcome, r.Detail)
		}
	}
	modes := only(rs, policyproof.Mode)
	for _, path := range []string{"flag --permission-mode", "env OC_PERMISSION_MODE", "agent definition", "project config", "user config", "managed config", "live switch over the HTTP API (loopback)"} {
		r, ok := byPath(modes, path)
		if !ok {
			t.Errorf("no mode check via %s: %+v", path, modes)
			continue
		}
		if r.Lock != (policyproof.Lock{Kind: policyproof.Mode, Subject: "bypassPermissions"}) || !strings.HasPrefix(r.Detail, "downgraded to default") {
			t.Errorf("mode via %s: %+v", path, r)
		}
	}
	if got := len(only(rs, policyproof.MinSandbox)); got != 5 {
		t.Errorf("%d sandbox checks, want 5 (flag, sandbox.enabled, three layers)", got)
	}
	pins := only(rs, policyproof.Pin)
	if len(pins) != 4 {
		t.Errorf("%d pin checks, want 4 (session, three layers): %+v", len(pins), pins)
	}
	if r, _ := byPath(pins, "user config"); r.Lock.String() != "pin sandbox.mode" || !strings.HasPrefix(r.Detail, `held at "workspace-write" against `) {
		t.Errorf("pin via user config: %+v", r)
	}
	deny := only(rs, policyproof.Deny)
	if len(deny) != 4 {
		t.Fatalf("%d deny checks, want 4: %+v", len(deny), deny)
	}
	if r, _ := byPath(deny, `"always" approval`); r.Lock.Subject != "Bash(curl:*)" || !strings.HasPrefix(r.Detail, `bash "curl doctor-probe" denied by `) {
		t.Errorf("deny via an always approval: %+v", r)
	}
}

// A lock proved against a machine where it does not hold is Broken: the
// policy of base, the paths tried on a machine without requirements.
func TestBrokenWhereTheLockDoesNotHold(t *testing.T) {
	rs := prove(t, locked(t, nil), layerstest.New(t))
	for _, c := range []struct {
		kind   policyproof.Kind
		path   string
		detail string
	}{
		{policyproof.Mode, "flag --permission-mode", "the session would run in bypassPermissions"},
		{policyproof.Mode, "user config", "the session would run in bypassPermissions"},
		{policyproof.MinSandbox, "flag --sandbox danger-full-access", "the bash tool would run with the sandbox "},
		{policyproof.Deny, "bypassPermissions", `bash "curl doctor-probe" was allow by `},
	} {
		r, ok := byPath(only(rs, c.kind), c.path)
		if !ok || r.Outcome != policyproof.Broken || !strings.HasPrefix(r.Detail, c.detail) {
			t.Errorf("lock kind %d via %s: %+v, want Broken %q…", c.kind, c.path, r, c.detail)
		}
	}
	// The floor is not the policy's: it holds on both machines.
	for _, r := range only(rs, policyproof.Floor) {
		if r.Outcome != policyproof.Held {
			t.Errorf("floor: %+v", r)
		}
	}
}

// While sessions are refused no check can run, and none is Broken: each
// says why, with an error that is ErrRefused.
func TestRefusedSessionsAreNotRun(t *testing.T) {
	m := locked(t, nil)
	m.UserConfig(`{"permission_mode": "yolo"}`)
	rs := prove(t, m, m)
	if len(rs) == 0 {
		t.Fatal("no results")
	}
	for _, r := range rs {
		if r.Lock.Kind == policyproof.Pin {
			continue
		}
		if r.Outcome != policyproof.NotRun || !errors.Is(r.Err, policyproof.ErrRefused) {
			t.Errorf("%s via %s: outcome %d, err %v", r.Lock, r.Path, r.Outcome, r.Err)
		}
	}
	r, _ := byPath(rs, "allow-all rule + bypassPermissions")
	if r.Detail != "could not run: sessions are refused here: the configuration has 1 error(s)" {
		t.Errorf("floor: %q", r.Detail)
	}
}

// The newer kinds: the version floor holds against an old agent and a
// development build, a scope that does not apply is NotApplicable.
func TestVersionFloorAndScopes(t *testing.T) {
	m := locked(t, map[string]any{
		"min_version": "1.2.0",
		"scopes": []any{
			map[string]any{"name": "nobody", "match": map[string]any{"groups": []any{"no-such-group-oceancode"}}, "require": map[string]any{"min_version": "9.0.0"}},
		},
	})
	rs := prove(t, m, m)
	v := only(rs, policyproof.MinVersion)
	if len(v) != 2 {
		t.Fatalf("version checks: %+v", v)
	}
	for _, r := range v {
		if r.Lock.String() != "version at least 1.2.0" || r.Outcome != policyproof.Held || !strings.HasPrefix(r.Detail, "sessions refused: ") {
			t.Errorf("version: %+v", r)
		}
	}
	s := only(rs, policyproof.Scope)
	if len(s) != 1 || s[0].Outcome != policyproof.NotApplicable || s[0].Lock.String() != "scope nobody" || !strings.HasPrefix(s[0].Detail, "does not apply (") {
		t.Errorf("scopes: %+v", s)
	}
}

func TestLockString(t *testing.T) {
	for _, c := range []struct {
		lock policyproof.Lock
		want string
	}{
		{policyproof.Lock{Kind: policyproof.Mode, Subject: "bypassPermissions"}, "mode bypassPermissions locked out"},
		{policyproof.Lock{Kind: policyproof.Pin, Subject: "sandbox.mode"}, "pin sandbox.mode"},
		{policyproof.Lock{Kind: policyproof.Deny, Subject: "Bash(curl:*)"}, "deny Bash(curl:*)"},
		{policyproof.Lock{Kind: policyproof.MinSandbox, Subject: "read-only"}, "sandbox at least read-only"},
		{policyproof.Lock{Kind: policyproof.Floor}, "dangerous floor"},
		{policyproof.Lock{Kind: policyproof.AllowedModels}, "allowed models"},
		{policyproof.Lock{Kind: policyproof.AllowedProviders}, "allowed providers"},
		{policyproof.Lock{Kind: policyproof.Instructions}, "organisation instructions"},
		{policyproof.Lock{Kind: policyproof.ShellPosture, Subject: "default-deny"}, "shell posture default-deny"},
	} {
		if got := c.lock.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.lock, got, c.want)
		}
	}
}
