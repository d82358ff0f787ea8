package hooks

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/oceancode/oceancode/agent/childenv"
	"github.com/oceancode/oceancode/agent/sandbox"
	"github.com/oceancode/oceancode/agent/sandbox/sandboxtest"
	"github.com/oceancode/oceancode/internal/hermetictest"
	"github.com/oceancode/oceancode/provenance"
)

// The test binary doubles as the sandbox helper, so hooks run through the
// supervisor (and the sandbox) for real.
func TestMain(m *testing.M) {
	sandboxtest.ServeHelper()
	code := m.Run()
	sandboxtest.Cleanup()
	os.Exit(code)
}

var userOrigin = provenance.Origin{Layer: provenance.User, Source: "/home/u/.config/oceancode/oceancode.json", Line: 4, Column: 7}

// runner returns a Runner in a fresh directory with one hook per command
// (all on event, matcher m).
func runner(t *testing.T, event Event, m string, cmds ...string) *Runner {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	g := Group{Matcher: m}
	for _, c := range cmds {
		g.Hooks = append(g.Hooks, Command{Type: "command", Command: c})
	}
	hs, err := Parse(string(event), 0, g, userOrigin)
	if err != nil {
		t.Fatal(err)
	}
	return &Runner{Hooks: hs, Dir: dir, ProjectRoot: dir, Env: childenv.Compose(os.Environ(), childenv.Config{})}
}

func TestMatcher(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		matcher string
		tool    string
		want    bool
	}{
		{"", "bash", true},
		{"*", "mcp__gh__issue", true},
		{"bash", "bash", true},
		{"Bash", "bash", true}, // Claude's name for it
		{"Bash", "read", false},
		{"Edit|Write", "write", true},
		{"Edit|Write", "apply_patch", true},
		{"Edit|Write", "edit", true},
		{"Edit|Write", "bash", false},
		{"edit", "editor", false}, // exact, not a substring
		{"mcp__gh__.*", "mcp__gh__issue", true},
		{"mcp__gh__.*", "mcp__other__issue", false},
		{"Notebook.*", "read", false},
		{"bash", "Bash", false}, // case-sensitive
	} {
		hs, err := Parse("PreToolUse", 0, Group{Matcher: tc.matcher, Hooks: []Command{{Type: "command", Command: "true"}}}, userOrigin)
		if err != nil {
			t.Fatal(err)
		}
		if got := hs[0].Matches(tc.tool); got != tc.want {
			t.Errorf("matcher %q on %q = %v, want %v", tc.matcher, tc.tool, got, tc.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		event string
		g     Group
		want  string
	}{
		{"PreToolUse", Group{Matcher: "(", Hooks: []Command{{Type: "command", Command: "x"}}}, `hooks.PreToolUse[0].matcher "(" at /home/u/.config/oceancode/oceancode.json:4:7: not a regular expression`},
		{"PreToolUse", Group{Hooks: []Command{{Type: "prompt", Command: "x"}}}, `only "command" hooks run here`},
		{"PreToolUse", Group{Hooks: []Command{{Type: "command", Command: " "}}}, "command is empty"},
		{"PreToolUse", Group{Hooks: []Command{{Type: "command", Command: "x", Timeout: 9999}}}, "timeout 9999"},
		{"SubagentStop", Group{}, "unknown event"},
	} {
		_, err := Parse(tc.event, 0, tc.g, userOrigin)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%s, %+v) = %v, want an error containing %q", tc.event, tc.g, err, tc.want)
		}
	}
}

