package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/oceancode/oceancode/agent/childenv"
	"github.com/oceancode/oceancode/agent/fsguard"
	"github.com/oceancode/oceancode/agent/sandbox/sandboxtest"
)

// The test binary doubles as the sandbox helper (the code the oceancode
// binary's hidden helper mode runs), so confined bash is tested for real.
func TestMain(m *testing.M) {
	sandboxtest.ServeHelper()
	code := m.Run()
	sandboxtest.Cleanup()
	os.Exit(code)
}

// testEnv is a session in a fresh project directory.
func testEnv(t testing.TB) *Env {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tr := &fsguard.Tracker{}
	return &Env{
		Boundary: fsguard.Boundary{ProjectRoot: root},
		Cwd:      root,
		Tracker:  tr,
		ChildEnv: childenv.Compose(os.Environ(), childenv.Config{}),
		Todos:    &TodoList{},
	}
}

// in marshals a tool input.
func in(t testing.TB, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type obj = map[string]any

func run(t testing.TB, tool Tool, env *Env, input any) Result {
	t.Helper()
	return tool.Run(context.Background(), env, in(t, input))
}

func mustOK(t testing.TB, r Result) Result {
	t.Helper()
	if r.IsError {
		t.Fatalf("unexpected error result: %s", r.Content)
	}
	return r
}

func mustErr(t testing.TB, r Result) Result {
	t.Helper()
	if !r.IsError {
		t.Fatalf("want an error result, got: %s", r.Content)
	}
	return r
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
