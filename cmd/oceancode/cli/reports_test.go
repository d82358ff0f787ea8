package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/oceancode/oceancode/agent/provider/providertest"
	"github.com/oceancode/oceancode/agent/session"
	"github.com/oceancode/oceancode/layers/layerstest"
)

// run1 runs oceancode with argv on machine m and returns the exit status,
// stdout and stderr.
func run1(t *testing.T, m *layerstest.Machine, argv ...string) (int, string, string) {
	t.Helper()
	app, out, errb := machineApp(t, m)
	code := Main(context.Background(), argv, app, Options{})
	return code, out.String(), errb.String()
}

// lockedMachine has the admin anchor and a policy that locks out
// bypassPermissions and sets a minimum sandbox.
func lockedMachine(t *testing.T, fields map[string]any) *layerstest.Machine {
	m := layerstest.New(t)
	m.Anchor()
	if fields == nil {
		fields = map[string]any{"disable_bypass_permissions": true, "min_sandbox_mode": "workspace-write"}
	}
	m.Requirements(1, fields)
	return m
}

// mockModel configures machine m's project to talk to a scripted model.
func mockModel(t *testing.T, m *layerstest.Machine, extra string, turns ...providertest.Turn) *providertest.Server {
	srv := providertest.New(t, turns...)
	m.ProjectConfig(`{"provider": {"mock": {"type": "openai", "base_url": "` + srv.OpenAIURL() + `"}}, "model": "mock/m"` + extra + `}`)
	m.TrustProject()
	m.Env["OPENAI_API_KEY"] = "sk-test"
	return srv
}

// Every command that loads the configuration says on stderr what is wrong
// with it: the file, line, key, did-you-mean, and another agent's spelling.
func TestUnknownKeysOnStderrForEveryCommand(t *testing.T) {
	m := layerstest.New(t)
	user := m.UserConfig("{\n \"modle\": \"x/y\",\n \"mcpServers\": {}\n}")
	batch := filepath.Join(m.Root, "batch.txt")
	os.WriteFile(batch, []byte("ls\n"), 0o644)
	for _, argv := range [][]string{
		{"inspect"},
		{"inspect", "--json"},
		{"doctor"},
		{"doctor", "--json"},
		{"permission", "check", "bash", "ls"},
		{"permission", "check", "--batch", batch, "bash"},
		{"run", "hi"}, // no model: stops with exit 2 after loading the config
	} {
		t.Run(strings.Join(argv[:min(2, len(argv))], " "), func(t *testing.T) {
			_, _, stderr := run1(t, m, argv...)
			for _, want := range []string{
				"oceancode: warning: " + user + `:2:2: /modle: unknown key "modle" (did you mean "model"?`,
				"oceancode: warning: " + user + `:3:2: /mcpServers: unknown key "mcpServers"`,
				`"mcpServers" is Claude Code, Cursor and Gemini CLI (.mcp.json)'s spelling; OceanCode's equivalent: "mcp": {"servers": {…}} in this file`,
			} {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr)
				}
			}
		})
	}
	// doctor lists them as problems too.
	_, out, _ := run1(t, m, "doctor")
	if !strings.Contains(out, "Configuration  valid, with 2 warning(s) (below, under To look at)\n") || !strings.Contains(out, "  - warning: "+user+`:2:2: /modle: unknown key "modle"`) {
		t.Errorf("doctor does not list the unknown key:\n%s", out)
	}
}

// Another agent's permission vocabulary is not dropped (which would run
// under rules the file did not mean): the file is refused, loudly.
func TestPeerPermissionVocabularyRefusesSessions(t *testing.T) {
	m := layerstest.New(t)
	m.UserConfig("{\n  \"permissions\": {\"deny\": [\"Bash(rm:*)\"]}\n}")
	const hint = `"permissions" is Claude Code's spelling; OceanCode's equivalent: "permission" (rules by tool`
	code, _, stderr := run1(t, m, "permission", "check", "bash", "rm -rf build")
	if code != 3 || !strings.Contains(stderr, hint) {
		t.Errorf("permission check: exit %d, want 3 with the hint:\n%s", code, stderr)
	}
	code, out, _ := run1(t, m, "doctor")
	if code != 3 || !strings.Contains(out, hint) || !strings.Contains(out, "  - sessions are refused: the configuration has 1 error(s)") {
		t.Errorf("doctor: exit %d, want 3 listing the key:\n%s", code, out)
	}
	if code, out, _ := run1(t, m, "inspect"); code != 0 || !strings.Contains(out, hint) {
		t.Errorf("inspect: exit %d, want 0 showing the key:\n%s", code, out)
	}
}

