package gitquery_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/internal/gitquery"
	"github.com/oceancode/oceancode/internal/gitquery/gitquerytest"
)

// queries are the read-only questions oceancode asks a repository (the
// redactor's history read, the advisor's ls-tree, the pager's file list)
// and a few more a future caller might.
var queries = [][]string{
	{"log", "-p", "--all", "--no-ext-diff", "--no-textconv", "--no-color", "--format=", "--", ":(glob,icase)**/.env"},
	{"log", "-p", "--format=", "--", ".env"},
	{"log", "--all", "--format=%H %s"},
	{"show", "--no-ext-diff", "--no-textconv", "HEAD"},
	{"ls-tree", "-z", "HEAD", "--", "main.txt"},
	{"ls-files", "-z", "--cached", "--others", "--exclude-standard"},
	{"diff", "--no-ext-diff", "--no-textconv", "HEAD~1", "HEAD"},
}

// TestCommandRunsNothingTheRepositoryNames: every query, in a repository
// whose config names a program for each key git starts one from (and a
// signed commit for log.showSignature to verify), runs none of them. The
// same queries with a plain git do run some: the fixture can fail the test.
func TestCommandRunsNothingTheRepositoryNames(t *testing.T) {
	r := gitquerytest.Hostile(t, "committed-secret-value-1")
	for _, q := range queries {
		cmd := gitquery.Command(context.Background(), r.Dir, q...)
		cmd.Env = append(cmd.Env, "HOME="+r.Dir) // no user config either way
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("git %s: %v\n%s", strings.Join(q, " "), err, out)
		}
		if ran := r.Ran(t); ran != "" {
			t.Fatalf("git %s ran the repository's programs:\n%s", strings.Join(q, " "), ran)
		}
	}
	for _, q := range queries {
		c := exec.Command("git", q...)
		c.Dir, c.Env = r.Dir, r.Env
		_ = c.Run() // the marker fails, and so may git
	}
	ran := r.Ran(t)
	for _, k := range []string{"gpg.openpgp.program", "core.fsmonitor", "filter.evil.process"} {
		if !strings.Contains(ran, k) {
			t.Errorf("plain git did not run %s: the fixture no longer shows the hole (ran: %q)", k, ran)
		}
	}
}

// TestCommandDropsGitEnvironment: GIT_DIR and friends in oceancode's own
// environment do not point a query at another repository.
func TestCommandDropsGitEnvironment(t *testing.T) {
	r := gitquerytest.Hostile(t, "committed-secret-value-1")
	other := gitquerytest.Hostile(t, "other-value-2")
	t.Setenv("GIT_DIR", other.Dir+"/.git")
	out, err := gitquery.Command(context.Background(), r.Dir, "log", "-p", "--format=", "--", ".env").CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(string(out), "committed-secret-value-1") || strings.Contains(string(out), "other-value-2") {
		t.Errorf("the query read the wrong repository:\n%s", out)
	}
}

// TestOverridesReplaceTheCallersConfig: configuration passed in the
// environment (GIT_CONFIG_KEY_n, GIT_CONFIG_COUNT, GIT_EXTERNAL_DIFF) is
// replaced, not added to.
func TestOverridesReplaceTheCallersConfig(t *testing.T) {
	env := gitquery.Overrides([]string{"PATH=/bin", "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.pager",
		"GIT_CONFIG_VALUE_0=evil", "GIT_EXTERNAL_DIFF=evil", "GIT_PAGER=evil"})
	joined := strings.Join(env, "\n")
	for _, bad := range []string{"evil", "GIT_EXTERNAL_DIFF="} {
		if strings.Contains(joined, bad) {
			t.Errorf("Overrides kept %q:\n%s", bad, joined)
		}
	}
	if !strings.Contains(joined, "GIT_CONFIG_KEY_0=core.fsmonitor") || !strings.Contains(joined, "GIT_PAGER=cat") {
		t.Errorf("Overrides did not set its own:\n%s", joined)
	}
}

// TestHasRepository: a repository, a worktree's .git file, and the
// look-alikes that hold no repository (an empty .git directory, none).
func TestHasRepository(t *testing.T) {
	r := gitquerytest.Hostile(t, "committed-secret-value-1")
	empty, link, none := t.TempDir(), t.TempDir(), t.TempDir()
	if err := os.Mkdir(filepath.Join(empty, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(link, ".git"), []byte("gitdir: "+r.Dir+"/.git\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]bool{r.Dir: true, link: true, empty: false, none: false} {
		if got := gitquery.HasRepository(dir); got != want {
			t.Errorf("HasRepository(%s) = %v, want %v", dir, got, want)
		}
	}
}
