package pager

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestUnifiedDiff(t *testing.T) {
	old, new := "a\nb\nc\n", "a\nB\nc\nd\n"
	d := UnifiedDiff("src/x.go", old, new)
	for _, s := range []string{"--- a/src/x.go\n", "+++ b/src/x.go\n", "-b\n", "+B\n", "+d\n"} {
		if !strings.Contains(d, s) {
			t.Errorf("diff lacks %q:\n%s", s, d)
		}
	}
	// It is a real patch: git apply turns old into new.
	hermetic(t)
	dir := t.TempDir()
	writeFiles(t, dir, "src/x.go")
	if err := os.WriteFile(filepath.Join(dir, "src/x.go"), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "p.diff"), []byte(d), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("git", "apply", "p.diff")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git apply: %v\n%s", err, out)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "src/x.go")); string(got) != new {
		t.Errorf("applied: %q, want %q", got, new)
	}
	if UnifiedDiff("x", "same\n", "same\n") != "" {
		t.Error("equal contents have a diff")
	}
}

func TestRenderDiff(t *testing.T) {
	th := NewTheme(true)
	diff := "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n ctx\n-old\n+new\t1\n\\ No newline at end of file\n+" + strings.Repeat("w", 100) + "\n+\x1b[2Jclear"
	out := RenderDiff(diff, th, 40)
	lines := strings.Split(out, "\n")
	if len(lines) != 9 {
		t.Fatalf("%d lines:\n%s", len(lines), out)
	}
	styles := []struct {
		line string
		want string
	}{
		{lines[0], th.Header.Render("--- a/x")},
		{lines[2], th.Hunk.Render("@@ -1,2 +1,2 @@")},
		{lines[3], th.Text.Render(" ctx")},
		{lines[4], th.Removed.Render("-old")},
		{lines[5], th.Added.Render("+new    1")},
		{lines[6], th.Muted.Render(`\ No newline at end of file`)},
	}
	for i, s := range styles {
		if s.line != s.want {
			t.Errorf("line %d = %q, want %q", i, s.line, s.want)
		}
	}
	if w := ansi.StringWidth(lines[7]); w != 40 || !strings.HasSuffix(ansi.Strip(lines[7]), "…") {
		t.Errorf("long line is %d wide: %q", w, ansi.Strip(lines[7]))
	}
	if strings.Contains(out, "\x1b[2J") {
		t.Error("an escape sequence in the diff reached the output")
	}
	// Dark and light differ; width 0 does not clip.
	if RenderDiff("+x", NewTheme(true), 0) == RenderDiff("+x", NewTheme(false), 0) {
		t.Error("dark and light render the same")
	}
	if got := ansi.Strip(RenderDiff("+"+strings.Repeat("w", 300), th, 0)); len(got) != 301 {
		t.Errorf("width 0 clipped to %d", len(got))
	}
	if RenderDiff("", th, 80) != "" {
		t.Error("empty diff renders")
	}
}