// doctor exits as a session would while sessions are refused, and its
// problem line is a whole sentence with what to do.
func TestDoctorExitsNonZeroWhileSessionsAreRefused(t *testing.T) {
	m := lockedMachine(t, nil)
	if code, out, stderr := run1(t, m, "doctor"); code != 0 {
		t.Fatalf("healthy machine: exit %d\n%s%s", code, out, stderr)
	}
	req := filepath.Join(m.ManagedDir, "requirements.json")
	data, _ := os.ReadFile(req)
	os.WriteFile(req, bytes.Replace(data, []byte(`"payload": "`), []byte(`"payload": "x`), 1), 0o644)
	os.RemoveAll(m.Env["XDG_STATE_HOME"]) // no last-known-good policy
	code, out, stderr := run1(t, m, "doctor")
	if code != 4 {
		t.Errorf("exit %d, want 4 (requirements refused)\n%s", code, stderr)
	}
	var line string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "  - sessions are refused: ") {
			line = l
		}
	}
	if !strings.HasSuffix(line, "check it with 'oceanadmin verify'") || strings.HasSuffix(line, ":") {
		t.Errorf("the problem line is not a whole sentence: %q\n%s", line, out)
	}
	if code, _, _ := run1(t, m, "doctor", "--json"); code != 4 {
		t.Errorf("doctor --json: exit %d, want 4", code)
	}
	m.UserConfig(`{"permission_mode": "yolo"}`)
	os.Remove(req)
	os.Remove(filepath.Join(m.ManagedDir, "trusted_keys"))
	if code, _, _ := run1(t, m, "doctor"); code != 3 {
		t.Errorf("broken user config: exit %d, want 3", code)
	}
}

// doctor --policy claims only paths that exist, says each once, and a check
// that could not run says why instead of failing the lock.
func TestDoctorPolicyReportIsHonest(t *testing.T) {
	m := layerstest.Full(t)
	code, out, stderr := run1(t, m, "doctor", "--policy")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, stderr)
	}
	for _, bad := range []string{"bypassPermissions is bypassPermissions", "FAIL"} {
		if strings.Contains(out, bad) {
			t.Errorf("the report says %q:\n%s", bad, out)
		}
	}
	for _, want := range []string{
		"  PASS  mode bypassPermissions locked out, via agent definition: downgraded to default, and announced\n",
		"  PASS  mode bypassPermissions locked out, via flag --permission-mode: downgraded to default, and announced\n",
		"  PASS  mode bypassPermissions locked out, via live switch over the HTTP API (loopback): downgraded to default, and the answer says why: bypassPermissions is locked out by requirements",
		"  PASS  dangerous floor, via allow-all rule + bypassPermissions: rm -rf /: denied: ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}

	// Sessions refused: no check can run, and none is reported as broken.
	m.ProjectConfig(`{"permission_mode": "yolo"}`)
	code, out, _ = run1(t, m, "doctor", "--policy")
	if code != 3 {
		t.Errorf("exit %d, want 3", code)
	}
	if strings.Contains(out, "FAIL") || !strings.Contains(out, "  SKIP  dangerous floor, via allow-all rule + bypassPermissions: could not run: sessions are refused here: the configuration has 1 error(s)\n") {
		t.Errorf("a check that could not run is not said so:\n%s", out)
	}
	if !strings.Contains(out, " held, 0 broken, ") || !strings.Contains(out, " could not run\n") {
		t.Errorf("summary:\n%s", out)
	}
}

