package instructions_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oceancode/oceancode/agent/instructions"
)

// tree writes files (slash paths → content) under a new directory and
// returns it, symlinks resolved.
func tree(t testing.TB, files map[string]string) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

type row struct {
	Name, Layer, By, Cut string
	Bytes                int
}

func rows(r instructions.Report) []row {
	var out []row
	for _, f := range r.Files {
		out = append(out, row{f.Name, string(f.Layer), f.ImportedBy, f.Cut, f.Bytes})
	}
	return out
}

func notices(r instructions.Report, kind string) []string {
	var out []string
	for _, n := range r.Notices {
		if n.Kind == kind {
			out = append(out, n.File+": "+n.Text)
		}
	}
	return out
}

func TestDiscoverOrder(t *testing.T) {
	t.Parallel()
	dir := tree(t, map[string]string{
		"user/AGENTS.md":              "user rules\n",
		"p/AGENTS.md":                 "root rules\n",
		"p/CLAUDE.md":                 "ignored: AGENTS.md is beside it\n",
		"p/a/CLAUDE.md":               "a rules (claude)\n",
		"p/a/b/AGENTS.md":             "b rules\n",
		"p/a/b/c/":                    "",
		"p/other/AGENTS.md":           "not on the way\n",
		"p/a/b/c/d/AGENTS.md":         "below cwd\n",
		"p/a/b/c/../../b/x/AGENTS.md": "",
	})
	root := filepath.Join(dir, "p")
	s := instructions.Discover(instructions.Config{UserDir: filepath.Join(dir, "user"), ProjectRoot: root, Cwd: filepath.Join(root, "a", "b", "c")})
	want := []row{
		{filepath.Join(dir, "user", "AGENTS.md"), "user", "", "", 11},
		{"AGENTS.md", "project", "", "", 11},
		{"a/CLAUDE.md", "subdir", "", "", 17},
		{"a/b/AGENTS.md", "subdir", "", "", 8},
	}
	if diff := cmp.Diff(want, rows(s.Report())); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	p := s.Prompt()
	idx := func(sub string) int { return strings.Index(p, sub) }
	if !(idx("user rules") < idx("root rules") && idx("root rules") < idx("a rules") && idx("a rules") < idx("b rules")) || idx("user rules") < 0 {
		t.Errorf("prompt order wrong:\n%s", p)
	}
	for _, absent := range []string{"ignored:", "not on the way", "below cwd"} {
		if strings.Contains(p, absent) {
			t.Errorf("prompt has %q:\n%s", absent, p)
		}
	}
}

func TestNoFiles(t *testing.T) {
	t.Parallel()
	dir := tree(t, map[string]string{"p/src/": ""})
	s := instructions.Discover(instructions.Config{ProjectRoot: filepath.Join(dir, "p"), Cwd: filepath.Join(dir, "p", "src")})
	if p := s.Prompt(); p != "" {
		t.Errorf("prompt %q, want none", p)
	}
	if got := s.Touch("src/x.go", ""); got != "" {
		t.Errorf("touch %q", got)
	}
}

