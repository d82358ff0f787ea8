package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/agent/fsguard"
	"github.com/oceancode/oceancode/agent/fsguard/fsguardtest"
	"github.com/oceancode/oceancode/agent/gate"
	"github.com/oceancode/oceancode/agent/permission"
)

func TestRead(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	p := filepath.Join(env.Cwd, "a.txt")
	writeFile(t, p, "one\ntwo\nthree\n"+strings.Repeat("x", 2500)+"\nfive")
	r := mustOK(t, run(t, ReadTool{}, env, obj{"path": "a.txt"}))
	want := "     1\tone\n     2\ttwo\n     3\tthree\n     4\t" + strings.Repeat("x", 2000) + "… [line cut]\n     5\tfive"
	if r.Content != want {
		t.Errorf("read =\n%q\nwant\n%q", r.Content, want)
	}
	r = mustOK(t, run(t, ReadTool{}, env, obj{"path": p, "offset": 2, "limit": 2}))
	if r.Content != "     2\ttwo\n     3\tthree\n(2 of 5 lines shown; continue with offset=4)" {
		t.Errorf("range = %q", r.Content)
	}
	mustErr(t, run(t, ReadTool{}, env, obj{"path": "a.txt", "offset": 9}))

	os.Mkdir(filepath.Join(env.Cwd, "dir"), 0o755)
	if r := mustErr(t, run(t, ReadTool{}, env, obj{"path": "dir"})); !strings.Contains(r.Content, "is a directory (use list)") {
		t.Errorf("dir: %q", r.Content)
	}
	if r := mustErr(t, run(t, ReadTool{}, env, obj{"path": "missing"})); !strings.Contains(r.Content, "does not exist") {
		t.Errorf("missing: %q", r.Content)
	}
	writeFile(t, filepath.Join(env.Cwd, "bin"), "ELF\x00\x01\x02")
	if r := mustOK(t, run(t, ReadTool{}, env, obj{"path": "bin"})); !strings.Contains(r.Content, "binary file (6 bytes)") {
		t.Errorf("binary: %q", r.Content)
	}
	writeFile(t, filepath.Join(env.Cwd, "empty"), "")
	if r := mustOK(t, run(t, ReadTool{}, env, obj{"path": "empty"})); r.Content != "(empty file)" {
		t.Errorf("empty: %q", r.Content)
	}
	// The output limit stops at a line boundary and says where to go on.
	env.OutputLimit = 30
	r = mustOK(t, run(t, ReadTool{}, env, obj{"path": "a.txt"}))
	if !strings.Contains(r.Content, "continue with offset=3") || len(r.Content) > 100 {
		t.Errorf("output limit: %q", r.Content)
	}
}

// TestReadSecretRefused: .env and its variants never reach the model,
// whether named directly or through a symlink; templates read.
func TestReadSecretRefused(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	writeFile(t, filepath.Join(env.Cwd, ".env"), "API_KEY=sk-123")
	writeFile(t, filepath.Join(env.Cwd, "config/prod.env"), "X=1")
	writeFile(t, filepath.Join(env.Cwd, ".env.example"), "API_KEY=")
	os.Symlink(".env", filepath.Join(env.Cwd, "notes.txt"))
	for _, p := range []string{".env", "config/prod.env", "notes.txt", filepath.Join(env.Cwd, ".env")} {
		r := mustErr(t, run(t, ReadTool{}, env, obj{"path": p}))
		if !strings.Contains(r.Content, "never read") || strings.Contains(r.Content, "sk-123") {
			t.Errorf("read %s = %q", p, r.Content)
		}
	}
	mustOK(t, run(t, ReadTool{}, env, obj{"path": ".env.example"}))
	// grep skips them too.
	r := mustOK(t, run(t, GrepTool{}, env, obj{"pattern": "API_KEY"}))
	if r.Content != ".env.example:1: API_KEY=" {
		t.Errorf("grep over secrets = %q", r.Content)
	}
	mustErr(t, run(t, GrepTool{}, env, obj{"pattern": "API_KEY", "path": ".env"}))
}

