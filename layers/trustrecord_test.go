package layers_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/layers/layerstest"
)

// TestWorkspaceTrustRecord: untrusted by default with every loosening key
// ignored and named; a record (0600, in the state dir, keyed by the
// symlink-resolved root) trusts it; a change to the loosening config — not
// to a tightening key — untrusts it; revoke drops it; a broken record file
// trusts nothing.
func TestWorkspaceTrustRecord(t *testing.T) {
	t.Parallel()
	m := layerstest.New(t)
	m.ProjectConfig(`{"permission": {"bash": {"*": "allow", "rm:*": "deny"}}, "model": "x/y"}`)
	r := m.Resolve()
	if r.Workspace.Trusted() || len(r.Workspace.Ignored) != 2 {
		t.Fatalf("fresh workspace: %+v", r.Workspace)
	}
	if e := r.Entries[`permission.bash["rm:*"]`]; e == nil {
		t.Fatal("the deny rule (tightens) was not applied")
	}
	if e := r.Entries[`permission.bash["*"]`]; e != nil {
		t.Fatal("the allow rule (loosens) was applied in an untrusted workspace")
	}
	// Through a symlink: the same workspace.
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(m.Project, link); err != nil {
		t.Fatal(err)
	}
	m.TrustProject()
	o := m.Options()
	o.Dir = link
	if r := layers.Resolve(o); !r.Workspace.Trusted() || r.Entries[`permission.bash["*"]`] == nil {
		t.Fatalf("trusted through a symlink: %+v", r.Workspace)
	}
	rec := filepath.Join(layers.StateDir(m.Getenv), layers.TrustFile)
	if fi, err := os.Stat(rec); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("trust record %s: %v, mode %v", rec, err, fi.Mode())
	}
	// A tightening change keeps the trust; a loosening one drops it.
	m.ProjectConfig(`{"permission": {"bash": {"*": "allow", "rm:*": "deny"}, "edit": {"*.lock": "ask"}}, "model": "x/y"}`)
	if r := m.Resolve(); !r.Workspace.Trusted() {
		t.Fatalf("a new ask rule untrusted the workspace: %s", r.Workspace.Reason)
	}
	m.ProjectConfig(`{"permission": {"bash": {"*": "allow", "rm:*": "deny"}}, "model": "x/z"}`)
	if r := m.Resolve(); r.Workspace.Trusted() || !strings.Contains(r.Workspace.Reason, "changed since it was trusted") {
		t.Fatalf("a changed model kept the trust: %+v", r.Workspace)
	}
	// A broken record file trusts nothing.
	m.TrustProject()
	os.WriteFile(rec, []byte("{"), 0o600)
	if r := m.Resolve(); r.Workspace.Trusted() {
		t.Fatal("a broken trust record file trusted the workspace")
	}
	os.Remove(rec)
	m.TrustProject()
	if ok, err := layers.NewTrustStore(layers.StateDir(m.Getenv)).Revoke(layers.CanonicalRoot(m.Project)); !ok || err != nil {
		t.Fatalf("revoke: %v %v", ok, err)
	}
	if r := m.Resolve(); r.Workspace.Trusted() {
		t.Fatal("revoked, still trusted")
	}
}

// TestTrustFlagRefused: --trust-project under tighten-only is refused (and
// said), and the project's loosening keys stay ignored.
func TestTrustFlagRefused(t *testing.T) {
	t.Parallel()
	m := layerstest.New(t)
	m.ProjectConfig(`{"permission_mode": "bypassPermissions"}`)
	m.Anchor()
	m.Requirements(1, map[string]any{"project_config": "tighten-only"})
	o := m.Options()
	o.Trust.Project = true
	r := layers.Resolve(o)
	if r.Workspace.Trusted() || !strings.Contains(r.Workspace.FlagRefused, "tighten-only") {
		t.Fatalf("tighten-only with --trust-project: %+v", r.Workspace)
	}
	if e := r.Entries["permission_mode"]; e.Value != "default" {
		t.Fatalf("permission_mode = %v", e.Value)
	}
}