// A downgraded mode is in every decision of a batch, and on stderr.
func TestPermissionBatchCarriesModeNote(t *testing.T) {
	m := lockedMachine(t, nil)
	batch := filepath.Join(m.Root, "batch.txt")
	os.WriteFile(batch, []byte("ls\ngit push\n"), 0o644)
	code, out, stderr := run1(t, m, "permission", "check", "--mode", "bypassPermissions", "--batch", batch, "bash")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	const note = "permission mode bypassPermissions (from flag:--mode) is not available: bypassPermissions is locked out by requirements (disable_bypass_permissions); downgraded to default"
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2:\n%s", len(lines), out)
	}
	for _, l := range lines {
		var j checkJSON
		if err := json.Unmarshal([]byte(l), &j); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(j.ModeNote, note) || j.Mode != "default" {
			t.Errorf("mode %q, mode_note %q", j.Mode, j.ModeNote)
		}
	}
	if !strings.Contains(stderr, "oceancode: "+note) {
		t.Errorf("stderr lacks the note:\n%s", stderr)
	}
}

// streamEvents parses stream-json output.
func streamEvents(t *testing.T, out string) []map[string]any {
	t.Helper()
	var evs []map[string]any
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var e map[string]any
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("%v: %s", err, sc.Text())
		}
		evs = append(evs, e)
	}
	return evs
}

// Every downgrade is announced on stderr and as a mode_change event that
// follows start and carries its time.
func TestRunAnnouncesEveryDowngrade(t *testing.T) {
	tests := []struct {
		name      string
		extra     string // project config
		argv      []string
		stderr    string
		key, mode string
	}{
		{"flag", "", []string{"--permission-mode", "bypassPermissions"},
			"oceancode: permission mode bypassPermissions (from flag:--permission-mode) is not available: bypassPermissions is locked out by requirements (disable_bypass_permissions); downgraded to default\n",
			"permission_mode", "default"},
		{"agent definition", `, "agents": {"yolo": {"permission_mode": "bypassPermissions"}}`, []string{"--agent", "yolo"},
			"oceancode: permission mode bypassPermissions (from $PROJECT/.oceancode/oceancode.json:1:",
			"agents.yolo.permission_mode", "default"},
		{"refused --sandbox", "", []string{"--sandbox", "danger-full-access"},
			`oceancode: sandbox.mode "danger-full-access" (from flag:--sandbox) is not used: requirements set min_sandbox_mode "workspace-write"; "danger-full-access" confines less; using "workspace-write"` + "\n",
			"sandbox.mode", "workspace-write"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := lockedMachine(t, nil)
			mockModel(t, m, tt.extra, providertest.Text("hello"))
			argv := append(append([]string{"run", "--format", "stream-json"}, tt.argv...), "hi")
			before := time.Now().Add(-time.Minute)
			code, out, stderr := run1(t, m, argv...)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			if want := strings.ReplaceAll(tt.stderr, "$PROJECT", m.Project); !strings.Contains(stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, stderr)
			}
			evs := streamEvents(t, out)
			if len(evs) < 2 || evs[0]["type"] != "start" {
				t.Fatalf("first event is not start: %v", evs)
			}
			var mc map[string]any
			for _, e := range evs[1:] {
				if e["type"] == "mode_change" && e["key"] == tt.key {
					mc = e
				}
			}
			if mc == nil {
				t.Fatalf("no mode_change for %s after start:\n%s", tt.key, out)
			}
			if mc["mode"] != tt.mode || mc["text"] == "" {
				t.Errorf("mode_change = %v", mc)
			}
			at, err := time.Parse(time.RFC3339Nano, mc["time"].(string))
			if err != nil || at.Before(before) {
				t.Errorf("mode_change time %v (%v), want now", mc["time"], err)
			}
		})
	}
}

