package cli

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oceancode/oceancode/layers/layerstest"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// machineApp points the CLI at a layerstest machine: its project as the
// working directory, its environment, its managed dir.
func machineApp(t testing.TB, m *layerstest.Machine) (*App, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	return &App{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: m.Getenv, Dir: m.Project, ManagedDir: m.ManagedDir}, &out, &errb
}

// TestPermissionCheckGolden pins the --json output of permission check over
// the all-layers fixture: floor, safe list, chained asks, layer-ordered
// rules, requirements rules, .env, outside paths, MCP.
func TestPermissionCheckGolden(t *testing.T) {
	m := layerstest.Full(t)
	os.WriteFile(filepath.Join(m.Project, ".env"), []byte("A=1"), 0o644)
	calls := []struct{ tool, input string }{
		{"bash", "git status"},
		{"bash", "timeout 5 rm -rf /"},
		{"bash", "git status && npm test"},
		{"bash", "git status && make"},
		{"bash", "curl https://example.com"},
		{"bash", "rm -rf build"},
		{"bash", "cat ~/.ssh/id_rsa"},
		{"read", ".env"},
		{"read", "README.md"},
		{"edit", "src/main.go"},
		{"edit", "../elsewhere/x.go"},
		{"mcp", "github/create_issue"},
	}
	var all bytes.Buffer
	for _, c := range calls {
		app, out, errb := machineApp(t, m)
		code := Main(context.Background(), []string{"permission", "check", "--json", c.tool, c.input}, app, Options{})
		if code != 0 {
			t.Fatalf("%s %q: exit %d: %s", c.tool, c.input, code, errb)
		}
		fmt.Fprintf(&all, "# %s %s\n%s", c.tool, c.input, out)
	}
	got := strings.ReplaceAll(all.String(), m.Root, "$ROOT")
	golden := filepath.Join("testdata", "permission-check.golden")
	if *update {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("permission check --json differs (-want +got); go test -update if intended:\n%s", diff)
	}
}

// TestPermissionBatchRestoresGC: --batch raises the collector's target
// for its own run only; the process's setting is back afterwards.
func TestPermissionBatchRestoresGC(t *testing.T) {
	if _, set := os.LookupEnv("GOGC"); set {
		t.Skip("GOGC is set: --batch leaves the collector alone")
	}
	m := layerstest.Full(t)
	file := filepath.Join(m.Root, "batch.txt")
	if err := os.WriteFile(file, []byte("git status\nrm -rf build\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := debug.SetGCPercent(77)
	defer debug.SetGCPercent(before)
	app, out, errb := machineApp(t, m)
	if code := Main(context.Background(), []string{"permission", "check", "bash", "--batch", file}, app, Options{}); code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	if n := strings.Count(out.String(), "\n"); n != 2 {
		t.Errorf("%d decisions, want 2:\n%s", n, out)
	}
	if got := debug.SetGCPercent(before); got != 77 {
		t.Errorf("GC percent after --batch = %d, want 77 (restored)", got)
	}
}

// BenchmarkPermissionBatch is --batch over 10,000 commands in one process:
// the figure is decisions per second (the issue asks ≥ 100,000 on one core;
// run with -cpu 1).
func BenchmarkPermissionBatch(b *testing.B) {
	m := layerstest.Full(b)
	cmds := []string{"git status", "go test ./...", "git status && npm test", "rm -rf build", "ls -la src",
		"grep -rn TODO .", "make build 2>&1 | tail -n 20", "git diff HEAD~1", "cat README.md", "npm run lint"}
	var batch strings.Builder
	const n = 10000
	for i := 0; i < n; i++ {
		batch.WriteString(cmds[i%len(cmds)])
		batch.WriteByte('\n')
	}
	file := filepath.Join(m.Root, "batch.txt")
	if err := os.WriteFile(file, []byte(batch.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		app, _, errb := machineApp(b, m)
		app.Stdout = io.Discard
		if code := Main(context.Background(), []string{"permission", "check", "bash", "--batch", file}, app, Options{}); code != 0 {
			b.Fatalf("exit %d: %s", code, errb)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "decisions/s")
}
