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
	repo := gitquerytest.Plain(root)
	git := func(args ...string) { repo.Git(t, args...) }
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

// TestHistoryNoteSavesGitAndFollowsTheRefs: a workspace whose secrets
// files' history held no value is noted in HistoryCache; the next session
// over the same refs does not run git, and one after a commit that puts a
// value in the history reads it again and redacts the value. A history
// that held a value is never noted.
func TestHistoryNoteSavesGitAndFollowsTheRefs(t *testing.T) {
	root, cache := t.TempDir(), t.TempDir()
	repo := gitquerytest.Plain(root)
	git := func(args ...string) { repo.Git(t, args...) }
	write(t, filepath.Join(root, "main.go"), "package main\n")
	git("init", "-q")
	git("add", ".")
	git("commit", "-qm", "x")
	runs := countGit(t)
	session := func() *Redactor {
		r := New(Config{Root: root, Env: noEnv, HistoryCache: cache})
		r.Redact("a text long enough to wait for the load")
		return r
	}
	session()
	if n := runs(); n != 1 {
		t.Fatalf("first session ran git %d times, want 1", n)
	}
	if notes, _ := os.ReadDir(cache); len(notes) != 1 {
		t.Fatalf("a clean history left %d notes, want 1", len(notes))
	}
	session()
	if n := runs(); n != 1 {
		t.Errorf("a session over the same refs ran git again (%d runs)", n)
	}
	write(t, filepath.Join(root, ".env"), "API_KEY=committed-later-value-7\n")
	git("add", "-f", ".env")
	git("commit", "-qm", "oops")
	write(t, filepath.Join(root, ".env"), "API_KEY=rotated-value-8\n")
	r := session()
	if n := runs(); n != 2 {
		t.Errorf("after a commit: %d git runs, want 2", n)
	}
	if got, want := r.Redact("-API_KEY=committed-later-value-7"), "-API_KEY=[redacted: API_KEY from .env]"; got != want {
		t.Errorf("after a commit: Redact = %q, want %q", got, want)
	}
	session()
	if n := runs(); n != 3 {
		t.Errorf("a history holding a value was noted as clean: %d git runs, want 3", n)
	}
}

// countGit puts a git on PATH that counts its runs of log and runs the
// real git; it returns the count so far.
func countGit(t *testing.T) func() int {
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "runs")
	write(t, filepath.Join(dir, "git"), "#!/bin/sh\nfor a; do [ \"$a\" = log ] && echo >> "+log+"; done\nexec "+real+" \"$@\"\n")
	if err := os.Chmod(filepath.Join(dir, "git"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return func() int {
		b, _ := os.ReadFile(log)
		return len(b)
	}
}