// Text output puts each turn's text on its own line; tool inputs are shown
// as written (">" is not "\u003e").
func TestRunTextOutput(t *testing.T) {
	m := layerstest.New(t)
	mockModel(t, m, "",
		providertest.Turn{Text: "Let me look first.", ToolCalls: []providertest.ToolCall{{ID: "c1", Name: "bash", Input: []byte(`{"command":"echo a > out.txt"}`)}}},
		providertest.Text("Now clean."))
	code, out, stderr := run1(t, m, "run", "--auto", "tidy up")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if out != "Let me look first.\nNow clean.\n" {
		t.Errorf("stdout = %q", out)
	}
	if !strings.Contains(stderr, `→ bash {"command":"echo a > out.txt"}`) || strings.Contains(stderr, `\u003e`) {
		t.Errorf("stderr:\n%s", stderr)
	}
	// The session record keeps the input as written too.
	ctx := context.Background()
	st, err := session.Open(ctx, filepath.Join(m.Env["XDG_STATE_HOME"], "oceancode", "sessions.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	list, _ := st.List(ctx, session.ListOptions{Limit: 1})
	evs, err := st.Events(ctx, list[0].ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range evs {
		if e.Type == "tool_call" {
			found = strings.Contains(string(e.Data), `echo a > out.txt`)
		}
	}
	if !found {
		t.Errorf("the recorded tool_call lacks the input as written: %v", evs)
	}
}

// --max-turns 0 is a usage error, and no model is called.
func TestRunMaxTurnsZeroIsUsage(t *testing.T) {
	m := layerstest.New(t)
	srv := mockModel(t, m, "", providertest.Text("hello"))
	for _, n := range []string{"0", "-1"} {
		code, _, stderr := run1(t, m, "run", "--max-turns", n, "hi")
		if code != 2 || !strings.Contains(stderr, "--max-turns "+n+": want 1 or more") {
			t.Errorf("--max-turns %s: exit %d\n%s", n, code, stderr)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d model request(s), want none", n)
	}
}

func TestInspectUnknownKey(t *testing.T) {
	m := layerstest.New(t)
	code, out, stderr := run1(t, m, "inspect", "nonexistent.key")
	if code != 2 || !strings.Contains(stderr, `inspect nonexistent.key: no such key: `) || !strings.Contains(stderr, `unknown key "nonexistent"`) || out != "" {
		t.Errorf("exit %d, stdout %q\n%s", code, out, stderr)
	}
	code, _, stderr = run1(t, m, "inspect", "sandbx.mode")
	if code != 2 || !strings.Contains(stderr, `did you mean "sandbox"?`) {
		t.Errorf("exit %d\n%s", code, stderr)
	}
	// A key the schema knows that no layer sets is not an error.
	code, _, stderr = run1(t, m, "inspect", "limits.max_turns")
	if code != 0 || !strings.Contains(stderr, "inspect limits.max_turns: no layer sets this key") {
		t.Errorf("exit %d\n%s", code, stderr)
	}
	if code, _, stderr := run1(t, m, "inspect", "sandbox"); code != 0 || stderr != "" {
		t.Errorf("inspect sandbox: exit %d\n%s", code, stderr)
	}
}

// session close leaves a session that ended as it ended, and says so.
func TestSessionCloseLeavesEndedSessions(t *testing.T) {
	m := layerstest.New(t)
	mockModel(t, m, "", providertest.Text("hello"))
	if code, _, stderr := run1(t, m, "run", "hi"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	ctx := context.Background()
	db := filepath.Join(m.Env["XDG_STATE_HOME"], "oceancode", "sessions.db")
	st, err := session.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	list, err := st.List(ctx, session.ListOptions{})
	st.Close()
	if err != nil || len(list) != 1 || list[0].Status != session.Completed {
		t.Fatalf("sessions %v, %v", list, err)
	}
	id := list[0].ID
	code, out, stderr := run1(t, m, "session", "close", id)
	if code != 0 || !strings.Contains(out, "left "+id+" as it is: it is completed, not running") {
		t.Errorf("exit %d, stdout %q\n%s", code, out, stderr)
	}
	st, _ = session.Open(ctx, db)
	defer st.Close()
	if s, err := st.Get(ctx, id); err != nil || s.Status != session.Completed {
		t.Errorf("after close: %v, %v", s, err)
	}
}

// The docs name the crash report directory doctor reads.
func TestCrashDirInDocs(t *testing.T) {
	t.Parallel()
	dir := filepath.Base(crashDir(&App{Getenv: func(k string) string { return map[string]string{"XDG_STATE_HOME": "/state"}[k] }}))
	for _, doc := range []string{"sessions.md", "runtime.md"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", doc))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "oceancode/"+dir+"/") {
			t.Errorf("docs/%s does not name $XDG_STATE_HOME/oceancode/%s/", doc, dir)
		}
		if dir != "crash" && strings.Contains(string(b), "oceancode/crash/") {
			t.Errorf("docs/%s names oceancode/crash/", doc)
		}
	}
}
