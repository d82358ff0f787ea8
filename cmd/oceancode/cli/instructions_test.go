package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/agent/message"
	"github.com/oceancode/oceancode/agent/provider/providertest"
	"github.com/oceancode/oceancode/layers/layerstest"
)

// instructionsMachine is a real git repository with nested instruction
// files, an import, an import cycle and the organisation's instructions;
// the model is configured by the user, so the project is not trusted.
func instructionsMachine(t *testing.T, turns ...providertest.Turn) (*layerstest.Machine, *providertest.Server) {
	t.Helper()
	m := layerstest.New(t)
	m.Anchor()
	m.Requirements(1, map[string]any{"instructions": "ORG-RULE: never paste customer data."})
	if out, err := exec.Command("git", "init", "-q", m.Project).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	files := map[string]string{
		"AGENTS.md":          "ROOT-RULE: see @docs/style.md\nCI token ghp_abcdefghijklmnopqrstuvwxyz0123456789\n",
		"CLAUDE.md":          "CLAUDE-ROOT: not read, AGENTS.md is beside it\n",
		"docs/style.md":      "STYLE-RULE: tabs\n",
		"a/CLAUDE.md":        "A-RULE\n",
		"a/b/AGENTS.md":      "B-RULE @loop1.md\n",
		"a/b/loop1.md":       "LOOP1 @loop2.md\n",
		"a/b/loop2.md":       "LOOP2 @loop1.md\n",
		"a/b/sub/AGENTS.md":  "SUB-RULE: joins on touch\n",
		"a/b/sub/x.txt":      "x\n",
		"a/b/other/file.txt": "",
	}
	for p, c := range files {
		full := filepath.Join(m.Project, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(m.Home, ".config", "oceancode", "AGENTS.md"), []byte("USER-RULE\n"), 0o644)
	srv := providertest.New(t, turns...)
	m.UserConfig(`{"provider": {"mock": {"type": "openai", "base_url": "` + srv.OpenAIURL() + `"}}, "model": "mock/m"}`)
	m.Env["OPENAI_API_KEY"] = "sk-test"
	return m, srv
}

// Nested instruction files reach the model's request in order (user, root,
// each directory down to the working directory, the organisation's last),
// an import resolves, a cycle is refused with a notice, and a
// subdirectory's file joins the result of the first tool that touches it.
func TestInstructionsReachTheRequest(t *testing.T) {
	m, srv := instructionsMachine(t,
		providertest.Call("read", map[string]string{"path": "sub/x.txt"}),
		providertest.Call("read", map[string]string{"path": "sub/x.txt"}),
		providertest.Text("done"))
	app, _, errb := machineApp(t, m)
	app.Dir = filepath.Join(m.Project, "a", "b")
	if code := Main(context.Background(), []string{"run", "--auto", "go"}, app, Options{}); code != 0 {
		t.Fatalf("exit %d\n%s", code, errb)
	}
	// The instructions events (text format: on stderr): the start files,
	// then sub/'s, once.
	if o := errb.String(); !strings.Contains(o, "  instructions: "+filepath.Join(m.Home, ".config", "oceancode", "AGENTS.md")+" (user, 10 bytes); AGENTS.md (project, 80 bytes); docs/style.md (project, 17 bytes, imported by AGENTS.md); a/CLAUDE.md (subdir, 7 bytes)") ||
		strings.Count(o, "  instructions: a/b/sub/AGENTS.md (subdir, 25 bytes)") != 1 {
		t.Errorf("run's output lacks the instructions events:\n%s", o)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	sys := reqs[0].System
	last := -1
	for _, w := range []string{"USER-RULE", "ROOT-RULE", "STYLE-RULE", "A-RULE", "B-RULE", "LOOP1", "LOOP2",
		"[oceancode: a/b/loop2.md: import @loop1.md refused: a cycle (a/b/loop1.md → a/b/loop2.md → a/b/loop1.md)]", "ORG-RULE"} {
		i := strings.Index(sys, w)
		if i <= last {
			t.Errorf("%q at %d, after %d: out of order or missing in the system prompt:\n%s", w, i, last, sys)
		}
		last = i
	}
	for _, no := range []string{"SUB-RULE", "CLAUDE-ROOT", "ghp_abcdefghij"} {
		if strings.Contains(sys, no) {
			t.Errorf("the system prompt has %s", no)
		}
	}
	if !strings.Contains(errb.String(), "warning: instructions: a/b/loop2.md: import @loop1.md refused: a cycle") {
		t.Errorf("no warning on stderr:\n%s", errb)
	}
	// The first read of sub/ carries its instructions; the second does not.
	results := func(r providertest.Request) string {
		var b strings.Builder
		for _, m := range r.Messages {
			for _, p := range m.Parts {
				if p.Type == message.ToolOutput && p.ToolResult != nil {
					b.WriteString(p.ToolResult.Content)
				}
			}
		}
		return b.String()
	}
	if got := results(reqs[1]); !strings.Contains(got, "SUB-RULE") {
		t.Errorf("the first touch of sub/ did not carry its instructions:\n%s", got)
	}
	if got := results(reqs[2]); strings.Count(got, "SUB-RULE") != 1 {
		t.Errorf("sub/'s instructions joined %d times, want once:\n%s", strings.Count(got, "SUB-RULE"), got)
	}
}

// The first request of a session without instruction files stays within
// 6 KB (docs/benchmarks.md).
func TestFirstRequestWithoutInstructions(t *testing.T) {
	m := layerstest.New(t)
	srv := mockModel(t, m, "", providertest.Text("done"))
	app, _, errb := machineApp(t, m)
	if code := Main(context.Background(), []string{"run", "hello"}, app, Options{}); code != 0 {
		t.Fatalf("exit %d\n%s", code, errb)
	}
	body := srv.Requests()[0].Body
	if strings.Contains(string(body), "<instructions") || len(body) > 6*1024 {
		t.Errorf("first request body is %d bytes (budget 6 KiB)", len(body))
	}
	t.Logf("first request body without instruction files: %d bytes", len(body))
}

// inspect instructions lists the files, their layers, bytes and what was
// cut or refused; a file name's escape sequences never reach the terminal.
func TestInspectInstructions(t *testing.T) {
	m, _ := instructionsMachine(t)
	os.WriteFile(filepath.Join(m.Project, "a", "b", "AGENTS.md"), []byte("B-RULE @loop1.md @\x1b]0;pwned\x07evil.md\n"), 0o644)
	app, out, errb := machineApp(t, m)
	app.Dir = filepath.Join(m.Project, "a", "b")
	if code := Main(context.Background(), []string{"inspect", "instructions"}, app, Options{}); code != 0 {
		t.Fatalf("exit %d\n%s", code, errb)
	}
	want := `Instruction files in the prompt: 7, 182 bytes (caps: 32768 per file, 65536 in total)
  user     ~/.config/oceancode/AGENTS.md             10 bytes
  project  AGENTS.md                                 80 bytes
  project  docs/style.md (imported by AGENTS.md)     17 bytes
  subdir   a/CLAUDE.md                               7 bytes
  subdir   a/b/AGENTS.md                             36 bytes
  subdir   a/b/loop1.md (imported by a/b/AGENTS.md)  16 bytes
  subdir   a/b/loop2.md (imported by a/b/loop1.md)   16 bytes
Notices:
  refused  a/b/loop2.md: import @loop1.md refused: a cycle (a/b/loop1.md → a/b/loop2.md → a/b/loop1.md)
  skipped  a/b/AGENTS.md: @evil.md names no file: not imported
A subdirectory's AGENTS.md joins when a tool first touches that directory.
`
	if got := out.String(); got != want {
		t.Errorf("inspect instructions:\n%s\nwant:\n%s", got, want)
	}
	out.Reset()
	if code := Main(context.Background(), []string{"inspect", "instructions", "--json"}, app, Options{}); code != 0 {
		t.Fatalf("exit %d\n%s", code, errb)
	}
	for _, w := range []string{`"layer": "subdir"`, `"imported_by": "a/b/loop1.md"`, `"kind": "refused"`, `"max_total_bytes": 65536`} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("--json has no %s:\n%s", w, out)
		}
	}
}