// TestRefAlias: "@name/rest" reads from the reference root.
func TestRefAlias(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	docs, _ := filepath.EvalSymlinks(t.TempDir())
	writeFile(t, filepath.Join(docs, "guide.md"), "hello docs\n")
	env.Boundary.Refs = map[string]string{"docs": docs}
	r := mustOK(t, run(t, ReadTool{}, env, obj{"path": "@docs/guide.md"}))
	if r.Content != "     1\thello docs" || r.Meta["path"] != filepath.Join(docs, "guide.md") {
		t.Errorf("@docs read %q %v", r.Content, r.Meta)
	}
	res, err := env.Boundary.Resolve("@docs/guide.md", env.Cwd)
	if err != nil || res.Ref != "docs" || res.Outside {
		t.Errorf("resolve @docs = %+v, %v (want auto-allowed through the alias)", res, err)
	}
	mustOK(t, run(t, GrepTool{}, env, obj{"pattern": "hello", "path": "@docs"}))
}

// TestSymlinkOutOfProject: a path that leaves the project through a
// symlink is resolved. The tool reports the path as given (Target.Input);
// the turn loop runs the gate on it, and the gate resolves it to the
// outside path and asks under external_directory. The tool opens the
// resolved path, the one the gate judged.
func TestSymlinkOutOfProject(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	outside, _ := filepath.EvalSymlinks(t.TempDir())
	writeFile(t, filepath.Join(outside, "secret-plan.txt"), "outside\n")
	os.Symlink(outside, filepath.Join(env.Cwd, "link"))

	input := in(t, obj{"path": "link/secret-plan.txt"})
	tg, err := ReadTool{}.Target(input)
	if err != nil || tg.Input != "link/secret-plan.txt" {
		t.Fatalf("Target = %+v, %v", tg, err)
	}
	res, err := env.Boundary.Resolve(tg.Input, env.Cwd)
	if err != nil || !res.Outside || res.Abs != filepath.Join(outside, "secret-plan.txt") {
		t.Fatalf("resolve = %+v, %v; want the outside path", res, err)
	}
	g, err := gate.New(gate.Config{Boundary: env.Boundary})
	if err != nil {
		t.Fatal(err)
	}
	d := g.Check(gate.Call{Tool: tg.Tool, Input: tg.Input, Cwd: env.Cwd})
	if d.Action != permission.Ask || d.Path == nil || d.Path.Abs != res.Abs {
		t.Errorf("gate on the Target = %s (%s), path %+v; want ask for the outside path", d.Action, d.Reason, d.Path)
	}
	r := mustOK(t, ReadTool{}.Run(context.Background(), env, input))
	if r.Meta["path"] != res.Abs {
		t.Errorf("read opened %v, want %s", r.Meta["path"], res.Abs)
	}
	// Writing through the link lands on the resolved path too.
	mustOK(t, run(t, WriteTool{}, env, obj{"path": "link/new.txt", "content": "n"}))
	if got := readFile(t, filepath.Join(outside, "new.txt")); got != "n" {
		t.Errorf("write through link: %q", got)
	}
}

