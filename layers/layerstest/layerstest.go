// Package layerstest builds throw-away machines for tests of the config
// layers: a project with .git, a user config dir, a managed dir with
// drop-ins, a trust anchor and signed requirements, all under t.TempDir().
package layerstest

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/oceancode/oceancode/internal/hermetictest"
	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/requirements"
	"github.com/oceancode/oceancode/signing"
)

// Now is the fixed clock fixtures use.
var Now = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// Machine is one simulated developer machine.
type Machine struct {
	t          testing.TB
	Root       string // everything lives below
	Project    string // project root (has .git)
	Home       string
	ManagedDir string
	Env        map[string]string
	Key        signing.PrivateKey // the admin key: trusted by Anchor, signs Policy
	// Extra keys also sign Policy and are trusted by Anchor (rotation,
	// thresholds).
	Extra []signing.PrivateKey
}

// New creates an empty machine with a project and an admin key (not yet
// trusted anywhere).
func New(t testing.TB) *Machine {
	t.Helper()
	root := t.TempDir()
	m := &Machine{t: t, Root: root, Project: filepath.Join(root, "project"), Home: filepath.Join(root, "home"),
		ManagedDir: filepath.Join(root, "etc", "oceancode"), Env: map[string]string{}}
	for _, d := range []string{filepath.Join(m.Project, ".git"), filepath.Join(m.Home, ".config", "oceancode"), m.ManagedDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(filepath.Join(root, "etc"), 0o755)
	os.Chmod(m.ManagedDir, 0o755)
	m.Env["HOME"] = m.Home
	m.Env["XDG_CONFIG_HOME"] = filepath.Join(m.Home, ".config")
	m.Env["XDG_STATE_HOME"] = filepath.Join(m.Home, ".local", "state")
	m.Key = FixedKey("layerstest admin")
	return m
}

func (m *Machine) write(path, content string) string {
	m.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		m.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.TrimLeft(content, "\n")), 0o644); err != nil {
		m.t.Fatal(err)
	}
	return path
}

// ProjectConfig writes .oceancode/oceancode.json.
func (m *Machine) ProjectConfig(s string) string {
	return m.write(filepath.Join(m.Project, ".oceancode", "oceancode.json"), s)
}

// ProjectLocal writes .oceancode/oceancode.local.json.
func (m *Machine) ProjectLocal(s string) string {
	return m.write(filepath.Join(m.Project, ".oceancode", "oceancode.local.json"), s)
}

// TrustProject records the project as trusted with its loosening config
// as it is now (as 'oceancode trust' does); write the project's config
// first.
func (m *Machine) TrustProject() {
	m.t.Helper()
	_, digest, err := layers.ProjectLoosening(m.Project)
	if err != nil {
		m.t.Fatal(err)
	}
	state := layers.StateDir(m.Getenv)
	if err := layers.NewTrustStore(state).Trust(layers.CanonicalRoot(m.Project), digest, Now); err != nil {
		m.t.Fatal(err)
	}
}

// UserConfig writes the user's oceancode.json.
func (m *Machine) UserConfig(s string) string {
	return m.write(filepath.Join(m.Home, ".config", "oceancode", "oceancode.json"), s)
}

// Managed writes managed.json in the managed dir.
func (m *Machine) Managed(s string) string {
	return m.write(filepath.Join(m.ManagedDir, "managed.json"), s)
}

// DropIn writes managed.d/NAME.
func (m *Machine) DropIn(name, s string) string {
	return m.write(filepath.Join(m.ManagedDir, "managed.d", name), s)
}

// Anchor writes the admin trust anchor with the machine's key (root-owned,
// 0644): requirements are then enforced.
func (m *Machine) Anchor() string {
	return m.write(filepath.Join(m.ManagedDir, requirements.AnchorFile), m.PublicKeys())
}

// PublicKeys returns the trusted key list (one key per line).
func (m *Machine) PublicKeys() string {
	s := m.Key.Public().String() + "\n"
	for _, k := range m.Extra {
		s += k.Public().String() + "\n"
	}
	return s
}

