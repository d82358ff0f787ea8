//go:build linux && (amd64 || arm64)

package sandbox

import (
	"bytes"
	"compress/zlib"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// holeRepo is a workspace holding one repository with a packed past (a
// first commit, branch old and tag v0 packed by gc) and a loose present
// (a second commit on main, branch feature, tag v1), as after a day's
// work; it returns the fixture and a git runner that fails the test.
func holeRepo(t *testing.T) (fixture, func(dir string, args ...string) string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is required")
	}
	f := newFixture(t)
	must(t, os.RemoveAll(f.ws+"/.git"))
	g := func(dir string, args ...string) string {
		t.Helper()
		out, err := gitOut(dir, args...)
		if err != nil {
			t.Fatalf("git %v in %s: %v\n%s", args, dir, err, out)
		}
		return out
	}
	g(f.ws, "init", "-q", "-b", "main")
	write(t, f.ws+"/README", "readme\n")
	g(f.ws, "add", "README")
	g(f.ws, "commit", "-q", "-m", "first")
	g(f.ws, "branch", "old")
	g(f.ws, "tag", "v0")
	g(f.ws, "gc", "-q")
	write(t, f.ws+"/README", "second\n")
	g(f.ws, "commit", "-q", "-am", "second")
	g(f.ws, "branch", "feature")
	g(f.ws, "tag", "-a", "-m", "annotated", "v1")
	return f, g
}

// runHole runs script in f's workspace under workspace-write, with git's
// test identity, and returns what it printed.
func runHole(t *testing.T, f fixture, script string) string {
	t.Helper()
	r := run(t, f.policy(ModeWorkspaceWrite), script, append(f.env(), gitTestEnv...)...)
	return r.out + r.errOut
}

// checkHole fails unless the history recorded in before is still
// readable on the host (checkHistory), and git log of main works.
func checkHole(t *testing.T, f fixture, before history, out string) {
	t.Helper()
	checkHistory(t, f.ws, before)
	if o, err := gitOut(f.ws, "log", "--oneline", "main", "--"); err != nil {
		t.Errorf("git log main on the host: %v\n%s", err, o)
	}
	if t.Failed() {
		t.Logf("output of the sandboxed commands:\n%s", out)
	}
}

// TestHistoryHeadIsReadWithoutFollowing: the runner records a git dir's
// HEAD (to put it back) only when it is a regular file holding a ref. A
// HEAD that a command made a link to a file outside the workspace is not
// read through (its content would be written into HEAD after the next
// command removed it: a read of any file the agent can read), and one made
// a FIFO or a link to an endless device does not hang the next command's
// start.
func TestHistoryHeadIsReadWithoutFollowing(t *testing.T) {
	requireSandbox(t)
	f, _ := holeRepo(t)
	// A previous command made these repositories (nested repositories are
	// protected from the command after the one that made them).
	out := runHole(t, f, `
		cd "$WS"
		for d in leak fifo zero; do git init -q $d && git -C $d commit -q --allow-empty -m x; done
		rm leak/.git/HEAD; ln -s "$FAKEHOME/.ssh/id_ed25519" leak/.git/HEAD
		rm fifo/.git/HEAD; mkfifo fifo/.git/HEAD
		rm zero/.git/HEAD; ln -s /dev/zero zero/.git/HEAD
		echo MADE`)
	if !strings.Contains(out, "MADE") {
		t.Fatalf("setup failed:\n%s", out)
	}
	out += runHole(t, f, `rm -f "$WS/leak/.git/HEAD" "$WS/fifo/.git/HEAD" "$WS/zero/.git/HEAD"; echo RAN`)
	out += runHole(t, f, `cat "$WS/leak/.git/HEAD"; echo RAN`)
	if strings.Contains(out, secret) {
		t.Errorf("a file outside the workspace reached a command through HEAD:\n%s", out)
	}
	if got := read(f.ws + "/leak/.git/HEAD"); strings.Contains(got, secret) {
		t.Errorf("leak/.git/HEAD on the host = %q", got)
	}
}

