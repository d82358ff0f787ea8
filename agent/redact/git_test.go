package redact

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/oceancode/oceancode/internal/gitquery/gitquerytest"
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

// TestGitHistoryRunsNothingTheRepositoryNames: reading the history of a
// hostile repository (its config names a program for every key git starts
// one from, log.showSignature is on over a signed commit, a filter process
// is set for every file) runs none of them, and still finds the value.
func TestGitHistoryRunsNothingTheRepositoryNames(t *testing.T) {
	r := gitquerytest.Hostile(t, "committed-then-changed-1")
	write(t, filepath.Join(r.Dir, ".env"), "API_KEY=the-value-now-2\n")
	red := New(Config{Root: r.Dir, Env: noEnv})
	if got, want := red.Redact("-API_KEY=committed-then-changed-1"), "-API_KEY=[redacted: API_KEY from .env]"; got != want {
		t.Errorf("Redact = %q, want %q", got, want)
	}
	if ran := r.Ran(t); ran != "" {
		t.Errorf("reading the history ran the repository's programs:\n%s", ran)
	}
}