// A hook reads the event on stdin in Claude Code's field names.
func TestInputOnStdin(t *testing.T) {
	t.Parallel()
	r := runner(t, PreToolUse, "Bash", `cat > "$OCEANCODE_PROJECT_DIR/in.json"; test "$CLAUDE_PROJECT_DIR" = "$OCEANCODE_PROJECT_DIR"`)
	r.SetSession("s-1", "/t.jsonl")
	res := r.Fire(context.Background(), Input{Event: PreToolUse, ToolName: "bash", ToolInput: json.RawMessage(`{"command":"ls"}`), ToolUseID: "c1", PermissionMode: "default"})
	if len(res.Runs) != 1 || res.Runs[0].Exit != 0 || res.Decision != "" || len(res.Notes) != 0 {
		t.Fatalf("result %+v", res)
	}
	b, err := os.ReadFile(filepath.Join(r.Dir, "in.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"session_id": "s-1", "transcript_path": "/t.jsonl", "cwd": r.Dir, "permission_mode": "default",
		"hook_event_name": "PreToolUse", "tool_name": "bash", "claude_tool_name": "Bash",
		"tool_input": map[string]any{"command": "ls"}, "tool_use_id": "c1"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("stdin (-want +got):\n%s", d)
	}
}

func TestExitCodes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		event   Event
		cmd     string
		want    string // decision
		reason  string
		note    string
		context string
	}{
		{"exit 2 denies a tool call", PreToolUse, `echo "no rm here" >&2; exit 2`, Deny, "no rm here", "", ""},
		{"exit 2 blocks a prompt", UserPromptSubmit, `echo "not that" >&2; exit 2`, Block, "not that", "", ""},
		{"exit 2 blocks a stop", Stop, `echo "tests fail" >&2; exit 2`, Block, "tests fail", "", ""},
		{"exit 2 at session start tells the user", SessionStart, `echo "hm" >&2; exit 2`, "", "", "hm", ""},
		{"exit 1 is a non-blocking error", PreToolUse, `echo "oops" >&2; exit 1`, "", "", "exit status 1: oops", ""},
		{"plain stdout of a prompt hook is context", UserPromptSubmit, `echo "branch main"`, "", "", "", "branch main"},
		{"plain stdout of a tool hook is not", PreToolUse, `echo "chatter"`, "", "", "", ""},
		{"JSON deny", PreToolUse, `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"policy"}}'`, Deny, "policy", "", ""},
		{"JSON ask", PreToolUse, `echo '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"check"}}'`, Ask, "check", "", ""},
		{"JSON allow", PreToolUse, `echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'`, Allow, "", "", ""},
		{"legacy block on PreToolUse denies", PreToolUse, `echo '{"decision":"block","reason":"old"}'`, Deny, "old", "", ""},
		{"legacy approve allows", PreToolUse, `echo '{"decision":"approve"}'`, Allow, "", "", ""},
		{"PostToolUse block and context", PostToolUse, `echo '{"decision":"block","reason":"lint failed","hookSpecificOutput":{"additionalContext":"run gofmt"}}'`, Block, "lint failed", "", "run gofmt"},
		{"systemMessage reaches the user", Notification, `echo '{"systemMessage":"pinged"}'`, "", "", "pinged", ""},
		{"bad JSON is a note", PreToolUse, `echo '{nope'`, "", "", "does not parse", ""},
		{"escape sequences are removed", PreToolUse, `printf 'bad\033[2Jthing' >&2; exit 2`, Deny, "badthing", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runner(t, tc.event, "", tc.cmd)
			res := r.Fire(context.Background(), Input{Event: tc.event, ToolName: "bash"})
			if res.Decision != tc.want || res.Reason != tc.reason {
				t.Errorf("decision %q %q, want %q %q (%+v)", res.Decision, res.Reason, tc.want, tc.reason, res)
			}
			if tc.want != "" && (res.By == nil || res.By.Origin != userOrigin) {
				t.Errorf("By = %+v, want the hook with its origin", res.By)
			}
			notes := strings.Join(res.Notes, "\n")
			if (tc.note == "") != (notes == "") || !strings.Contains(notes, tc.note) {
				t.Errorf("notes %q, want %q", notes, tc.note)
			}
			if got := strings.Join(res.Context, "\n"); got != tc.context {
				t.Errorf("context %q, want %q", got, tc.context)
			}
		})
	}
}