// TestHistoryRefNamesAreChecked: a loose ref whose name git would refuse
// (a newline, a space, a control character) is not packed: written into
// packed-refs it would add lines of the command's choosing, or lines git
// dies on, and every ref of the repository would be unreadable. It is
// removed, like a FIFO (git would hang on it) or a link among the refs.
func TestHistoryRefNamesAreChecked(t *testing.T) {
	requireSandbox(t)
	f, _ := holeRepo(t)
	before := recordHistory(t, f.ws)
	out := runHole(t, f, `
		cd "$WS"; h=$(git rev-parse HEAD)
		mkdir -p ".git/refs/heads/$(printf 'x\n')"
		echo $h > ".git/refs/heads/$(printf 'a\ngarbage')"
		d="$(printf 'b\n0000000000000000000000000000000000000000 refs')/heads"; mkdir -p ".git/refs/heads/$d"; echo $h > ".git/refs/heads/$d/main"
		mkfifo .git/refs/heads/fifo; ln -s "$OUT/existing" .git/refs/tags/link
		echo $h > ".git/refs/heads/with space"
		echo $h > ".git/refs/tags/$(printf 'c\001')"
		echo $h > ".git/refs/heads/d..e"
		echo $h > ".git/refs/heads/f.lock.x"
		echo RAN`)
	checkHole(t, f, before, out)
	if p := read(f.ws + "/.git/packed-refs"); strings.Contains(p, "garbage") || strings.Contains(p, " refs/heads/with space") || strings.Contains(p, "d..e") {
		t.Errorf("packed-refs has refs git refuses:\n%s", p)
	}
}

// TestHistoryRestoreNotBlocked: a command cannot keep the runner from
// putting back a HEAD it removed by making the runner's temporary name
// first (a directory, a link, a file); git on the host would no longer
// take the directory for a repository.
func TestHistoryRestoreNotBlocked(t *testing.T) {
	requireSandbox(t)
	f, _ := holeRepo(t)
	before := recordHistory(t, f.ws)
	out := runHole(t, f, `
		cd "$WS/.git"; rm -f HEAD
		mkdir HEAD.oceancode-restore; ln -s /nonexistent HEAD.tmp; ln -s /nonexistent HEAD.lock
		for i in 0 1 2 3 4 5 6 7 8 9; do mkdir HEAD.oceancode-restore-$i HEAD.oceancode-restore.$i; done
		echo RAN`)
	checkHole(t, f, before, out)
}

// TestHistoryBrokenRefUnderALock: a loose ref a command broke is removed
// after it even when the command also left the ref's lock file, or
// packed-refs' lock: git on the host reads a broken loose ref as broken,
// not as the packed value it hides.
func TestHistoryBrokenRefUnderALock(t *testing.T) {
	requireSandbox(t)
	for name, script := range map[string]string{
		"ref-lock":    `echo garbage > "$G/refs/heads/main"; : > "$G/refs/heads/feature"; touch "$G/refs/heads/main.lock" "$G/refs/heads/feature.lock"`,
		"packed-lock": `echo garbage > "$G/refs/heads/main"; : > "$G/refs/heads/feature"; touch "$G/packed-refs.lock"`,
	} {
		t.Run(name, func(t *testing.T) {
			f, _ := holeRepo(t)
			before := recordHistory(t, f.ws)
			out := runHole(t, f, `G="$WS/.git"; `+script+`; echo RAN`)
			checkHole(t, f, before, out)
		})
	}
}

