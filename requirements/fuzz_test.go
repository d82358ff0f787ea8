package requirements

import (
	"testing"
)

// FuzzParse: no input makes the strict parser panic, and whatever it accepts
// is a valid policy the schema also accepts.
func FuzzParse(f *testing.F) {
	f.Add(payload(1, nil))
	f.Add([]byte(`{"schema_version":1}`))
	f.Add([]byte(`{"schema_version":1,"pins":{"sandbox.mode":"read-only"},"rules":{"deny":["Bash(rm:*)"]}}`))
	f.Add([]byte(`{"schema_version":1,"serial":1.5}`))
	f.Add([]byte(`{"schema_version":1,"org":"a","org":"b"}`))
	f.Add([]byte(`[`))
	f.Add(payload(2, map[string]any{"min_version": "1.4.0", "allowed_models": []any{"anthropic/claude-*"},
		"allowed_providers": []any{map[string]any{"type": "openai", "hosts": []any{"*.corp.example"}}}, "instructions": "x", "shell_posture": "default-deny",
		"scopes": []any{map[string]any{"name": "ci", "match": map[string]any{"hosts": []any{"ci-*"}, "groups": []any{"dev"}},
			"require": map[string]any{"allowed_models": []any{"anthropic/claude-haiku-*"}, "min_version": "2.0.0", "allowed_permission_modes": []any{"plan"}}}}}))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse(data, ParseOptions{Signed: true})
		if err != nil {
			return
		}
		if p.SchemaVersion != 1 || p.Serial < 1 || p.ExpiresAt == "" {
			t.Fatalf("accepted an incomplete policy: %+v", p)
		}
		// Scopes only narrow: whatever the policy refuses, the policy on
		// any machine refuses too.
		for _, m := range []Machine{{}, {Hostname: "ci-1", Groups: []string{"dev"}}, {HostnameUnknown: true, GroupsUnknown: true}} {
			e, _ := p.ForMachine(m)
			for _, model := range []string{"anthropic/claude-haiku-4", "anthropic/claude-opus-4", "openai/gpt-5"} {
				if ok, _ := p.ModelAllowed(model); !ok {
					if ok, _ := e.ModelAllowed(model); ok {
						t.Fatalf("a scope allows model %s the policy refuses", model)
					}
				}
			}
			for _, v := range []string{"dev", "0.1.0", "1.4.0", "3.0.0"} {
				if ok, _ := p.VersionAllowed(v); !ok {
					if ok, _ := e.VersionAllowed(v); ok {
						t.Fatalf("a scope allows version %s the policy refuses", v)
					}
				}
			}
			if p.ShellPosture != "" && e.ShellPosture == "" || p.DisableBypassPermissions && !e.DisableBypassPermissions {
				t.Fatal("a scope removed a lock")
			}
			for _, mode := range []string{"default", "plan", "bypassPermissions"} {
				if ok, _ := p.ModeAllowed(mode); !ok {
					if ok, _ := e.ModeAllowed(mode); ok {
						t.Fatalf("a scope allows mode %s the policy locks out", mode)
					}
				}
			}
		}
	})
}

// FuzzVerify: a mutated envelope never verifies unless its payload is the
// one that was signed.
func FuzzVerify(f *testing.F) {
	admin := testKey(f)
	a := anchorsOf(admin)
	good := envelope(f, PayloadType, payload(3, nil), admin)
	_, _, wantSum, err := Verify(good, "seed", a, testNow)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add([]byte(`{"payloadType":"x","payload":"","signatures":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _, sum, err := Verify(data, "fuzz", a, testNow)
		if err == nil && sum != wantSum {
			t.Fatalf("a mutated envelope verified with payload sha256 %s", sum)
		}
	})
}