// continue:false stops the session; a deny ends the event early; the
// strongest decision wins.
func TestFold(t *testing.T) {
	t.Parallel()
	r := runner(t, PreToolUse, "", `echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'`,
		`echo '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"look"}}'`,
		`echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'`)
	res := r.Fire(context.Background(), Input{Event: PreToolUse, ToolName: "bash"})
	if res.Decision != Ask || res.Reason != "look" || res.By.Index != 1 || len(res.Runs) != 3 {
		t.Errorf("ask should win over allow: %+v", res)
	}
	r = runner(t, PreToolUse, "", `exit 2`, `touch ran`)
	res = r.Fire(context.Background(), Input{Event: PreToolUse, ToolName: "bash"})
	if res.Decision != Deny || len(res.Runs) != 1 {
		t.Errorf("a deny should end the event: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(r.Dir, "ran")); err == nil {
		t.Error("the hook after a deny ran")
	}
	r = runner(t, Stop, "", `echo '{"continue":false,"stopReason":"budget spent"}'`)
	res = r.Fire(context.Background(), Input{Event: Stop})
	if !res.Stop || res.StopReason != "budget spent" {
		t.Errorf("continue:false: %+v", res)
	}
}

// A hook that outlives its timeout is killed with its whole process tree;
// the event goes on (a non-blocking error, as in Claude Code).
func TestTimeoutKillsTree(t *testing.T) {
	t.Parallel()
	r := runner(t, PreToolUse, "", `(sleep 300; touch "$OCEANCODE_PROJECT_DIR/child-survived") & echo $! > "$OCEANCODE_PROJECT_DIR/pid"; sleep 300`)
	// The timeout must pass only after the hook wrote its child's pid: 3 s
	// leaves a busy machine room to start a shell (it was 500 ms); the
	// hook itself would sleep 300 s.
	r.Hooks[0].Timeout = 3 * time.Second
	res := r.Fire(context.Background(), Input{Event: PreToolUse, ToolName: "bash"})
	if res.Decision != "" || len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "timed out after 3s; its process tree was killed") {
		t.Fatalf("result %+v", res)
	}
	b, err := os.ReadFile(filepath.Join(r.Dir, "pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid := strings.TrimSpace(string(b))
	if _, err := os.Stat("/proc/" + pid); err == nil {
		st, _ := os.ReadFile("/proc/" + pid + "/stat")
		if !strings.Contains(string(st), ") Z ") {
			t.Errorf("the hook's background child %s is still running", pid)
		}
	}
}

// Output past the cap is cut, and says so.
func TestOutputCap(t *testing.T) {
	t.Parallel()
	r := runner(t, PreToolUse, "", `head -c 200000 /dev/zero | tr '\0' x >&2; exit 2`)
	res := r.Fire(context.Background(), Input{Event: PreToolUse, ToolName: "bash"})
	if len(res.Reason) > OutputLimit+100 || !strings.HasSuffix(res.Reason, "[134464 bytes cut]") {
		t.Errorf("reason of %d bytes ends %q", len(res.Reason), res.Reason[max(0, len(res.Reason)-40):])
	}
}

func TestClaudeInput(t *testing.T) {
	t.Parallel()
	got := string(ClaudeInput(json.RawMessage(`{"path":"a/b.go","content":"x"}`), "/p"))
	if got != `{"content":"x","file_path":"/p/a/b.go","path":"a/b.go"}` {
		t.Errorf("ClaudeInput = %s", got)
	}
	if got := string(ClaudeInput(json.RawMessage(`{"command":"ls"}`), "/p")); got != `{"command":"ls"}` {
		t.Errorf("ClaudeInput without path = %s", got)
	}
}

// With the sandbox on, a hook runs confined: it writes in the workspace,
// not outside it (checked on the host).
func TestConfined(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Fatalf("bubblewrap (bwrap) is required for the confined hook test: %v", err)
	}
	t.Setenv("HOME", hermetictest.New(t).Home)
	outside, err := os.MkdirTemp("/var/tmp", "oc-hooks-outside-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(outside) })
	r := runner(t, PreToolUse, "", `echo in > inside.txt; echo x > `+outside+`/escape.txt || echo refused >&2; exit 2`)
	r.Sandbox = sandbox.Policy{Enabled: true}
	res := r.Fire(context.Background(), Input{Event: PreToolUse, ToolName: "bash"})
	if res.Decision != Deny || !strings.Contains(res.Reason, "refused") {
		t.Fatalf("result %+v", res)
	}
	if _, err := os.Stat(filepath.Join(r.Dir, "inside.txt")); err != nil {
		t.Errorf("the confined hook could not write in the workspace: %v", err)
	}
	if _, err := os.Stat(filepath.Join(outside, "escape.txt")); err == nil {
		t.Error("the confined hook wrote outside the workspace")
	}
}