func TestImports(t *testing.T) {
	t.Parallel()
	dir := tree(t, map[string]string{
		"p/AGENTS.md":        "Style: @docs/style.md and @docs/missing.md, mail a@b.c.\n```\n@docs/fenced.md\n```\nnot `@docs/code.md`\n",
		"p/docs/style.md":    "tabs. see @nested.md\n",
		"p/docs/nested.md":   "nested ok\n",
		"p/docs/fenced.md":   "FENCED\n",
		"p/docs/code.md":     "CODE\n",
		"p/cyc/AGENTS.md":    "@a.md\n",
		"p/cyc/a.md":         "A @b.md\n",
		"p/cyc/b.md":         "B @a.md\n",
		"p/bad/AGENTS.md":    "@../AGENTS.md @/etc/passwd @~/x @.env @secret/x.env @refd/guide.md\n",
		"p/bad/.env":         "KEY=1\n",
		"p/bad/secret/x.env": "KEY=2\n",
		"ref/guide.md":       "guide from the ref\n",
	})
	root := filepath.Join(dir, "p")
	s := instructions.Discover(instructions.Config{ProjectRoot: root, Cwd: root, Refs: map[string]string{"refd": filepath.Join(dir, "ref")}})
	r := s.Report()
	want := []row{
		{"AGENTS.md", "project", "", "", len("Style: @docs/style.md and @docs/missing.md, mail a@b.c.\n```\n@docs/fenced.md\n```\nnot `@docs/code.md`\n")},
		{"docs/style.md", "project", "AGENTS.md", "", 21},
		{"docs/nested.md", "project", "docs/style.md", "", 10},
	}
	if diff := cmp.Diff(want, rows(r)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if got := notices(r, instructions.Skipped); len(got) != 1 || !strings.Contains(got[0], "@docs/missing.md names no file") {
		t.Errorf("skipped %q", got)
	}
	// The subdirectories join on touch; the cycle is refused with a notice.
	out := s.Touch("cyc/a.md", "")
	if !strings.Contains(out, "A @b.md") || !strings.Contains(out, "B @a.md") ||
		!strings.Contains(out, "[oceancode: cyc/b.md: import @a.md refused: a cycle (cyc/a.md → cyc/b.md → cyc/a.md)]") {
		t.Errorf("touch cyc:\n%s", out)
	}
	out = s.Touch("bad", "")
	for _, w := range []string{
		`import @../AGENTS.md refused: an import may not climb with ".."`,
		"import @/etc/passwd refused: an import is relative",
		"import @~/x refused: an import is relative",
		"import @.env refused: fsguard: refuse to read .env: secrets files are never read",
		"import @secret/x.env refused: fsguard: refuse to read x.env",
		"guide from the ref",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("touch bad: no %q in\n%s", w, out)
		}
	}
	if strings.Contains(out, "KEY=") {
		t.Errorf("a secret reached the prompt:\n%s", out)
	}
}

func TestImportDepth(t *testing.T) {
	t.Parallel()
	files := map[string]string{"p/AGENTS.md": "@d1.md\n"}
	for i := 1; i <= 7; i++ {
		files["p/d"+string(rune('0'+i))+".md"] = "level " + string(rune('0'+i)) + " @d" + string(rune('1'+i)) + ".md\n"
	}
	dir := tree(t, files)
	root := filepath.Join(dir, "p")
	s := instructions.Discover(instructions.Config{ProjectRoot: root, Cwd: root})
	p := s.Prompt()
	if !strings.Contains(p, "level 5") || strings.Contains(p, "level 6") ||
		!strings.Contains(p, "import @d6.md refused: imports nest at most 5 deep") {
		t.Errorf("depth:\n%s", p)
	}
}

func TestUntrustedPaths(t *testing.T) {
	t.Parallel()
	dir := tree(t, map[string]string{"p/sub/": "", "p/fifo/": "", "outside/AGENTS.md": "OUTSIDE\n", "p/docs/x.md": "x\n"})
	root := filepath.Join(dir, "p")
	if err := os.Symlink(filepath.Join(dir, "outside", "AGENTS.md"), filepath.Join(root, "AGENTS.md")); err != nil {
		t.Fatal(err)
	}
	mkfifo(t, filepath.Join(root, "fifo", "AGENTS.md"))
	if err := os.Symlink(filepath.Join(dir, "outside"), filepath.Join(root, "sub", "link")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "sub", "AGENTS.md"), []byte("@link/AGENTS.md\n"), 0o644)
	s := instructions.Discover(instructions.Config{ProjectRoot: root, Cwd: root})
	out := s.Prompt() + s.Touch("fifo", "") + s.Touch("sub", "")
	if strings.Contains(out, "OUTSIDE") {
		t.Errorf("a file outside the project reached the prompt:\n%s", out)
	}
	for _, w := range []string{"outside the project", "fifo/AGENTS.md: not a regular file", "import @link/AGENTS.md refused"} {
		if !strings.Contains(out, w) {
			t.Errorf("no %q in\n%s", w, out)
		}
	}
	// Outside the project, a touch loads nothing.
	if got := s.Touch(filepath.Join(dir, "outside", "AGENTS.md"), ""); got != "" {
		t.Errorf("touch outside: %q", got)
	}
}