func TestWrite(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	r := mustOK(t, run(t, WriteTool{}, env, obj{"path": "deep/er/new.go", "content": "package x\n"}))
	if r.Content != "created deep/er/new.go (10 bytes)" {
		t.Errorf("write = %q", r.Content)
	}
	if fi, _ := os.Stat(filepath.Join(env.Cwd, "deep/er")); fi.Mode().Perm() != 0o755 {
		t.Errorf("parent mode %v", fi.Mode().Perm())
	}
	// The session wrote it: it may overwrite without a read.
	mustOK(t, run(t, WriteTool{}, env, obj{"path": "deep/er/new.go", "content": "package y\n"}))

	// An existing file keeps its mode.
	p := filepath.Join(env.Cwd, "run.sh")
	writeFile(t, p, "#!/bin/sh\n")
	os.Chmod(p, 0o751)
	mustOK(t, run(t, ReadTool{}, env, obj{"path": "run.sh"}))
	mustOK(t, run(t, WriteTool{}, env, obj{"path": "run.sh", "content": "#!/bin/sh\necho\n"}))
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o751 {
		t.Errorf("mode after write %v, want 0751", fi.Mode().Perm())
	}
	ents, _ := os.ReadDir(env.Cwd)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
	mustErr(t, run(t, WriteTool{}, env, obj{"path": "deep", "content": "x"}))
	noTracker := *env
	noTracker.Tracker = nil
	mustErr(t, run(t, WriteTool{}, &noTracker, obj{"path": "z", "content": "x"}))
}

// TestReadBeforeWrite runs the real Tracker: an existing file must be read
// first; a small file the session itself created (after Start) need not.
func TestReadBeforeWrite(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	old := filepath.Join(env.Cwd, "old.txt")
	writeFile(t, old, "before the session\n")
	env.Tracker.Start(fsguardtest.BornAfter(t, old))

	for _, tool := range []struct {
		tool  Tool
		input obj
	}{
		{WriteTool{}, obj{"path": "old.txt", "content": "x"}},
		{EditTool{}, obj{"path": "old.txt", "old_string": "before", "new_string": "after"}},
		{ApplyPatchTool{}, obj{"patch": "*** Begin Patch\n*** Update File: old.txt\n@@\n-before the session\n+x\n*** End Patch"}},
		{ApplyPatchTool{}, obj{"patch": "*** Begin Patch\n*** Delete File: old.txt\n*** End Patch"}},
	} {
		r := mustErr(t, run(t, tool.tool, env, tool.input))
		if !strings.Contains(r.Content, fsguard.ErrNotRead.Error()) {
			t.Errorf("%s: %q", tool.tool.Def().Name, r.Content)
		}
	}
	if got := readFile(t, old); got != "before the session\n" {
		t.Fatalf("old.txt changed: %q", got)
	}

	// A bash command of this session creates small and big files.
	mustOK(t, run(t, BashTool{}, env, obj{"command": "echo generated > gen.txt; head -c 70000 /dev/zero > big.txt"}))
	r := run(t, WriteTool{}, env, obj{"path": "gen.txt", "content": "rewritten\n"})
	if r.IsError {
		// Only a filesystem without birth times may refuse; then the exception never applies.
		t.Fatalf("self-created small file refused: %s", r.Content)
	}
	if r := mustErr(t, run(t, WriteTool{}, env, obj{"path": "big.txt", "content": "x"})); !strings.Contains(r.Content, "not been read") {
		t.Errorf("big self-created file: %q", r.Content)
	}
	// After a read the old file writes.
	mustOK(t, run(t, ReadTool{}, env, obj{"path": "old.txt"}))
	mustOK(t, run(t, WriteTool{}, env, obj{"path": "old.txt", "content": "x"}))
}

