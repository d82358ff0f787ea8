//go:build linux && (amd64 || arm64)

package sandbox

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/internal/hermetictest"
)

// historyRepos is gitRepos with history that is not packed yet in each
// repository (as after work since the last clone or gc): on the host, a
// loose commit on main, a loose branch "feature" with its own commit, a
// loose annotated tag v1 and a lightweight tag v0, and reflogs.
func historyRepos(t *testing.T) (fixture, []string, func(dir string, args ...string) string) {
	t.Helper()
	f, _, g := gitRepos(t)
	repos := []string{f.ws, f.ws + "/vendor/lib", f.ws + "/sub", f.ws + "/wt2"}
	for i, d := range repos {
		write(t, fmt.Sprintf("%s/loose%d", d, i), "loose\n")
		g(d, "add", ".")
		g(d, "commit", "-q", "-m", "loose-on-main")
		g(d, "branch", fmt.Sprintf("feature%d", i))
		g(d, "checkout", "-q", fmt.Sprintf("feature%d", i))
		write(t, fmt.Sprintf("%s/feat%d", d, i), "feature\n")
		g(d, "add", ".")
		g(d, "commit", "-q", "-m", "feature-commit")
		g(d, "tag", "-a", "-m", "annotated", fmt.Sprintf("v1-%d", i))
		g(d, "tag", fmt.Sprintf("v0-%d", i), "HEAD~1")
		g(d, "checkout", "-q", "-")
	}
	return f, repos, g
}

// copyFixture copies a fixture made by historyRepos to a new scratch
// directory (making one is most of a case's time) and points the linked
// worktree's absolute links at the copy.
func copyFixture(t *testing.T, src fixture) fixture {
	t.Helper()
	base := hermetictest.Scratch(t)
	if out, err := exec.Command("cp", "-a", src.base+"/.", base).CombinedOutput(); err != nil {
		t.Fatalf("copy the fixture: %v\n%s", err, out)
	}
	f := fixture{base: base, ws: base + "/ws", out: base + "/out", home: base + "/home", attack: src.attack}
	for _, p := range []string{f.ws + "/wt2/.git", f.ws + "/.git/worktrees/wt2/gitdir"} {
		write(t, p, strings.ReplaceAll(read(p), src.base, base))
	}
	t.Setenv("HOME", f.home)
	return f
}

// history is what a repository's history is on the host: every ref with
// its value, and every object reachable from them.
type history struct {
	refs    map[string]string
	objects []string
}

func gitOut(dir string, args ...string) (string, error) {
	c := exec.Command("git", append([]string{"-C", dir}, args...)...)
	c.Env = append(os.Environ(), gitTestEnv...)
	out, err := c.CombinedOutput()
	return string(out), err
}

func recordHistory(t *testing.T, dir string) history {
	t.Helper()
	h := history{refs: map[string]string{}}
	out, err := gitOut(dir, "for-each-ref", "--format=%(refname) %(objectname)")
	if err != nil {
		t.Fatalf("for-each-ref in %s: %v\n%s", dir, err, out)
	}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		n, v, _ := strings.Cut(l, " ")
		if strings.HasPrefix(n, "refs/heads/") || strings.HasPrefix(n, "refs/tags/") {
			h.refs[n] = v
		}
	}
	out, err = gitOut(dir, "rev-list", "--objects", "--all")
	if err != nil {
		t.Fatalf("rev-list in %s: %v\n%s", dir, err, out)
	}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		h.objects = append(h.objects, strings.Fields(l)[0])
	}
	sort.Strings(h.objects)
	return h
}

// checkHistory fails unless, on the host, every branch and tag of before
// still exists and git log of it works, every object of before is there,
// and git fsck finds nothing missing or corrupt.
func checkHistory(t *testing.T, dir string, before history) {
	t.Helper()
	for ref := range before.refs {
		if out, err := gitOut(dir, "log", "--oneline", ref, "--"); err != nil || out == "" {
			t.Errorf("%s: git log %s after the command: %v\n%s", dir, ref, err, out)
		}
	}
	c := exec.Command("git", "-C", dir, "cat-file", "--batch-check")
	c.Stdin = strings.NewReader(strings.Join(before.objects, "\n") + "\n")
	out, err := c.CombinedOutput()
	if err != nil || strings.Contains(string(out), "missing") {
		t.Errorf("%s: objects lost: %v\n%s", dir, err, out)
	}
	if out, err := gitOut(dir, "fsck", "--no-dangling", "--no-progress"); err != nil {
		t.Errorf("%s: git fsck after the command: %v\n%s", dir, err, out)
	}
}