func TestCaps(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("line of text\n", 100) // 1300 bytes
	dir := tree(t, map[string]string{"p/AGENTS.md": big, "p/a/AGENTS.md": big, "p/a/b/AGENTS.md": "small\n"})
	root := filepath.Join(dir, "p")
	s := instructions.Discover(instructions.Config{ProjectRoot: root, Cwd: filepath.Join(root, "a", "b"), MaxFileBytes: 1000, MaxTotalBytes: 1500})
	r := s.Report()
	want := []row{
		{"AGENTS.md", "project", "", "312 of 1300 bytes left out (the per-file cap of 1000 bytes)", 988},
		{"a/AGENTS.md", "subdir", "", "793 of 1300 bytes left out (the total cap of 1500 bytes)", 507},
		{"a/b/AGENTS.md", "subdir", "", "1 of 6 bytes left out (the total cap of 1500 bytes)", 5},
	}
	if diff := cmp.Diff(want, rows(r)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if r.Bytes != 1500 || !strings.Contains(s.Prompt(), "[oceancode: a/AGENTS.md: cut: 793 of 1300 bytes left out") {
		t.Errorf("bytes %d, prompt:\n%s", r.Bytes, s.Prompt())
	}
	if len(s.Warnings()) != 3 {
		t.Errorf("warnings %q", s.Warnings())
	}
}

func TestTouchOnce(t *testing.T) {
	t.Parallel()
	dir := tree(t, map[string]string{"p/AGENTS.md": "root\n", "p/x/AGENTS.md": "x\n", "p/x/y/AGENTS.md": "y\n", "p/x/y/f.go": ""})
	root := filepath.Join(dir, "p")
	s := instructions.Discover(instructions.Config{ProjectRoot: root, Cwd: root})
	out := s.Touch("y/f.go", filepath.Join(root, "x"))
	if strings.Index(out, "<instructions file=\"x/AGENTS.md\"") < 0 || strings.Index(out, "x/AGENTS.md") > strings.Index(out, "x/y/AGENTS.md") {
		t.Errorf("touch:\n%s", out)
	}
	if again := s.Touch("x/y", ""); again != "" {
		t.Errorf("second touch: %q", again)
	}
	if f := s.Report().Files; len(f) != 3 || !f[2].OnTouch || f[0].OnTouch {
		t.Errorf("files %+v", f)
	}
}

// BenchmarkDiscover20 is discovery from a working directory 20 levels
// below the root, each with an AGENTS.md (docs/benchmarks.md).
func BenchmarkDiscover20(b *testing.B) {
	files := map[string]string{}
	p := "p"
	for i := 0; i <= 20; i++ {
		files[p+"/AGENTS.md"] = "Run go test ./... before you commit.\n"
		p += "/d"
	}
	dir := tree(b, files)
	root := filepath.Join(dir, "p")
	cwd := filepath.Join(root, strings.Repeat("d/", 20))
	b.ReportAllocs()
	for b.Loop() {
		s := instructions.Discover(instructions.Config{ProjectRoot: root, Cwd: cwd})
		if len(s.Report().Files) != 21 {
			b.Fatal("files missing")
		}
	}
}

// BenchmarkTouchSeen is what every path tool call pays once its directory
// was looked in: one path resolution and a map lookup.
func BenchmarkTouchSeen(b *testing.B) {
	dir := tree(b, map[string]string{"p/AGENTS.md": "root\n", "p/src/pkg/AGENTS.md": "pkg\n", "p/src/pkg/x.go": ""})
	root := filepath.Join(dir, "p")
	s := instructions.Discover(instructions.Config{ProjectRoot: root, Cwd: root})
	s.Touch("src/pkg/x.go", root)
	b.ReportAllocs()
	for b.Loop() {
		if s.Touch("src/pkg/x.go", root) != "" {
			b.Fatal("joined twice")
		}
	}
}

// BenchmarkDiscoverNone is what a session without instruction files pays
// at start: the user's directory and the root looked in.
func BenchmarkDiscoverNone(b *testing.B) {
	dir := tree(b, map[string]string{"user/": "", "p/.git/": ""})
	cfg := instructions.Config{UserDir: filepath.Join(dir, "user"), ProjectRoot: filepath.Join(dir, "p"), Cwd: filepath.Join(dir, "p")}
	b.ReportAllocs()
	for b.Loop() {
		if instructions.Discover(cfg).Prompt() != "" {
			b.Fatal("a prompt without files")
		}
	}
}