// init writes a starting AGENTS.md from the build files it finds (running
// nothing), imports an existing CLAUDE.md, and never overwrites AGENTS.md.
func TestInit(t *testing.T) {
	m := layerstest.New(t)
	if out, err := exec.Command("git", "init", "-q", m.Project).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	for p, c := range map[string]string{
		"go.mod":         "module example.com/x\n",
		"package.json":   `{"scripts": {"build": "tsc", "test": "vitest", "lint": "eslint ."}}`,
		"pnpm-lock.yaml": "",
		"tsconfig.json":  "{}",
		"Makefile":       "build:\n\tgo build\ntest: build\n\tgo test\n",
		"CLAUDE.md":      "Existing rules.\n",
		"sub/x.go":       "",
	} {
		full := filepath.Join(m.Project, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		os.WriteFile(full, []byte(c), 0o644)
	}
	app, out, errb := machineApp(t, m)
	app.Dir = filepath.Join(m.Project, "sub")
	if code := Main(context.Background(), []string{"init"}, app, Options{}); code != 0 {
		t.Fatalf("exit %d\n%s", code, errb)
	}
	data, err := os.ReadFile(filepath.Join(m.Project, "AGENTS.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"@CLAUDE.md", "- Languages: Go, JavaScript, TypeScript\n", "- Test: `go test ./...`\n", "- Build: `pnpm run build`\n",
		"- Test: `pnpm test`\n", "- Lint: `pnpm run lint`\n", "- Build (make): `make build`\n", "- Test (make): `make test`\n"} {
		if !strings.Contains(string(data), w) {
			t.Errorf("AGENTS.md has no %q:\n%s", w, data)
		}
	}
	if !strings.Contains(out.String(), "wrote "+filepath.Join(m.Project, "AGENTS.md")) {
		t.Errorf("stdout: %s", out)
	}
	// The new AGENTS.md imports CLAUDE.md: both are in the prompt.
	res := m.Resolve()
	rep, err := instructionsReport(app, res)
	if err != nil || len(rep.Files) != 2 || rep.Files[1].Name != "CLAUDE.md" {
		t.Errorf("instructions after init: %+v %v", rep.Files, err)
	}
	os.WriteFile(filepath.Join(m.Project, "AGENTS.md"), []byte("mine\n"), 0o644)
	errb.Reset()
	if code := Main(context.Background(), []string{"init"}, app, Options{}); code != 1 || !strings.Contains(errb.String(), "already exists: left unchanged") {
		t.Errorf("second init: exit %d\n%s", code, errb)
	}
	if data, _ := os.ReadFile(filepath.Join(m.Project, "AGENTS.md")); string(data) != "mine\n" {
		t.Errorf("AGENTS.md was overwritten: %q", data)
	}
}

// instructions.enabled false turns the files off (inspect says where it
// was set; the organisation's instructions stay); the caps come from
// instructions.max_*_bytes.
func TestInstructionsConfig(t *testing.T) {
	m, srv := instructionsMachine(t, providertest.Text("done"))
	user := filepath.Join(m.Home, ".config", "oceancode", "oceancode.json")
	data, _ := os.ReadFile(user)
	cfg := strings.TrimSuffix(strings.TrimSpace(string(data)), "}") + `, "instructions": {"enabled": false}}`
	os.WriteFile(user, []byte(cfg), 0o644)
	app, out, errb := machineApp(t, m)
	if code := Main(context.Background(), []string{"run", "go"}, app, Options{}); code != 0 {
		t.Fatalf("exit %d\n%s", code, errb)
	}
	if sys := srv.Requests()[0].System; strings.Contains(sys, "ROOT-RULE") || !strings.Contains(sys, "ORG-RULE") {
		t.Errorf("instructions.enabled false: system prompt\n%s", sys)
	}
	out.Reset()
	if code := Main(context.Background(), []string{"inspect", "instructions"}, app, Options{}); code != 0 ||
		!strings.Contains(out.String(), "Instruction files are off: instructions.enabled is false (~/.config/oceancode/oceancode.json:") {
		t.Errorf("inspect instructions: exit %d\n%s%s", code, out, errb)
	}
	os.WriteFile(user, []byte(strings.Replace(cfg, `"enabled": false`, `"max_file_bytes": 1024, "max_total_bytes": 1024`, 1)), 0o644)
	os.WriteFile(filepath.Join(m.Project, "AGENTS.md"), []byte(strings.Repeat("x", 2000)+"\n"), 0o644)
	out.Reset()
	if code := Main(context.Background(), []string{"inspect", "instructions", "--json"}, app, Options{}); code != 0 ||
		!strings.Contains(out.String(), `"cut": "987 of 2001 bytes left out (the total cap of 1024 bytes)"`) {
		t.Errorf("inspect instructions --json: exit %d\n%s%s", code, out, errb)
	}
}