// TestStale: a file changed on disk since it was read is refused, even at
// the same size and mtime.
func TestStale(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	p := filepath.Join(env.Cwd, "s.txt")
	writeFile(t, p, "alpha beta\n")
	fi, _ := os.Stat(p)
	mustOK(t, run(t, ReadTool{}, env, obj{"path": "s.txt"}))
	writeFile(t, p, "alpha BETA\n")
	os.Chtimes(p, fi.ModTime(), fi.ModTime())
	for _, tool := range []struct {
		tool  Tool
		input obj
	}{
		{EditTool{}, obj{"path": "s.txt", "old_string": "alpha", "new_string": "gamma"}},
		{WriteTool{}, obj{"path": "s.txt", "content": "x"}},
		{ApplyPatchTool{}, obj{"patch": "*** Begin Patch\n*** Update File: s.txt\n-alpha BETA\n+x\n*** End Patch"}},
	} {
		r := mustErr(t, run(t, tool.tool, env, tool.input))
		if !strings.Contains(r.Content, fsguard.ErrStale.Error()) {
			t.Errorf("%s on a stale file: %q", tool.tool.Def().Name, r.Content)
		}
	}
	if got := readFile(t, p); got != "alpha BETA\n" {
		t.Errorf("stale file was changed: %q", got)
	}
	mustOK(t, run(t, ReadTool{}, env, obj{"path": "s.txt"}))
	mustOK(t, run(t, EditTool{}, env, obj{"path": "s.txt", "old_string": "alpha", "new_string": "gamma"}))
}

func TestEdit(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	p := filepath.Join(env.Cwd, "e.go")
	writeFile(t, p, "func a() {\n\treturn 1\n}\n\nfunc b() {\n\treturn 1\n}\n")
	os.Chmod(p, 0o600)
	mustOK(t, run(t, ReadTool{}, env, obj{"path": "e.go"}))

	r := mustErr(t, run(t, EditTool{}, env, obj{"path": "e.go", "old_string": "return 1", "new_string": "return 2"}))
	if !strings.Contains(r.Content, "occurs 2 times") {
		t.Errorf("ambiguous: %q", r.Content)
	}
	r = mustErr(t, run(t, EditTool{}, env, obj{"path": "e.go", "old_string": "return 3", "new_string": "return 2"}))
	if !strings.Contains(r.Content, "not found") {
		t.Errorf("not found: %q", r.Content)
	}
	r = mustOK(t, run(t, EditTool{}, env, obj{"path": "e.go", "old_string": "func b() {\n\treturn 1", "new_string": "func b() {\n\treturn 2"}))
	if r.Content != "edited e.go: 1 replacement(s), first at line 5\n-\treturn 1\n+\treturn 2" {
		t.Errorf("summary = %q", r.Content)
	}
	// The session knows what it wrote: the next edit needs no read.
	r = mustOK(t, run(t, EditTool{}, env, obj{"path": "e.go", "old_string": "func", "new_string": "fn", "replace_all": true}))
	if r.Meta["replacements"] != 2 {
		t.Errorf("replace_all: %v", r.Meta)
	}
	if got := readFile(t, p); got != "fn a() {\n\treturn 1\n}\n\nfn b() {\n\treturn 2\n}\n" {
		t.Errorf("content = %q", got)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	r = mustErr(t, run(t, EditTool{}, env, obj{"path": "nope.go", "old_string": "a", "new_string": "b"}))
	if !strings.Contains(r.Content, "use write") {
		t.Errorf("missing file: %q", r.Content)
	}

	// CRLF files: LF strings match and are written as CRLF.
	c := filepath.Join(env.Cwd, "w.txt")
	writeFile(t, c, "one\r\ntwo\r\nthree\r\n")
	mustOK(t, run(t, ReadTool{}, env, obj{"path": "w.txt"}))
	mustOK(t, run(t, EditTool{}, env, obj{"path": "w.txt", "old_string": "one\ntwo", "new_string": "one\n2"}))
	if got := readFile(t, c); got != "one\r\n2\r\nthree\r\n" {
		t.Errorf("crlf = %q", got)
	}
}

func TestEditSurvivesTrackerErrors(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	p := filepath.Join(env.Cwd, "f")
	writeFile(t, p, "x")
	mustOK(t, run(t, ReadTool{}, env, obj{"path": "f"}))
	os.Remove(p)
	if r := mustErr(t, run(t, EditTool{}, env, obj{"path": "f", "old_string": "x", "new_string": "y"})); !strings.Contains(r.Content, "does not exist") {
		t.Errorf("deleted: %q", r.Content)
	}
}
