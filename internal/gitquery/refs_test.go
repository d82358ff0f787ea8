package gitquery

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/oceancode/oceancode/internal/gitquery/gitquerytest"
)

// TestRefsStampMoves: the stamp holds while nothing git log --all walks
// from changes (a work-tree edit included) and moves with every kind of
// ref change: a commit, a branch, a tag, packing the refs, a stash and a
// commit in a linked worktree.
func TestRefsStampMoves(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	repo := gitquerytest.Plain(root)
	git := func(args ...string) { repo.Git(t, args...) }
	git("init", "-q")
	if _, ok := RefsStamp(root); !ok {
		t.Fatal("RefsStamp of a repository without commits: not ok")
	}
	if err := os.WriteFile(filepath.Join(root, "a"), []byte("1"), 0o600); err != nil {
		t.Fatal(err)
	}
	git("add", "a")
	git("commit", "-qm", "one")
	last := stampOf(t, root)
	if err := os.WriteFile(filepath.Join(root, "a"), []byte("2"), 0o600); err != nil {
		t.Fatal(err)
	}
	if s := stampOf(t, root); s != last {
		t.Error("a work-tree edit moved the stamp")
	}
	wt := filepath.Join(t.TempDir(), "wt")
	for _, step := range [][]string{
		{"commit", "-qam", "two"},
		{"branch", "topic"},
		{"tag", "v1"},
		{"pack-refs", "--all"},
		{"stash", "--include-untracked"},
		{"worktree", "add", "-q", wt},
		{"-C", wt, "commit", "-q", "--allow-empty", "-m", "in the worktree"},
	} {
		if step[0] == "stash" {
			os.WriteFile(filepath.Join(root, "b"), []byte("x"), 0o600)
		}
		git(step...)
		s := stampOf(t, root)
		if s == last {
			t.Errorf("git %v did not move the stamp", step)
		}
		last = s
	}
	if s, ok := RefsStamp(wt); !ok || s == "" {
		t.Errorf("RefsStamp of a linked worktree = %q, %v", s, ok)
	}
	if _, ok := RefsStamp(t.TempDir()); ok {
		t.Error("RefsStamp of a directory without .git: ok")
	}
}

func stampOf(t *testing.T, root string) string {
	t.Helper()
	s, ok := RefsStamp(root)
	if !ok {
		t.Fatalf("RefsStamp(%s): not ok", root)
	}
	return s
}