// TestHistoryRestoreFollowsNoLink: a command that replaces a directory
// below refs/ by a link to a directory outside the workspace does not make
// the runner write there when it puts back the symbolic ref it recorded
// (refs/remotes/origin/HEAD), nor remove files there.
func TestHistoryRestoreFollowsNoLink(t *testing.T) {
	requireSandbox(t)
	f, g := holeRepo(t)
	g(f.ws, "update-ref", "refs/remotes/origin/main", "HEAD")
	g(f.ws, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
	g(f.ws, "update-ref", "refs/heads/out/existing", "HEAD")
	g(f.ws, "pack-refs", "--all")
	write(t, f.out+"/existing", "original\n")
	before := recordHistory(t, f.ws)
	out := runHole(t, f, `
		G="$WS/.git"
		rm -rf "$G/refs/remotes/origin"; ln -s "$OUT" "$G/refs/remotes/origin"
		rm -rf "$G/refs/heads/out"; ln -s "$OUT" "$G/refs/heads/out"
		echo RAN`)
	checkHole(t, f, before, out)
	absent(t, f.out+"/HEAD")
	unchanged(t, f.out+"/existing", "original\n")
	if ents, _ := os.ReadDir(f.out); len(ents) != 1 {
		t.Errorf("files appeared in %s: %v", f.out, ents)
	}
	if o, err := gitOut(f.ws, "symbolic-ref", "refs/remotes/origin/HEAD"); err != nil || !strings.Contains(o, "refs/remotes/origin/main") {
		t.Errorf("refs/remotes/origin/HEAD not put back: %v %s", err, o)
	}
}

// TestHistoryMissingPackDir: a repository whose objects/pack (and
// packed-refs) do not exist yet (all objects loose, as in a repository
// copied without its empty directories) is kept too: the runner makes
// them and binds them read-only for the command, in the workspace's git
// dir (packed-refs there) and a nested one (no packed-refs).
func TestHistoryMissingPackDir(t *testing.T) {
	requireSandbox(t)
	f, g := holeRepo(t)
	must(t, os.MkdirAll(f.ws+"/nested", 0o755))
	g(f.ws+"/nested", "init", "-q", "-b", "main")
	g(f.ws+"/nested", "commit", "-q", "--allow-empty", "-m", "nested")
	unpack(t, f.ws, g)
	for _, gd := range []string{f.ws + "/.git", f.ws + "/nested/.git"} {
		must(t, os.RemoveAll(gd+"/objects/pack"))
	}
	must(t, os.RemoveAll(f.ws+"/nested/.git/packed-refs"))
	before := recordHistory(t, f.ws)
	nested := recordHistory(t, f.ws+"/nested")
	out := runHole(t, f, `
		cd "$WS"
		for G in "$WS/.git" "$WS/nested/.git"; do
			rm -rf "$G/objects/"?? "$G/objects/pack" "$G/refs" "$G/packed-refs"
			mkdir -p "$G/packed-refs"
		done
		rm -rf .git nested/.git; echo RAN`)
	checkHole(t, f, before, out)
	checkHistory(t, f.ws+"/nested", nested)
}

// unpack turns the packs and packed refs of the repository at dir (made
// by gc) back into loose objects and refs.
func unpack(t *testing.T, dir string, g func(dir string, args ...string) string) {
	t.Helper()
	for _, l := range strings.Split(strings.TrimSpace(g(dir, "for-each-ref", "--format=%(objectname) %(refname)")), "\n") {
		v, ref, _ := strings.Cut(l, " ")
		must(t, os.MkdirAll(filepath.Dir(dir+"/.git/"+ref), 0o755))
		write(t, dir+"/.git/"+ref, v+"\n")
	}
	packs, _ := filepath.Glob(dir + "/.git/objects/pack/*.pack")
	for _, p := range packs {
		moved := t.TempDir() + "/p.pack"
		must(t, os.Rename(p, moved))
		c := exec.Command("git", "-C", dir, "unpack-objects", "-q")
		c.Stdin, _ = os.Open(moved)
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("unpack-objects: %v\n%s", err, out)
		}
	}
}

