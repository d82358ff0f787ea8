package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func patchEnv(t *testing.T, files map[string]string) *Env {
	t.Helper()
	env := testEnv(t)
	for name, content := range files {
		writeFile(t, filepath.Join(env.Cwd, name), content)
		mustOK(t, run(t, ReadTool{}, env, obj{"path": name}))
	}
	return env
}

func TestApplyPatch(t *testing.T) {
	t.Parallel()
	env := patchEnv(t, map[string]string{
		"main.go":   "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n",
		"old.txt":   "bye\n",
		"mv/a.txt":  "move me\nline 2\n",
		"crlf.txt":  "a\r\nb\r\nc\r\n",
		"noeol.txt": "x\ny",
	})
	os.Chmod(filepath.Join(env.Cwd, "mv/a.txt"), 0o700)
	patch := `*** Begin Patch
*** Add File: pkg/new.go
+package pkg
+
+var X = 1
*** Update File: main.go
@@ func main() {
-	fmt.Println("hi")
+	fmt.Println("hello")
+	fmt.Println("world")
 }
*** Delete File: old.txt
*** Update File: mv/a.txt
*** Move to: moved/b.txt
@@
 move me
-line 2
+line two
*** Update File: crlf.txt
@@
 b
-c
+C
*** End of File
*** Update File: noeol.txt
-y
+z
*** End Patch`
	r := mustOK(t, run(t, ApplyPatchTool{}, env, obj{"patch": patch}))
	want := "applied: +8 -5 lines\nA pkg/new.go\nM main.go\nD old.txt\nR mv/a.txt -> moved/b.txt\nM crlf.txt\nM noeol.txt"
	if r.Content != want {
		t.Errorf("result:\n%s\nwant:\n%s", r.Content, want)
	}
	files := map[string]string{
		"pkg/new.go":  "package pkg\n\nvar X = 1\n",
		"main.go":     "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello\")\n\tfmt.Println(\"world\")\n}\n",
		"moved/b.txt": "move me\nline two\n",
		"crlf.txt":    "a\r\nb\r\nC\r\n",
		"noeol.txt":   "x\nz",
	}
	for name, content := range files {
		if got := readFile(t, filepath.Join(env.Cwd, name)); got != content {
			t.Errorf("%s = %q, want %q", name, got, content)
		}
	}
	for _, gone := range []string{"old.txt", "mv/a.txt"} {
		if _, err := os.Stat(filepath.Join(env.Cwd, gone)); err == nil {
			t.Errorf("%s still exists", gone)
		}
	}
	if fi, _ := os.Stat(filepath.Join(env.Cwd, "moved/b.txt")); fi.Mode().Perm() != 0o700 {
		t.Errorf("moved file mode %v, want 0700", fi.Mode().Perm())
	}
	// The session knows what it wrote: a second patch needs no read.
	mustOK(t, run(t, ApplyPatchTool{}, env, obj{"patch": "*** Begin Patch\n*** Update File: pkg/new.go\n-var X = 1\n+var X = 2\n*** End Patch"}))
}

// TestApplyPatchAtomic: one bad hunk anywhere and no file changes.
func TestApplyPatchAtomic(t *testing.T) {
	t.Parallel()
	files := map[string]string{"a.txt": "one\ntwo\nthree\n", "b.txt": "alpha\nbeta\n"}
	env := patchEnv(t, files)
	patch := `*** Begin Patch
*** Add File: c.txt
+new
*** Update File: a.txt
@@
 one
-two
+2
*** Delete File: b.txt
*** Update File: b.txt
@@
-gamma
+delta
*** End Patch`
	r := mustErr(t, run(t, ApplyPatchTool{}, env, obj{"patch": patch}))
	if !strings.Contains(r.Content, "nothing changed") || !strings.Contains(r.Content, "named twice") {
		t.Errorf("result %q", r.Content)
	}
	patch = strings.Replace(patch, "*** Delete File: b.txt\n", "", 1)
	r = mustErr(t, run(t, ApplyPatchTool{}, env, obj{"patch": patch}))
	if !strings.Contains(r.Content, "nothing changed") || !strings.Contains(r.Content, "hunk 1: these lines are not in the file") || !strings.Contains(r.Content, "gamma") {
		t.Errorf("result %q", r.Content)
	}
	for name, content := range files {
		if got := readFile(t, filepath.Join(env.Cwd, name)); got != content {
			t.Errorf("%s changed to %q by a failed patch", name, got)
		}
	}
	if _, err := os.Stat(filepath.Join(env.Cwd, "c.txt")); err == nil {
		t.Error("c.txt was added by a failed patch")
	}
	// Adding over an existing file and moving onto one are refused.
	r = mustErr(t, run(t, ApplyPatchTool{}, env, obj{"patch": "*** Begin Patch\n*** Add File: a.txt\n+x\n*** Update File: b.txt\n*** Move to: a.txt\n*** End Patch"}))
	if !strings.Contains(r.Content, "already exists") {
		t.Errorf("add over existing: %q", r.Content)
	}
}

