package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// mkTree makes the directories (names ending in "/") and empty files
// under root.
func mkTree(t *testing.T, root string, paths ...string) {
	t.Helper()
	for _, p := range paths {
		full := filepath.Join(root, p)
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// gitDirsOf summarises nestedGitPaths' result: each git dir (named by its
// packed-refs entry, which every protected git dir has) and each .git file,
// in the order they come.
func gitDirsOf(t *testing.T, pps []protectedPath) []string {
	t.Helper()
	var out []string
	for _, pp := range pps {
		if !pp.optional {
			t.Errorf("%s: not optional", pp.rel)
		}
		if g, ok := strings.CutSuffix(pp.rel, "/packed-refs"); ok {
			out = append(out, g)
		} else if strings.HasSuffix(pp.rel, "/.git") || pp.rel == ".git" {
			out = append(out, pp.rel+" (file)")
		}
	}
	return out
}

func TestNestedGitPaths(t *testing.T) {
	ws := t.TempDir()
	mkTree(t, ws,
		".git/HEAD", ".git/modules/a/b/HEAD", ".git/modules/a/b/modules/c/HEAD", ".git/worktrees/w/HEAD",
		".git/modules/notarepo/",
		"x/.git/HEAD", "x/y/z/.git/HEAD", "x/y/z/.git/modules/m/HEAD",
		"node_modules/q/.git/HEAD", // not searched
		"a/b/c/d/e/.git/HEAD",      // depth 5: found
		"a/b/c/d/e/f/.git/HEAD",    // depth 6: beyond the bound
		"sub/.git",                 // a .git file (submodule or linked worktree)
		"Z/.git/HEAD",              // upper case sorts before lower case
	)
	if err := os.Symlink(filepath.Join(ws, "x"), filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	got := gitDirsOf(t, nestedGitPaths(ws))
	want := []string{
		".git", ".git/worktrees/w", ".git/modules/a/b", ".git/modules/a/b/modules/c",
		"Z/.git", "sub/.git (file)", "x/.git", "x/y/z/.git", "x/y/z/.git/modules/m", "a/b/c/d/e/.git",
	}
	if !slices.Equal(got, want) {
		t.Errorf("nestedGitPaths:\n got %q\nwant %q", got, want)
	}
	// The workspace's own .git: what protectedPaths does not already hold.
	top := nestedGitPaths(ws)[:len(gitDirProtected)-3]
	for _, pp := range top {
		if e := strings.TrimPrefix(pp.rel, ".git/"); e == "hooks" || e == "config" || e == "info" {
			t.Errorf("%s listed twice", pp.rel)
		}
	}
}

func TestNestedGitPathsBound(t *testing.T) {
	if testing.Short() {
		t.Skip("makes gitSearchDirs directories")
	}
	// More directories than the search reads: the ones beyond are not
	// searched, breadth first, in name order.
	ws := t.TempDir()
	var paths []string
	for i := 0; i < gitSearchDirs+10; i++ {
		paths = append(paths, fmt.Sprintf("d/%05d/", i))
	}
	paths = append(paths, "d/00001/.git/HEAD", "d/99999/.git/HEAD")
	mkTree(t, ws, paths...)
	got := gitDirsOf(t, nestedGitPaths(ws))
	if want := []string{"d/00001/.git"}; !slices.Equal(got, want) {
		t.Errorf("nestedGitPaths = %q, want %q", got, want)
	}
}

func TestPrewarmWorkspace(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no sandbox on Windows")
	}
	ws := t.TempDir()
	mkTree(t, ws, ".git/HEAD", "old/.git/HEAD")
	PrewarmWorkspace(ws)
	prewarmMu.Lock()
	w := prewarmed
	prewarmMu.Unlock()
	if w == nil {
		t.Fatal("PrewarmWorkspace started no search")
	}
	<-w.done
	// A repository made after the prewarmed search is missing from the one
	// plan that takes it, and found by every later one.
	mkTree(t, ws, "new/.git/HEAD")
	first := gitDirsOf(t, workspaceGitPaths(realPath(ws)))
	second := gitDirsOf(t, workspaceGitPaths(realPath(ws)))
	if want := []string{".git", "old/.git"}; !slices.Equal(first, want) {
		t.Errorf("first plan = %q, want the prewarmed %q", first, want)
	}
	if want := []string{".git", "new/.git", "old/.git"}; !slices.Equal(second, want) {
		t.Errorf("second plan = %q, want a new search %q", second, want)
	}

	// Another workspace, or a search too old, is not used (and is dropped).
	other := t.TempDir()
	for _, tc := range []struct {
		name string
		ws   string
		age  time.Duration
	}{{"other workspace", other, 0}, {"too old", ws, 2 * prewarmMaxAge}} {
		PrewarmWorkspace(tc.ws)
		prewarmMu.Lock()
		w := prewarmed
		w.at = w.at.Add(-tc.age)
		prewarmMu.Unlock()
		<-w.done
		mkTree(t, ws, tc.name+"/.git/HEAD")
		got := gitDirsOf(t, workspaceGitPaths(realPath(ws)))
		if !slices.Contains(got, tc.name+"/.git") {
			t.Errorf("%s: plan = %q, want a new search", tc.name, got)
		}
		prewarmMu.Lock()
		left := prewarmed
		prewarmMu.Unlock()
		if left != nil {
			t.Errorf("%s: the unused search was kept", tc.name)
		}
	}
	if PrewarmWorkspace("relative/path"); prewarmed != nil {
		t.Error("PrewarmWorkspace searched a relative path")
	}
}
