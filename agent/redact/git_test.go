package redact

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGitHistory: a value the file no longer holds, but a commit does, is
// redacted (git diff, git log -p and git show print it).
func TestGitHistory(t *testing.T) {
	root := t.TempDir()
	env := append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+root, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x")
	git := func(args ...string) {
		c := exec.Command("git", args...)
		c.Dir, c.Env = root, env
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write(t, filepath.Join(root, ".env"), "API_KEY=old-committed-value-1\n")
	write(t, filepath.Join(root, "deploy", "prod.env"), "GONE=deleted-file-value-2\n")
	git("init", "-q")
	git("add", "-f", ".")
	git("commit", "-qm", "x")
	git("rm", "-q", "deploy/prod.env")
	git("commit", "-qm", "y")
	write(t, filepath.Join(root, ".env"), "API_KEY=new-value-3\n")
	r := New(Config{Root: root, Env: noEnv})
	for in, want := range map[string]string{
		"-API_KEY=old-committed-value-1": "-API_KEY=[redacted: API_KEY from .env]",
		"+GONE=deleted-file-value-2":     "+GONE=[redacted: GONE from deploy/prod.env]",
		"+API_KEY=new-value-3":           "+API_KEY=[redacted: API_KEY from .env]",
	} {
		if got := r.Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}
