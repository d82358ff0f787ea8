package checkpoint_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/oceancode/oceancode/agent/checkpoint"
)

// project is a temporary project (a real git repository with a commit)
// and a temporary state dir.
type project struct {
	t     *testing.T
	root  string
	state string
}

func newProject(t *testing.T, files map[string]string) *project {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := &project{t: t, root: root, state: t.TempDir()}
	for name, body := range files {
		p.write(name, body)
	}
	p.sh("git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm init")
	return p
}

func (p *project) write(name, body string) {
	p.t.Helper()
	path := filepath.Join(p.root, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		p.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		p.t.Fatal(err)
	}
}

func (p *project) read(name string) string {
	p.t.Helper()
	b, err := os.ReadFile(filepath.Join(p.root, filepath.FromSlash(name)))
	if errors.Is(err, os.ErrNotExist) {
		return "<absent>"
	}
	if err != nil {
		p.t.Fatal(err)
	}
	return string(b)
}

// sh runs a shell command in the project, as the bash tool would.
func (p *project) sh(script string) {
	p.t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = p.root
	cmd.Env = append(os.Environ(), "HOME="+p.t.TempDir(), "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		p.t.Fatalf("%s: %v\n%s", script, err, out)
	}
}

func (p *project) session(id string, o checkpoint.Options) *checkpoint.Session {
	p.t.Helper()
	o.StateDir = p.state
	r, err := checkpoint.Open(o, p.root)
	if err != nil {
		p.t.Fatal(err)
	}
	s, err := r.Session(id)
	if err != nil {
		p.t.Fatal(err)
	}
	return s
}