// Policy returns a signed envelope over the payload fields given, filling in
// schema_version, issued_at and expires_at around Now.
func (m *Machine) Policy(serial int64, fields map[string]any) []byte {
	m.t.Helper()
	p := map[string]any{"schema_version": 1, "serial": serial,
		"issued_at": Now.Add(-24 * time.Hour).Format(time.RFC3339), "expires_at": Now.Add(90 * 24 * time.Hour).Format(time.RFC3339)}
	for k, v := range fields {
		p[k] = v
	}
	body, err := json.Marshal(p)
	if err != nil {
		m.t.Fatal(err)
	}
	env, err := signing.Sign(requirements.PayloadType, body, append([]signing.PrivateKey{m.Key}, m.Extra...)...)
	if err != nil {
		m.t.Fatal(err)
	}
	b, err := env.Marshal()
	if err != nil {
		m.t.Fatal(err)
	}
	return b
}

// Requirements writes a signed requirements.json into the managed dir.
func (m *Machine) Requirements(serial int64, fields map[string]any) string {
	return m.write(filepath.Join(m.ManagedDir, "requirements.json"), string(m.Policy(serial, fields)))
}

// FixedKey derives a deterministic key from a name, so golden files that
// show key IDs and signatures stay stable.
func FixedKey(name string) signing.PrivateKey {
	seed := sha256.Sum256([]byte(name))
	return signing.PrivateKey{Key: ed25519.NewKeyFromSeed(seed[:]), Comment: name}
}

// Getenv reads the machine's environment.
func (m *Machine) Getenv(k string) string { return m.Env[k] }

// Environ is the machine's environment for a process a test starts (a
// test build of a binary: hermetictest.GoBuild): Env, the machine's managed
// dir as hermetictest.EnvManagedDir, then extra. Nothing is inherited from
// the test's own environment.
func (m *Machine) Environ(extra ...string) []string {
	env := make([]string, 0, len(m.Env)+1+len(extra))
	for k, v := range m.Env {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	env = append(env, hermetictest.EnvManagedDir+"="+m.ManagedDir)
	return append(env, extra...)
}

// Options returns loader options for a process started in the project.
func (m *Machine) Options() layers.Options {
	return layers.Options{Dir: m.Project, Getenv: m.Getenv, ManagedDir: m.ManagedDir, Now: Now}
}

// Resolve loads the machine's configuration.
func (m *Machine) Resolve() *layers.Resolved { return layers.Resolve(m.Options()) }

// Full returns a machine with every layer present and disagreeing: project
// (+ local), user, session (env), managed with two drop-ins, an admin anchor
// and signed requirements that pin sandbox.mode and lock out
// bypassPermissions. Tests and golden files share it.
func Full(t testing.TB) *Machine {
	m := New(t)
	m.ProjectConfig(`
{
  "permission_mode": "acceptEdits",
  "sandbox": { "mode": "danger-full-access", "deny": [".git", "secrets"] },
  "permission": { "bash": { "git status": "allow", "npm test": "allow" }, "edit": "ask" },
  "shell": { "allow": ["Bash(make:*)"] }
}`)
	m.ProjectLocal(`{ "model": "local/qwen3-coder" }`)
	m.UserConfig(`
{
  "permission_mode": "bypassPermissions",
  "sandbox": { "mode": "read-only", "deny": ["secrets", ".env"] },
  "permission": { "bash": { "*": "ask", "git status": "deny" } },
  "provider": { "local": { "type": "openai", "base_url": "http://127.0.0.1:8000/v1", "headers": { "Authorization": "Bearer sk-secret" } } }
}`)
	m.Env["OC_SANDBOX_NETWORK"] = "on"
	m.Managed(`
{
  "permission": { "bash": { "rm -rf:*": "deny" } },
  "shell": { "allow": ["Bash(go test:*)"] }
}`)
	m.DropIn("20-team.json", `{ "jev": { "enabled": true } }`)
	m.DropIn("10-base.json", `{ "jev": { "enabled": false, "permissions": "act" } }`)
	m.Anchor()
	m.Requirements(7, map[string]any{
		"org":                        "acme",
		"disable_bypass_permissions": true,
		"pins":                       map[string]any{"sandbox.mode": "workspace-write"},
		"rules":                      map[string]any{"deny": []any{"Bash(curl:*)"}},
	})
	m.TrustProject()
	return m
}