// historyAttacks destroy history by every route: removing, truncating and
// overwriting objects, packs, refs, packed-refs and reflogs, by hand and
// through git; each runs in every repository of the fixture ($R its work
// tree, $G its git dir, $N its index).
var historyAttacks = map[string]string{
	"rm-rf-git":            `rm -rf "$R/.git"; rm -rf "$G"`,
	"rm-contents":          `rm -rf "$G"/objects/* "$G"/refs "$G"/logs "$G"/packed-refs "$G"/HEAD "$G"/index`,
	"rm-objects":           `find "$G/objects" -type f -delete; find "$G/objects" -depth -type d -exec rmdir {} +`,
	"truncate-objects":     `find "$G/objects" -type f -exec chmod u+w {} + ; find "$G/objects" -type f -exec truncate -s 0 {} +`,
	"overwrite-objects":    `for f in $(find "$G/objects" -type f); do chmod u+w "$f"; echo junk > "$f"; done`,
	"truncate-refs":        `for f in $(find "$G/refs" -type f) "$G/packed-refs" "$G/HEAD"; do : > "$f"; done; : > "$G/refs/heads/main"`,
	"garbage-refs":         `for f in $(find "$G/refs" -type f); do echo 0123456789012345678901234567890123456789 > "$f"; done; echo garbage > "$G/refs/heads/main"`,
	"symlink-refs":         `for f in $(find "$G/refs" -type f); do ln -sf /dev/null "$f"; done`,
	"packed-refs":          `echo '# pack-refs with: peeled' > "$G/packed-refs"; cat /dev/null > "$G/packed-refs"; rm -f "$G/packed-refs"`,
	"reflog-expire-gc":     `cd "$R" && git reflog expire --expire=now --all; git gc -q --prune=now; git prune --expire=now`,
	"delete-refs":          `cd "$R" && for r in $(git for-each-ref --format='%(refname)'); do git update-ref -d "$r"; done; git branch -D $(git branch --format='%(refname:short)'); git tag -d $(git tag)`,
	"orphan-force-move":    `cd "$R" && git checkout -q --orphan wipe && git rm -rfq . && git commit -q --allow-empty -m wipe && for b in $(git branch --format='%(refname:short)'); do git branch -f "$b" wipe; git update-ref "refs/heads/$b" wipe; done; for t in $(git tag); do git tag -f "$t" wipe; done; git reflog expire --expire=now --all; git prune --expire=now`,
	"pack-refs-prune":      `cd "$R" && git pack-refs --all --prune; git repack -adq; git prune-packed`,
	"move-git-dir":         `mv "$G" "$G.moved"; mv "$G/objects" "$G/objects.moved"; mv "$G/refs" "$G/refs.moved"; mkdir -p "$G/refs.new"`,
	"replace-with-symlink": `rm -rf "$G/refs"; ln -s /tmp "$G/refs"; rm -rf "$G/objects/"??; ln -s /tmp "$G/objects/ab"`,
}

// forEachRepo runs script once in each repository of historyRepos.
func forEachRepo(f fixture, script string) string {
	var b strings.Builder
	for _, r := range []string{f.ws, f.ws + "/vendor/lib", f.ws + "/sub", f.ws + "/wt2"} {
		fmt.Fprintf(&b, "(R=%s; G=$(git -C \"$R\" rev-parse --absolute-git-dir); GC=$(git -C \"$R\" rev-parse --path-format=absolute --git-common-dir); %s; G=$GC; %s) 2>&1\n", r, script, script)
	}
	return b.String() + "exit 0"
}

// TestHistorySurvivesDestructiveCommands: whatever a command in
// workspace-write does to a repository's objects, packs, refs, packed refs
// and reflogs, every branch and tag that existed before it still has its
// log on the host afterwards, and every object is still there.
func TestHistorySurvivesDestructiveCommands(t *testing.T) {
	requireSandbox(t)
	names := make([]string, 0, len(historyAttacks))
	for n := range historyAttacks {
		names = append(names, n)
	}
	sort.Strings(names)
	if os.Getenv(envGoHelperOnly) != "" {
		// The Go helper's run (TestGoHelperFallback): there bubblewrap
		// makes the read-only binds; one attack of each kind.
		names = []string{"rm-rf-git", "truncate-objects", "garbage-refs", "delete-refs", "orphan-force-move"}
	}
	template, _, _ := historyRepos(t)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			f := copyFixture(t, template)
			repos := []string{f.ws, f.ws + "/vendor/lib", f.ws + "/sub", f.ws + "/wt2"}
			before := map[string]history{}
			for _, d := range repos {
				before[d] = recordHistory(t, d)
			}
			r := run(t, f.policy(ModeWorkspaceWrite), forEachRepo(f, historyAttacks[name]), append(f.env(), gitTestEnv...)...)
			for _, d := range repos {
				checkHistory(t, d, before[d])
			}
			if t.Failed() {
				t.Logf("output:\n%s%s", r.out, r.errOut)
			}
		})
	}
}

