package clitest

import (
	"path/filepath"
	"strings"
	"testing"
)

// oceanadmin simulate describes the simulated machine with --hostname,
// --group and --agent-version, and reads nothing of the machine it runs on.
func TestSimulateScopesAndVersion(t *testing.T) {
	t.Parallel()
	key := fixedKey("simulate admin")
	root := t.TempDir()
	pub := filepath.Join(root, "admin.pub")
	mustWrite(t, pub, key.Public().String()+"\n")
	env := filepath.Join(root, "requirements.json")
	mustWrite(t, env, string(signUnchecked(t, key, `{"schema_version":1,"min_version":"1.2.0","scopes":[
		{"name":"ci","match":{"hosts":["ci-*.acme.example"]},"require":{"shell_posture":"default-deny"}},
		{"name":"contractors","match":{"groups":["contractors"]},"require":{"min_version":"2.0.0"}}]}`)))
	base := []string{"simulate", "--requirements", env, "--pubkey", pub}
	for _, c := range []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"no scope applies", []string{"--agent-version", "1.5.0"}, 0, []string{"scope ci: does not apply (hostname \"\" matches none", "scope contractors: does not apply"}},
		{"the ci host", []string{"--agent-version", "1.5.0", "--hostname", "CI-4.acme.example"}, 0, []string{"scope ci: applies (hostname \"ci-4.acme.example\" matches \"ci-*.acme.example\")", "shell posture default-deny"}},
		{"a contractor's floor", []string{"--agent-version", "1.5.0", "--group", "staff", "--group", "contractors"}, 4, []string{"scope contractors: applies (the user is in group contractors)", "older than the requirements' min_version 2.0.0"}},
		{"an old agent", []string{"--agent-version", "1.1.0"}, 4, []string{"this oceancode is version 1.1.0, older than the requirements' min_version 1.2.0"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out := runAdmin(t, map[string]string{}, root, append(base, c.args...)...)
			if code != c.code {
				t.Errorf("exit %d, want %d:\n%s", code, c.code, out)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}