// TestHistoryHashOfTheRepository: the runner packs the objects of the
// repository's own hash function. A command that drops a valid object of
// the other function first in the object directory does not keep the
// runner from packing the repository's new loose objects (here a commit
// made on the host between two commands), nor make it write a pack git
// cannot read.
func TestHistoryHashOfTheRepository(t *testing.T) {
	requireSandbox(t)
	f, g := holeRepo(t)
	name, obj := sha256Object(t)
	write(t, f.out+"/obj", string(obj))
	out := runHole(t, f, fmt.Sprintf(`mkdir -p "$WS/.git/objects/%s" && cp "$OUT/obj" "$WS/.git/objects/%s/%s" && echo PLANTED`, name[:2], name[:2], name[2:]))
	if !strings.Contains(out, "PLANTED") {
		t.Fatalf("setup failed:\n%s", out)
	}
	write(t, f.ws+"/host", "made on the host\n")
	g(f.ws, "add", "host")
	g(f.ws, "commit", "-q", "-m", "host-commit")
	before := recordHistory(t, f.ws)
	out += runHole(t, f, `cd "$WS/.git"; rm -rf objects/?? refs/heads/* refs/tags/*; echo RAN`)
	checkHole(t, f, before, out)
}

// sha256Object is a valid loose blob of the sha256 object format whose
// name sorts before any sha1 object name of a test repository: its name
// and its zlib-compressed content.
func sha256Object(t *testing.T) (string, []byte) {
	t.Helper()
	for i := 0; ; i++ {
		content := fmt.Sprintf("planted %d\n", i)
		raw := []byte(fmt.Sprintf("blob %d\x00%s", len(content), content))
		sum := sha256.Sum256(raw)
		if sum[0] != 0 || sum[1] != 0 {
			continue
		}
		var z bytes.Buffer
		zw := zlib.NewWriter(&z)
		zw.Write(raw)
		zw.Close()
		return hex.EncodeToString(sum[:]), z.Bytes()
	}
}

// TestHistorySeparateGitDir: a nested repository whose .git is a file
// pointing at a git dir elsewhere in the workspace (git init
// --separate-git-dir) has that git dir protected and kept like any other.
func TestHistorySeparateGitDir(t *testing.T) {
	requireSandbox(t)
	f, g := holeRepo(t)
	must(t, os.MkdirAll(f.ws+"/proj", 0o755))
	must(t, os.MkdirAll(f.ws+"/store", 0o755))
	g(f.ws, "init", "-q", "-b", "main", "--separate-git-dir="+f.ws+"/store/proj.git", f.ws+"/proj")
	write(t, f.ws+"/proj/x", "x\n")
	g(f.ws+"/proj", "add", "x")
	g(f.ws+"/proj", "commit", "-q", "-m", "separate")
	before := recordHistory(t, f.ws+"/proj")
	out := runHole(t, f, `
		G="$WS/store/proj.git"
		rm -rf "$G/objects/"?? "$G/objects/pack/"* "$G/refs" "$G/packed-refs"; rm -rf "$WS/store"; mv "$WS/store" "$WS/gone"
		echo RAN`)
	checkHistory(t, f.ws+"/proj", before)
	if t.Failed() {
		t.Logf("output:\n%s", out)
	}
}

// TestHistoryAmendThenGC: a commit amended inside and then garbage
// collected (reflog expired, gc --prune=now) is still in the repository:
// git cat-file -p of it works on the host; the amended commit is there too.
func TestHistoryAmendThenGC(t *testing.T) {
	requireSandbox(t)
	f, g := holeRepo(t)
	old := strings.TrimSpace(g(f.ws, "rev-parse", "HEAD"))
	before := recordHistory(t, f.ws)
	out := runHole(t, f, `
		cd "$WS" && git commit -q --amend -m amended && git rev-parse HEAD > amended.txt
		git reflog expire --expire=now --all; git gc -q --prune=now; git prune --expire=now
		git push -q . :feature; git push -q . :refs/tags/v1
		echo RAN`)
	if o, err := gitOut(f.ws, "cat-file", "-p", old); err != nil || !strings.Contains(o, "second") {
		t.Errorf("git cat-file -p %s (the commit before the amend): %v\n%s", old, err, o)
	}
	if amended := strings.TrimSpace(read(f.ws + "/amended.txt")); amended != "" {
		if o, err := gitOut(f.ws, "cat-file", "-p", amended); err != nil || !strings.Contains(o, "amended") {
			t.Errorf("the amended commit %s is not on the host: %v\n%s", amended, err, o)
		}
	}
	checkHole(t, f, before, out)
}