// TestGitHistoryWorkflowInside: what git does in a day's work succeeds
// inside workspace-write (add, commit, branch, checkout -b, stash and pop,
// fetch from a local remote, merge, rebase, branch -D of a branch made in
// the same command), its result is on the host after the command, and a
// later command that removes .git cannot take it.
func TestGitHistoryWorkflowInside(t *testing.T) {
	requireSandbox(t)
	f, repos, g := historyRepos(t)
	upstream := f.base + "/upstream"
	write(t, upstream+"/UP", "upstream change\n")
	g(upstream, "add", "UP")
	g(upstream, "commit", "-q", "-m", "upstream-commit")
	r := run(t, f.policy(ModeWorkspaceWrite), `
		set -e
		cd "$WS"
		git commit -q -am sub-pointer
		git -c protocol.file.allow=always fetch -q "`+upstream+`" main:refs/remotes/up/main
		git merge -q --no-edit --allow-unrelated-histories up/main
		echo a > inside-a; git add inside-a; git commit -q -m inside-commit
		git checkout -q -b topic
		echo b > inside-b; git add inside-b; git commit -q -m topic-commit
		git branch scratch
		if git branch -D scratch 2>/dev/null; then echo DELETED-A-PACKED-REF; fi
		git checkout -q main
		echo c > inside-c; git add inside-c; git commit -q -m main-again
		git checkout -q topic
		git rebase -q main
		echo wip >> README; git stash -q; git stash pop -q; git stash -q
		cd "$WS/vendor/lib"
		echo n > nested; git add nested; git commit -q -m nested-commit
		echo ALL-OK`, append(f.env(), gitTestEnv...)...)
	if !strings.Contains(r.out, "ALL-OK") {
		t.Fatalf("git failed inside the sandbox:\n%s%s", r.out, r.errOut)
	}
	for ref, want := range map[string]string{"topic": "topic-commit", "main": "main-again", "up/main": "upstream-commit"} {
		if out := g(f.ws, "log", "--oneline", ref); !strings.Contains(out, want) || !strings.Contains(out, "upstream-commit") && ref != "up/main" {
			t.Errorf("git log %s on the host = %q, want %s", ref, out, want)
		}
	}
	if out := g(f.ws, "log", "--oneline", "topic"); !strings.Contains(out, "main-again") {
		t.Errorf("the rebase inside did not reach the host: %q", out)
	}
	if out := g(f.ws, "stash", "list"); !strings.Contains(out, "WIP") {
		t.Errorf("git stash inside did not reach the host: %q", out)
	}
	if strings.Contains(r.out, "DELETED-A-PACKED-REF") {
		t.Errorf("git branch -D of a branch in packed-refs succeeded inside")
	}
	before := map[string]history{}
	for _, d := range repos {
		before[d] = recordHistory(t, d)
	}
	run(t, f.policy(ModeWorkspaceWrite), forEachRepo(f, historyAttacks["rm-rf-git"]), f.env()...)
	for _, d := range repos {
		checkHistory(t, d, before[d])
	}
}

// writeLoose writes content as a loose blob into gitDir, as git does.
func writeLoose(b testing.TB, gitDir string, content []byte) {
	b.Helper()
	raw := append([]byte(fmt.Sprintf("blob %d\x00", len(content))), content...)
	sum := sha1.Sum(raw)
	name := hex.EncodeToString(sum[:])
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(raw)
	zw.Close()
	dir := gitDir + "/objects/" + name[:2]
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(dir+"/"+name[2:], z.Bytes(), 0o444); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkKeepHistory: the runner's pass over a repository before (and
// after) each command. steady: everything is packed already (a clone, or
// any command after the first): what every command pays. loose-100: 100
// new loose objects (a large commit) to pack, and a loose ref.
func BenchmarkKeepHistory(b *testing.B) {
	ws := hermetictest.Scratch(b)
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"commit", "-q", "--allow-empty", "-m", "first"}, {"branch", "feature"}, {"tag", "v1"}, {"gc", "-q"}} {
		c := exec.Command("git", append([]string{"-C", ws}, args...)...)
		c.Env = append(os.Environ(), gitTestEnv...)
		if out, err := c.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	heads := []gitHead{{path: ws + "/.git/HEAD"}}
	b.Run("steady", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, _, err := keepGitDirs(heads); err != nil {
				b.Fatal(err)
			}
		}
	})
	mainRef, err := gitOut(ws, "rev-parse", "main")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("loose-100", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			for j := 0; j < 100; j++ {
				writeLoose(b, ws+"/.git", []byte(fmt.Sprintf("object %d of round %d\n%s", j, i, strings.Repeat("x", 2000))))
			}
			if err := os.WriteFile(ws+"/.git/refs/heads/feature", []byte(mainRef), 0o644); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if _, _, err := keepGitDirs(heads); err != nil {
				b.Fatal(err)
			}
		}
	})
	if out, err := gitOut(ws, "fsck", "--no-progress"); err != nil {
		b.Fatalf("git fsck after the benchmark: %v\n%s", err, out)
	}
}
