package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/oceancode/oceancode/agent/fsguard"
)

func searchTree(t *testing.T) *Env {
	t.Helper()
	env := testEnv(t)
	files := map[string]string{
		"main.go":                 "package main\n// TODO: one\nfunc main() {}\n",
		"pkg/util/x.go":           "package util\n\n// TODO: two\n",
		"pkg/util/x_test.go":      "package util // TODO: test\n",
		"docs/readme.md":          "TODO in docs\n",
		"node_modules/m/index.js": "// TODO: vendored\n",
		".git/config":             "TODO git\n",
		"bin.dat":                 "TODO\x00binary",
		"config.env":              "TODO=secret\n",
	}
	for name, content := range files {
		writeFile(t, filepath.Join(env.Cwd, name), content)
	}
	writeFile(t, filepath.Join(env.Cwd, "big.txt"), "TODO\n"+strings.Repeat("x", MaxGrepFileSize))
	os.Symlink("/etc", filepath.Join(env.Cwd, "etc-link"))
	return env
}

func TestGrep(t *testing.T) {
	t.Parallel()
	env := searchTree(t)
	r := mustOK(t, run(t, GrepTool{}, env, obj{"pattern": `TODO:? \w+`}))
	want := "docs/readme.md:1: TODO in docs\nmain.go:2: // TODO: one\npkg/util/x.go:3: // TODO: two\npkg/util/x_test.go:1: package util // TODO: test"
	if r.Content != want {
		t.Errorf("grep =\n%s\nwant\n%s", r.Content, want)
	}
	r = mustOK(t, run(t, GrepTool{}, env, obj{"pattern": "TODO", "glob": "*_test.go"}))
	if r.Content != "pkg/util/x_test.go:1: package util // TODO: test" {
		t.Errorf("glob by name = %q", r.Content)
	}
	r = mustOK(t, run(t, GrepTool{}, env, obj{"pattern": "TODO", "glob": "pkg/**/*.go", "path": "."}))
	if strings.Count(r.Content, "\n") != 1 {
		t.Errorf("glob by path = %q", r.Content)
	}
	r = mustOK(t, run(t, GrepTool{}, env, obj{"pattern": "TODO", "path": "pkg/util/x.go"}))
	if r.Content != "pkg/util/x.go:3: // TODO: two" {
		t.Errorf("one file = %q", r.Content)
	}
	if r := mustOK(t, run(t, GrepTool{}, env, obj{"pattern": "nothing-matches-this"})); r.Content != "no matches" {
		t.Errorf("no match = %q", r.Content)
	}
	mustErr(t, run(t, GrepTool{}, env, obj{"pattern": "x", "path": "missing"}))

	// The match cap.
	var sb strings.Builder
	for range MaxGrepMatches + 50 {
		sb.WriteString("hit\n")
	}
	writeFile(t, filepath.Join(env.Cwd, "many.txt"), sb.String())
	r = mustOK(t, run(t, GrepTool{}, env, obj{"pattern": "^hit$", "path": "many.txt"}))
	if r.Meta["matches"] != MaxGrepMatches || !strings.Contains(r.Content, "stopped at 200 matches") {
		t.Errorf("cap: %v", r.Meta)
	}
}

func TestGlob(t *testing.T) {
	t.Parallel()
	env := searchTree(t)
	now := time.Now()
	for i, name := range []string{"main.go", "pkg/util/x.go", "pkg/util/x_test.go"} {
		mt := now.Add(time.Duration(i) * time.Minute)
		os.Chtimes(filepath.Join(env.Cwd, name), mt, mt)
	}
	r := mustOK(t, run(t, GlobTool{}, env, obj{"pattern": "**/*.go"}))
	if r.Content != "pkg/util/x_test.go\npkg/util/x.go\nmain.go" {
		t.Errorf("glob = %q (want newest first)", r.Content)
	}
	r = mustOK(t, run(t, GlobTool{}, env, obj{"pattern": "*.go", "path": "pkg/util"}))
	if r.Content != "pkg/util/x_test.go\npkg/util/x.go" {
		t.Errorf("glob under path = %q", r.Content)
	}
	r = mustOK(t, run(t, GlobTool{}, env, obj{"pattern": "*.js"}))
	if r.Content != "no files match" {
		t.Errorf("node_modules searched: %q", r.Content)
	}
	mustErr(t, run(t, GlobTool{}, env, obj{"pattern": "[", "path": "."}))
}

func TestGlobMatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"**/*.go", "main.go", true},
		{"**/*.go", "a/b/c.go", true},
		{"a/**/c.go", "a/c.go", true},
		{"a/**/c.go", "a/x/y/c.go", true},
		{"a/**/c.go", "b/x/c.go", false},
		{"*.go", "a/b.go", false},
		{"**", "a/b/c", true},
		{"a/**", "a/b/c", true},
		{"a/*/c", "a/b/c", true},
		{"a/*/c", "a/b/d/c", false},
		{"./src/*.ts", "src/x.ts", true},
	}
	for _, tt := range tests {
		m, err := compileGlob(tt.pattern)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.match(tt.name); got != tt.want {
			t.Errorf("match(%q, %q) = %v", tt.pattern, tt.name, got)
		}
	}
}

func TestList(t *testing.T) {
	t.Parallel()
	env := searchTree(t)
	r := mustOK(t, run(t, ListTool{}, env, obj{}))
	lines := strings.Split(r.Content, "\n")
	if lines[0] != "./" {
		t.Errorf("first line %q", lines[0])
	}
	got := strings.Join(lines[1:], "\n")
	wantTree := `  .git/ (not listed)
  docs/
    readme.md
  node_modules/ (not listed)
  pkg/
    util/
  big.txt
  bin.dat
  config.env
  etc-link@
  main.go`
	if got != wantTree {
		t.Errorf("list =\n%s\nwant\n%s", got, wantTree)
	}
	mustErr(t, run(t, ListTool{}, env, obj{"path": "main.go"}))
	if r := mustOK(t, run(t, ListTool{}, env, obj{"path": "pkg"})); !strings.Contains(r.Content, "    x_test.go") {
		t.Errorf("list pkg = %q", r.Content)
	}
}

// TestGrepSkipsSecretDirs: a secrets directory (oceancode's state dir)
// below the searched tree is skipped whole, and a search rooted in one is
// refused.
func TestGrepSkipsSecretDirs(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	state := filepath.Join(env.Cwd, "home", ".local", "state", "oceancode")
	writeFile(t, filepath.Join(state, "server.token"), "TOKEN-abcdef\n")
	writeFile(t, filepath.Join(env.Cwd, "home", "notes.txt"), "TOKEN-notes\n")
	fsguard.SetSecretDirs(state)
	r := mustOK(t, run(t, GrepTool{}, env, obj{"pattern": "TOKEN"}))
	if r.Content != "home/notes.txt:1: TOKEN-notes" {
		t.Errorf("grep over the tree = %q, want only the notes", r.Content)
	}
	mustErr(t, run(t, GrepTool{}, env, obj{"pattern": "TOKEN", "path": "home/.local/state/oceancode"}))
	mustErr(t, run(t, GrepTool{}, env, obj{"pattern": "TOKEN", "path": "home/.local/state/oceancode/server.token"}))
}
