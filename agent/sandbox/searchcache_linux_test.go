//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// searchWith runs a search with prev and reports its git dirs and how
// many directories it read.
func searchWith(t *testing.T, ws string, prev *searchCache) ([]string, int64, *searchCache) {
	t.Helper()
	before := dirsRead.Load()
	out, next := searchGitDirs(ws, prev)
	return gitDirsOf(t, out), dirsRead.Load() - before, next
}

func TestSearchCache(t *testing.T) {
	old := stampRacy
	stampRacy = 0 // trust a stamp at once; the test waits out the clock's tick instead
	t.Cleanup(func() { stampRacy = old })
	tick := func() { time.Sleep(30 * time.Millisecond) }

	ws := t.TempDir()
	mkTree(t, ws, ".git/HEAD", "a/b/c/", "a/d/", "x/.git/HEAD", "y/z/")
	tick()
	first, read, c := searchWith(t, ws, nil)
	if want := []string{".git", "x/.git"}; !slices.Equal(first, want) {
		t.Fatalf("first search = %q, want %q", first, want)
	}
	// ws, a, x, y, a/b; not x/.git (never searched), nor the leaves a/d,
	// y/z and a/b/c (no subdirectory: an lstat of their .git instead).
	if read != 5 {
		t.Errorf("first search read %d directories, want 5", read)
	}
	got, read, c := searchWith(t, ws, c)
	if !slices.Equal(got, first) || read != 0 {
		t.Errorf("unchanged tree: %q after reading %d directories, want %q from the cache alone", got, read, first)
	}

	// Each change shows in the stamp of the directory it is made in.
	steps := []struct {
		name   string
		change func()
		want   []string
		read   int64
	}{
		{"new nested repository", func() { mkTree(t, ws, "a/b/c/.git/HEAD") }, []string{".git", "x/.git", "a/b/c/.git"}, 1},
		// y/z stays a leaf: its new .git file is found by lstat alone.
		{"a .git file", func() { mkTree(t, ws, "y/z/.git") }, []string{".git", "x/.git", "y/z/.git (file)", "a/b/c/.git"}, 0},
		{"renamed into the tree", func() {
			out := t.TempDir()
			mkTree(t, out, "r/.git/HEAD")
			if err := os.Rename(filepath.Join(out, "r"), filepath.Join(ws, "a/d/r")); err != nil {
				t.Fatal(err)
			}
		}, []string{".git", "x/.git", "y/z/.git (file)", "a/b/c/.git", "a/d/r/.git"}, 2},
		{"directory swapped for a symlink", func() {
			if err := os.Rename(filepath.Join(ws, "x"), filepath.Join(ws, "x2")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("x2", filepath.Join(ws, "x")); err != nil {
				t.Fatal(err)
			}
		}, []string{".git", "x2/.git", "y/z/.git (file)", "a/b/c/.git", "a/d/r/.git"}, 2},
		// a/b/c is a leaf again.
		{"repository removed", func() {
			if err := os.RemoveAll(filepath.Join(ws, "a/b/c/.git")); err != nil {
				t.Fatal(err)
			}
		}, []string{".git", "x2/.git", "y/z/.git (file)", "a/d/r/.git"}, 0},
	}
	for _, s := range steps {
		tick()
		s.change()
		got, read, c = searchWith(t, ws, c)
		if !slices.Equal(got, s.want) {
			t.Errorf("%s: search = %q, want %q", s.name, got, s.want)
		}
		if read != s.read {
			t.Errorf("%s: read %d directories, want %d", s.name, read, s.read)
		}
		if fresh := gitDirsOf(t, nestedGitPaths(ws)); !slices.Equal(got, fresh) {
			t.Errorf("%s: cached search %q, a fresh one %q", s.name, got, fresh)
		}
	}

	// A clock gone back trusts no stamp.
	c.at = time.Now().Add(time.Hour)
	if _, read, _ := searchWith(t, ws, c); read == 0 {
		t.Error("a search after the clock went back read nothing")
	}
}

func TestSearchCacheRacy(t *testing.T) {
	// With the real bound, a directory changed within stampRacy is read
	// again by every search.
	ws := t.TempDir()
	mkTree(t, ws, "a/.git/HEAD")
	_, _, c := searchWith(t, ws, nil)
	if _, read, _ := searchWith(t, ws, c); read == 0 {
		t.Error("directories changed just now came from the cache")
	}
	// A file system whose ctimes the kernel does not keep vouches for
	// nothing: procfs here.
	if _, ok, _ := newStamper(time.Now().Add(time.Hour)).stamp("/proc/self"); ok {
		t.Error("a procfs directory's stamp vouched for its listing")
	}
	if _, ok, _ := newStamper(time.Now().Add(time.Hour)).stamp(ws); !ok {
		t.Skip("the test's temporary directory is not on a file system of stampFS")
	}
}

func TestCachedGitPaths(t *testing.T) {
	// The process-wide cache: the plan of a command made after another
	// sees what the first command created.
	ws := realPath(t.TempDir())
	mkTree(t, ws, "a/.git/HEAD")
	if got := gitDirsOf(t, cachedGitPaths(ws)); !slices.Equal(got, []string{"a/.git"}) {
		t.Fatalf("cachedGitPaths = %q", got)
	}
	mkTree(t, ws, "a/b/.git/HEAD")
	if got := gitDirsOf(t, cachedGitPaths(ws)); !slices.Equal(got, []string{"a/.git", "a/b/.git"}) {
		t.Errorf("cachedGitPaths after a change = %q", got)
	}
	for i := 0; i < maxCachedSearches+2; i++ {
		cachedGitPaths(t.TempDir())
	}
	searches.Lock()
	n := len(searches.m)
	searches.Unlock()
	if n > maxCachedSearches {
		t.Errorf("%d workspaces cached, at most %d", n, maxCachedSearches)
	}
}

func TestSearchLeaves(t *testing.T) {
	// A directory without subdirectories is not read: one lstat of its
	// .git replaces it. What the search finds is what reading every
	// directory finds.
	ws := t.TempDir()
	if _, _, leaf := newStamper(time.Now()).stamp(filepath.Join(ws)); !leaf {
		t.Skip("the test's temporary directory is not on a file system of leafFS")
	}
	mkTree(t, ws,
		"files/a.txt", "files/b.txt", // a leaf with files only
		"wt/.git",        // a linked worktree's or a submodule's .git file in a leaf
		"sub/mod/.git",   // the same one level down
		"repo/.git/HEAD", // a .git directory: not a leaf, read
		"deep/er/est/",   // a chain ending in an empty leaf
		"linked/",        // a leaf whose .git is a symlink: not followed, as a read does not
	)
	if err := os.Symlink(filepath.Join(ws, "repo/.git"), filepath.Join(ws, "linked/.git")); err != nil {
		t.Fatal(err)
	}
	want := []string{"repo/.git", "wt/.git (file)", "sub/mod/.git (file)"}
	got, read, _ := searchWith(t, ws, nil)
	if !slices.Equal(got, want) {
		t.Errorf("search = %q, want %q", got, want)
	}
	// ws, sub, repo, deep, deep/er: the five with a subdirectory.
	if read != 5 {
		t.Errorf("read %d directories, want 5 (the leaves files, wt, sub/mod, linked, deep/er/est are not read)", read)
	}
	old := leafFS
	leafFS = map[int64]bool{}
	t.Cleanup(func() { leafFS = old })
	full, readAll, _ := searchWith(t, ws, nil)
	if !slices.Equal(full, got) {
		t.Errorf("reading every directory finds %q, the search with leaves %q", full, got)
	}
	if readAll != 10 {
		t.Errorf("without leafFS the search read %d directories, want all 10", readAll)
	}
}