// TestCommitRollback: should a write fail part way, the files already
// written are put back.
func TestCommitRollback(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	a := filepath.Join(env.Cwd, "a.txt")
	writeFile(t, a, "old")
	ro := filepath.Join(env.Cwd, "ro")
	os.Mkdir(ro, 0o755)
	changes := []*fileChange{
		{abs: a, shown: "a.txt", data: []byte("new"), had: true, oldData: []byte("old"), oldMode: 0o644},
		{abs: filepath.Join(env.Cwd, "created.txt"), shown: "created.txt", data: []byte("c"), created: true},
		{abs: ro, shown: "ro", data: []byte("x")}, // a directory: the write fails
	}
	err := commit(changes)
	if err == nil || !strings.Contains(err.Error(), "no file was changed") {
		t.Fatalf("commit = %v", err)
	}
	if got := readFile(t, a); got != "old" {
		t.Errorf("a.txt = %q after rollback", got)
	}
	if _, err := os.Stat(filepath.Join(env.Cwd, "created.txt")); err == nil {
		t.Error("created.txt left after rollback")
	}
}

func TestParsePatch(t *testing.T) {
	t.Parallel()
	ops, err := parsePatch("\n*** Begin Patch\r\n*** Update File: a\r\n@@ -1,2 +1,2 @@\r\n x\r\n-y\r\n+z\r\n\r\n\r\n*** Delete File: b\r\n*** End Patch\r\n\n")
	if err != nil {
		t.Fatal(err)
	}
	want := []patchOp{
		{kind: opUpdate, path: "a", hunks: []hunk{{lines: []hunkLine{{' ', "x"}, {'-', "y"}, {'+', "z"}}}}},
		{kind: opDelete, path: "b"},
	}
	if diff := cmp.Diff(want, ops, cmp.AllowUnexported(patchOp{}, hunk{}, hunkLine{})); diff != "" {
		t.Errorf("parse (-want +got):\n%s", diff)
	}
	bad := map[string]string{
		"":                                      "starts with",
		"*** Begin Patch\n*** Add File: a\n+x":  "ends with",
		"*** Begin Patch\n*** End Patch":        "changes no file",
		"*** Begin Patch\nhello\n*** End Patch": "expected",
		"*** Begin Patch\n*** Add File: a\nx\n*** End Patch":                  "starts with \"+\"",
		"*** Begin Patch\n*** Update File: a\n*** End Patch":                  "no hunks",
		"*** Begin Patch\n*** Update File: a\n@@\n@@\n-x\n*** End Patch":      "empty hunk",
		"*** Begin Patch\n*** Update File: a\n@@\n?x\n*** End Patch":          "hunk line starts with",
		"*** Begin Patch\n*** Add File: \n+x\n*** End Patch":                  "names no path",
		"*** Begin Patch\n*** Update File: a\n*** End of File\n*** End Patch": "outside a hunk",
	}
	for text, want := range bad {
		if _, err := parsePatch(text); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parsePatch(%q) = %v, want %q", text, err, want)
		}
	}
}

func TestApplyHunks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, content, patch, want string
	}{
		{"trailing whitespace fuzz", "a  \nb\n", "@@\n a\n-b\n+c", "a  \nc\n"},
		{"indent fuzz", "\tif x {\n\t\ty()\n\t}\n", "@@\n if x {\n-    y()\n+    z()", "\tif x {\n    z()\n\t}\n"},
		{"anchor picks the second", "f() {\n\tx\n}\ng() {\n\tx\n}\n", "@@ g() {\n-\tx\n+\ty", "f() {\n\tx\n}\ng() {\n\ty\n}\n"},
		{"pure insert at end", "a\n", "@@\n+b", "a\nb\n"},
		{"insert after anchor", "a\nb\n", "@@ a\n+between", "a\nbetween\nb\n"},
		{"eof prefers the end", "x\ny\nx\n", "@@\n-x\n+z\n*** End of File", "x\ny\nz\n"},
		{"empty file", "", "@@\n+first", "first\n"},
		{"two hunks in order", "a\nb\nc\nd\n", "@@\n-a\n+A\n@@\n-d\n+D", "A\nb\nc\nD\n"},
	}
	for _, tt := range tests {
		ops, err := parsePatch("*** Begin Patch\n*** Update File: f\n" + tt.patch + "\n*** End Patch")
		if err != nil {
			t.Errorf("%s: parse: %v", tt.name, err)
			continue
		}
		got, err := applyHunks(tt.content, ops[0].hunks)
		if err != nil || got != tt.want {
			t.Errorf("%s: = %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
}
