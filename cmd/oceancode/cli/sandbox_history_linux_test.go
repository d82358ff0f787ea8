package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/agent/sandbox"
	"github.com/oceancode/oceancode/internal/exechelper"
	"github.com/oceancode/oceancode/internal/hermetictest"
)

// TestSandboxKeepsGitHistory runs the real oceancode sandbox (with its
// exec helper beside it) in a repository whose last commits are loose, as
// work since a clone is: a commit inside works, and rm -rf .git inside
// leaves every branch's log on the host.
func TestSandboxKeepsGitHistory(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Fatal("bubblewrap is missing: run scripts/install-bwrap.sh")
	}
	dir := t.TempDir()
	for pkg, name := range map[string]string{"./../../oceancode": "oceancode", "./../../oceancode-sandbox": sandbox.HelperBinary} {
		hermetictest.GoBuild(t, filepath.Join(dir, name), pkg)
	}
	built, err := exechelper.Build()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(built)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, sandbox.ExecHelperBinary), data, 0o755); err != nil {
		t.Fatal(err)
	}
	user := hermetictest.New(t)
	ws := filepath.Join(hermetictest.Scratch(t), "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	env := append(user.Env(os.Environ()), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t", "GIT_CONFIG_NOSYSTEM=1")
	sh := func(wantOK bool, name string, args ...string) string {
		t.Helper()
		c := exec.Command(name, args...)
		c.Dir, c.Env = ws, env
		out, err := c.CombinedOutput()
		if wantOK && err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
		return string(out)
	}
	sh(true, "git", "init", "-q", "-b", "main")
	sh(true, "sh", "-c", "echo one > a && git add a && git commit -qm first && git branch feature && git tag v1")
	oc := filepath.Join(dir, "oceancode")
	sh(true, oc, "sandbox", "--", "sh", "-c", "echo two >> a && git commit -qam second-inside")
	sh(false, oc, "sandbox", "--", "rm", "-rf", ".git")
	for _, ref := range []string{"main", "feature", "v1"} {
		if out := sh(false, "git", "log", "--oneline", ref); !strings.Contains(out, "first") {
			t.Errorf("git log %s after oceancode sandbox -- rm -rf .git: %q", ref, out)
		}
	}
	if out := sh(false, "git", "log", "--oneline", "main"); !strings.Contains(out, "second-inside") {
		t.Errorf("the commit made inside is gone after rm -rf .git: %q", out)
	}
	if out := sh(false, "git", "fsck", "--no-dangling", "--no-progress"); strings.Contains(out, "missing") || strings.Contains(out, "error") {
		t.Errorf("git fsck after rm -rf .git: %s", out)
	}
}