// turn runs change between Before and End, as a turn's tool calls would.
func turn(t *testing.T, s *checkpoint.Session, prompt string, change func()) *checkpoint.Checkpoint {
	t.Helper()
	ctx := context.Background()
	if err := s.Before(ctx, prompt); err != nil {
		t.Fatal(err)
	}
	change()
	c, err := s.End(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func paths(files []checkpoint.Change) []string {
	var out []string
	for _, f := range files {
		out = append(out, f.Path+":"+f.Status)
	}
	return out
}

func TestUndoRestoresEditAndShellChangesAndRedo(t *testing.T) {
	t.Parallel()
	p := newProject(t, map[string]string{"a.go": "package a\n", "b.txt": "b\n", ".gitignore": "build/\n"})
	s := p.session("s1", checkpoint.Options{})
	c := turn(t, s, "change things\nmore", func() {
		p.write("a.go", "package a // edited\n")                                     // what edit does
		p.sh("rm b.txt && echo new > c.txt && mkdir -p build && echo x > build/out") // what bash does
	})
	if c == nil || c.N != 1 || c.Prompt != "change things" {
		t.Fatalf("checkpoint = %+v", c)
	}
	if diff := cmp.Diff([]string{"a.go:modified", "b.txt:deleted", "c.txt:added"}, paths(c.Files)); diff != "" {
		t.Fatalf("files (-want +got):\n%s", diff)
	}
	res, err := s.Undo(context.Background(), checkpoint.UndoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := []string{p.read("a.go"), p.read("b.txt"), p.read("c.txt"), p.read("build/out")}; !cmp.Equal(got, []string{"package a\n", "b\n", "<absent>", "x\n"}) {
		t.Fatalf("after undo: %q", got)
	}
	if !strings.Contains(res.Note(), "a.go, b.txt, c.txt") {
		t.Errorf("note = %q", res.Note())
	}
	if _, err := s.Undo(context.Background(), checkpoint.UndoOptions{}); !errors.Is(err, checkpoint.ErrNothingToUndo) {
		t.Errorf("second undo: %v", err)
	}
	if _, err := s.Redo(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	if got := []string{p.read("a.go"), p.read("b.txt"), p.read("c.txt")}; !cmp.Equal(got, []string{"package a // edited\n", "<absent>", "new\n"}) {
		t.Fatalf("after redo: %q", got)
	}
}

func TestUndoRefusesToClobberAUserChange(t *testing.T) {
	t.Parallel()
	p := newProject(t, map[string]string{"a.go": "v1\n", "b.go": "b1\n"})
	s := p.session("s2", checkpoint.Options{})
	turn(t, s, "edit", func() { p.write("a.go", "v2\n"); p.write("b.go", "b2\n") })
	p.write("a.go", "v2 and the user's line\n")
	_, err := s.Undo(context.Background(), checkpoint.UndoOptions{})
	var ce *checkpoint.ConflictError
	if !errors.As(err, &ce) || !cmp.Equal(ce.Files, []string{"a.go"}) {
		t.Fatalf("undo = %v, want a conflict on a.go", err)
	}
	if p.read("a.go") != "v2 and the user's line\n" || p.read("b.go") != "b2\n" {
		t.Fatal("a refused undo wrote files")
	}
	if _, err := s.Undo(context.Background(), checkpoint.UndoOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	if p.read("a.go") != "v1\n" || p.read("b.go") != "b1\n" {
		t.Fatalf("forced undo: %q %q", p.read("a.go"), p.read("b.go"))
	}
	// The user changes a restored file: redo refuses too.
	p.write("b.go", "b1 user\n")
	if _, err := s.Redo(context.Background(), false); !errors.As(err, &ce) || !cmp.Equal(ce.Files, []string{"b.go"}) {
		t.Fatalf("redo = %v, want a conflict on b.go", err)
	}
}

func TestUndoToN(t *testing.T) {
	t.Parallel()
	p := newProject(t, map[string]string{"a": "0\n"})
	s := p.session("s3", checkpoint.Options{})
	for i, v := range []string{"1\n", "2\n", "3\n"} {
		c := turn(t, s, "turn", func() { p.write("a", v); p.write("f"+v[:1], v) })
		if c.N != i+1 {
			t.Fatalf("checkpoint %d numbered %d", i+1, c.N)
		}
	}
	if c := turn(t, s, "read only", func() {}); c != nil {
		t.Fatalf("a turn without changes recorded %+v", c)
	}
	res, err := s.Undo(context.Background(), checkpoint.UndoOptions{To: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(res.Checkpoints, []int{3, 2}) || p.read("a") != "1\n" || p.read("f2") != "<absent>" || p.read("f1") != "1\n" {
		t.Fatalf("undo --to 2: %+v a=%q", res, p.read("a"))
	}
	list, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	var undone []bool
	for _, c := range list {
		undone = append(undone, c.Undone)
	}
	if !cmp.Equal(undone, []bool{false, true, true}) {
		t.Fatalf("undone = %v", undone)
	}
	// A session that is not this process's: its journal names the project.
	o, err := checkpoint.OpenSession(checkpoint.Options{StateDir: p.state}, "s3")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := o.Redo(context.Background(), false); err != nil || p.read("a") != "3\n" {
		t.Fatalf("redo from another handle: %v a=%q", err, p.read("a"))
	}
}

func TestLargeFilesAreSkippedAndNamed(t *testing.T) {
	t.Parallel()
	p := newProject(t, map[string]string{"small": "s\n"})
	s := p.session("s4", checkpoint.Options{MaxFileBytes: 100})
	c := turn(t, s, "big", func() {
		p.write("small", "s2\n")
		p.write("big.bin", strings.Repeat("x", 1000))
	})
	if len(c.Skipped) != 1 || c.Skipped[0].Path != "big.bin" || c.Skipped[0].Size != 1000 {
		t.Fatalf("skipped = %+v", c.Skipped)
	}
	res, err := s.Undo(context.Background(), checkpoint.UndoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.read("small") != "s\n" || len(p.read("big.bin")) != 1000 {
		t.Fatal("undo did not restore small or touched big.bin")
	}
	if !strings.Contains(res.Note(), "Not restored: big.bin (larger than the limit") {
		t.Errorf("note = %q", res.Note())
	}
}

// The project is untrusted: its .git/config, .gitattributes and hooks
// name programs; none runs, and the project's index and refs are untouched.
func TestProjectGitConfigRunsNothing(t *testing.T) {
	t.Parallel()
	p := newProject(t, map[string]string{"a.txt": "a\r\n"})
	marker := filepath.Join(t.TempDir(), "ran")
	p.sh(`git config filter.evil.clean "touch ` + marker + `; cat" && git config filter.evil.required true && ` +
		`git config core.fsmonitor "touch ` + marker + `" && git config core.hooksPath hooks && mkdir hooks && ` +
		`printf '#!/bin/sh\ntouch ` + marker + `\n' > hooks/post-index-change && chmod +x hooks/post-index-change && ` +
		`printf '* filter=evil text eol=lf\n' > .gitattributes`)
	index := p.read(".git/index")
	head := p.read(".git/HEAD")
	s := p.session("s5", checkpoint.Options{})
	c := turn(t, s, "x", func() { p.write("a.txt", "b\r\n") })
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the project's configuration ran a program")
	}
	if p.read(".git/index") != index || p.read(".git/HEAD") != head {
		t.Fatal("the project's index or HEAD changed")
	}
	if _, err := s.Undo(context.Background(), checkpoint.UndoOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := p.read("a.txt"); got != "a\r\n" {
		t.Fatalf("a.txt = %q, want the bytes as they were (no eol conversion)", got)
	}
	if c == nil || len(c.Files) != 1 {
		t.Fatalf("checkpoint = %+v", c)
	}
}

func TestUndoDoesNotWriteThroughASymlink(t *testing.T) {
	t.Parallel()
	p := newProject(t, map[string]string{"d/f": "1\n"})
	outside := t.TempDir()
	s := p.session("s6", checkpoint.Options{})
	turn(t, s, "x", func() { p.sh("rm -r d && ln -s " + outside + " d") })
	// The undo would recreate d/f: d is a symlink out of the project now,
	// which the undo replaced… only if it was the turn's. Here the user
	// made it (after the turn): a conflict.
	p.sh("rm d && ln -s " + outside + " d2 && mkdir -p d && ln -s " + outside + "/f d/f")
	if _, err := s.Undo(context.Background(), checkpoint.UndoOptions{Force: true}); err != nil {
		t.Logf("forced undo: %v", err)
	}
	if _, err := os.Stat(filepath.Join(outside, "f")); err == nil {
		t.Fatal("undo wrote outside the project")
	}
}

func TestPruneDropsOldCheckpoints(t *testing.T) {
	t.Parallel()
	p := newProject(t, map[string]string{"a": "0\n"})
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	s := p.session("s7", checkpoint.Options{Now: clock})
	turn(t, s, "old", func() { p.write("a", "1\n") })
	now = now.Add(40 * 24 * time.Hour)
	turn(t, s, "new", func() { p.write("a", "2\n") })
	rep, err := checkpoint.Prune(context.Background(), checkpoint.Options{StateDir: p.state, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	list, _ := s.List()
	if rep.Dropped != 1 || len(list) != 1 || list[0].Prompt != "new" {
		t.Fatalf("prune = %+v, left %+v", rep, list)
	}
	// By size: a limit of one byte drops the rest.
	if _, err := checkpoint.Prune(context.Background(), checkpoint.Options{StateDir: p.state, Now: clock, MaxBytes: 1}); err != nil {
		t.Fatal(err)
	}
	if list, _ := s.List(); len(list) != 0 {
		t.Fatalf("left %+v", list)
	}
}

// TestPrunePacksLooseObjects: a project's first snapshot writes one loose
// object per file; Prune packs them.
func TestPrunePacksLooseObjects(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for i := range 2100 {
		files[fmt.Sprintf("d%d/f%d", i/100, i)] = fmt.Sprint(i)
	}
	p := newProject(t, files)
	s := p.session("s8", checkpoint.Options{})
	turn(t, s, "one", func() { p.write("d0/f0", "changed") })
	if _, err := checkpoint.Prune(context.Background(), checkpoint.Options{StateDir: p.state}); err != nil {
		t.Fatal(err)
	}
	packs, _ := filepath.Glob(filepath.Join(p.state, "checkpoints", "repos", "*", "objects", "pack", "*.pack"))
	if len(packs) == 0 {
		t.Fatal("no pack after Prune")
	}
	if _, err := s.Undo(context.Background(), checkpoint.UndoOptions{}); err != nil || p.read("d0/f0") != "0" {
		t.Fatalf("undo after the pack: %v", err)
	}
}

// TestIgnoredFilesAreNotKept: the project's .gitignore files and its
// .git/info/exclude decide what a checkpoint keeps; the project's .git
// is never kept.
func TestIgnoredFilesAreNotKept(t *testing.T) {
	t.Parallel()
	p := newProject(t, map[string]string{".gitignore": "*.log\n", "sub/.gitignore": "out/\n"})
	p.write(".git/info/exclude", "local.txt\n")
	s := p.session("s9", checkpoint.Options{})
	c := turn(t, s, "x", func() {
		for _, f := range []string{"a.log", "sub/out/o", "local.txt", "kept.txt"} {
			p.write(f, "x")
		}
		p.sh("git -c user.name=t -c user.email=t@t commit -qm more --allow-empty")
	})
	if got := paths(c.Files); !cmp.Equal(got, []string{"kept.txt:added"}) {
		t.Fatalf("files = %v, want kept.txt only", got)
	}
}
