package layers_test

import (
	"testing"

	"github.com/oceancode/oceancode/layers/layerstest"
)

// TestTrustCoversWhatQualifiesALooseningKey: a trusted workspace stays
// trusted only while its loosening keys mean what was reviewed. Reordering
// a rule map (last match wins), or dropping or moving the deny rule, strip
// entry or sandbox deny that qualified a trusted loosening key, untrusts
// it; formatting, and tightening keys in units with no loosening key, do
// not.
func TestTrustCoversWhatQualifiesALooseningKey(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, trusted, local, now, nowLocal string
		stays                               bool
	}{
		{name: "rule order", trusted: `{"permission": {"bash": {"*": "allow", "rm:*": "deny"}}}`,
			now: `{"permission": {"bash": {"rm:*": "deny", "*": "allow"}}}`},
		{name: "deny dropped", trusted: `{"permission": {"bash": {"*": "allow", "rm:*": "deny"}}}`,
			now: `{"permission": {"bash": {"*": "allow"}}}`},
		{name: "deny dropped from the local file", trusted: `{"permission": {"bash": {"*": "allow"}}}`, local: `{"permission": {"bash": {"rm:*": "deny"}}}`,
			now: `{"permission": {"bash": {"*": "allow"}}}`, nowLocal: `{}`},
		{name: "agent rule order", trusted: `{"agents": {"a": {"permission": {"bash": {"*": "allow", "rm:*": "deny"}}}}}`,
			now: `{"agents": {"a": {"permission": {"bash": {"rm:*": "deny", "*": "allow"}}}}}`},
		{name: "strip dropped", trusted: `{"child_env": {"keep": ["AWS_*"], "strip": ["AWS_SECRET*"]}}`,
			now: `{"child_env": {"keep": ["AWS_*"]}}`},
		{name: "sandbox deny dropped", trusted: `{"sandbox": {"writable": ["/srv"], "deny": ["/srv/keys"]}}`,
			now: `{"sandbox": {"writable": ["/srv"]}}`},
		{name: "shell deny dropped", trusted: `{"shell": {"allow": ["Bash(git:*)"], "deny": ["Bash(git push:*)"]}}`,
			now: `{"shell": {"allow": ["Bash(git:*)"]}}`},
		{name: "reformatted", trusted: `{"permission": {"bash": {"*": "allow", "rm:*": "deny"}}, "model": "x/y"}`,
			now: "{\n  \"model\": \"x/y\",\n  \"permission\": {\n    \"bash\": {\"*\": \"allow\",\n \"rm:*\": \"deny\"}\n  }\n}", stays: true},
		{name: "deny for another tool", trusted: `{"permission": {"bash": {"*": "allow"}}}`,
			now: `{"permission": {"bash": {"*": "allow"}, "edit": {"*.lock": "deny"}}, "sandbox": {"deny": [".git"]}}`, stays: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := layerstest.New(t)
			m.ProjectConfig(c.trusted)
			if c.local != "" {
				m.ProjectLocal(c.local)
			}
			m.TrustProject()
			if r := m.Resolve(); !r.Workspace.Trusted() {
				t.Fatalf("just trusted: %+v", r.Workspace)
			}
			m.ProjectConfig(c.now)
			if c.nowLocal != "" {
				m.ProjectLocal(c.nowLocal)
			}
			r := m.Resolve()
			if err := r.Err(); err != nil {
				t.Fatal(err)
			}
			if r.Workspace.Trusted() != c.stays {
				t.Fatalf("trusted = %v, want %v: %s", r.Workspace.Trusted(), c.stays, r.Workspace.Reason)
			}
		})
	}
}
