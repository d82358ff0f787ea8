package tools

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/oceancode/oceancode/agent/sandbox"
	"github.com/oceancode/oceancode/internal/hermetictest"
)

func TestBash(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	r := mustOK(t, run(t, BashTool{}, env, obj{"command": "echo out; echo err >&2; echo out2; pwd"}))
	want := "out\nerr\nout2\n" + env.Cwd + "\n"
	if r.Content != want {
		t.Errorf("output = %q, want %q (stdout and stderr merged in order)", r.Content, want)
	}
	if r.Meta["exit_status"] != 0 || r.Meta["sandboxed"] != false {
		t.Errorf("meta = %v", r.Meta)
	}

	r = run(t, BashTool{}, env, obj{"command": "echo failing; exit 2"})
	if r.Content != "failing\nexit status 2" || r.Meta["exit_status"] != 2 {
		t.Errorf("exit 2: %q %v", r.Content, r.Meta)
	}
	if r = run(t, BashTool{}, env, obj{"command": "true"}); r.Content != "(no output)" {
		t.Errorf("no output: %q", r.Content)
	}
	// stdin is /dev/null: cat does not wait for input.
	if r = run(t, BashTool{}, env, obj{"command": "cat; echo done", "timeout_s": 5}); r.Content != "done\n" {
		t.Errorf("stdin: %q", r.Content)
	}
	// A relative path is relative to the session's working directory.
	sub := filepath.Join(env.Cwd, "sub")
	os.Mkdir(sub, 0o755)
	env2 := *env
	env2.Cwd = sub
	if r = run(t, BashTool{}, &env2, obj{"command": "touch made"}); r.IsError {
		t.Fatal(r.Content)
	}
	if _, err := os.Stat(filepath.Join(sub, "made")); err != nil {
		t.Errorf("the command did not run in Cwd: %v", err)
	}
}

// TestBashSecretEnv: a secret-named variable of the agent's environment is
// not in the child's.
func TestBashSecretEnv(t *testing.T) {
	t.Setenv("OC_TEST_API_KEY", "sk-live-123")
	t.Setenv("OC_TEST_PLAIN", "visible")
	env := testEnv(t) // composes the child environment from os.Environ()
	r := mustOK(t, run(t, BashTool{}, env, obj{"command": "echo key=$OC_TEST_API_KEY plain=$OC_TEST_PLAIN; env | grep -c sk-live || true"}))
	if r.Content != "key= plain=visible\n0\n" {
		t.Errorf("child saw %q", r.Content)
	}
	// A nil ChildEnv is an empty environment, never the agent's own.
	env.ChildEnv = nil
	r = mustOK(t, run(t, BashTool{}, env, obj{"command": "echo plain=$OC_TEST_PLAIN"}))
	if r.Content != "plain=\n" {
		t.Errorf("nil ChildEnv leaked the parent environment: %q", r.Content)
	}
}

// alive reports whether pid is a live (not zombie) process, from /proc.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute) // a hang guard: the kill was sent
	for alive(pid) {
		if time.Now().After(deadline) {
			syscallKill(pid)
			t.Fatalf("process %d is still running after the command returned", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func syscallKill(pid int) { exec.Command("kill", "-9", strconv.Itoa(pid)).Run() }

func bgPid(t *testing.T, path string) int {
	t.Helper()
	pid, err := strconv.Atoi(strings.TrimSpace(readFile(t, path)))
	if err != nil {
		t.Fatalf("pid file: %v", err)
	}
	return pid
}

// TestBashTimeoutKillsGroup: on timeout the whole process group goes,
// including a background child, checked in the host's /proc.
func TestBashTimeoutKillsGroup(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	start := time.Now()
	r := run(t, BashTool{}, env, obj{"command": "sleep 100 & echo $! > " + pidFile + "; echo started; sleep 100", "timeout_s": 1})
	// Well below the 100 s the command would run, far above 1 s: a hang
	// guard that a busy machine does not trip.
	if d := time.Since(start); d > 60*time.Second {
		t.Errorf("the call took %v with a 1 s timeout", d)
	}
	mustErr(t, r)
	if !strings.HasPrefix(r.Content, "started\n") || !strings.Contains(r.Content, "timed out after 1s") || r.Meta["timed_out"] != true {
		t.Errorf("result = %q %v", r.Content, r.Meta)
	}
	waitGone(t, bgPid(t, pidFile))

	// Env.BashTimeout applies when the call names none.
	env.BashTimeout = 300 * time.Millisecond
	r = run(t, BashTool{}, env, obj{"command": "sleep 100"})
	if !strings.Contains(r.Content, "timed out after 300ms") {
		t.Errorf("Env.BashTimeout: %q", r.Content)
	}
}

// TestBashBackgroundChildKilledOnReturn: a call does not wait for, nor
// leave behind, a background child.
func TestBashBackgroundChildKilledOnReturn(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	start := time.Now()
	r := mustOK(t, run(t, BashTool{}, env, obj{"command": "sleep 100 & echo $! > " + pidFile + "; echo bye"}))
	if d := time.Since(start); d > 60*time.Second { // the child sleeps 100 s
		t.Errorf("the call waited %v for its background child", d)
	}
	if r.Content != "bye\n" {
		t.Errorf("output %q", r.Content)
	}
	waitGone(t, bgPid(t, pidFile))
}

func TestBashCancel(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for {
			if _, err := os.Stat(pidFile); err == nil {
				cancel()
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	r := BashTool{}.Run(ctx, env, in(t, obj{"command": "sleep 100 & echo $! > " + pidFile + "; wait"}))
	if !r.IsError || r.Meta["cancelled"] != true {
		t.Errorf("cancelled run = %q %v", r.Content, r.Meta)
	}
	waitGone(t, bgPid(t, pidFile))
}

func TestBashTruncation(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	env.OutputLimit = 1000
	r := mustOK(t, run(t, BashTool{}, env, obj{"command": "echo BEGIN; head -c 100000 /dev/zero | tr '\\0' x; echo; echo END"}))
	if !strings.HasPrefix(r.Content, "BEGIN\n") || !strings.HasSuffix(r.Content, "END\n") {
		t.Errorf("head and tail not kept: %q…%q", r.Content[:20], r.Content[len(r.Content)-20:])
	}
	omitted := r.Meta["truncated_bytes"].(int)
	total := len("BEGIN\n") + 100000 + 1 + len("END\n")
	if omitted != total-1000 || !strings.Contains(r.Content, "[… "+strconv.Itoa(omitted)+" bytes omitted …]") {
		t.Errorf("omitted %d (want %d): %q", omitted, total-1000, r.Content)
	}
	if len(r.Content) > 1100 {
		t.Errorf("output is %d bytes with a 1000-byte limit", len(r.Content))
	}
}

// confinedEnv is a session with the sandbox on (workspace-write, no
// network). bubblewrap must be installed: the test fails, not skips. The
// sandbox masks the credential stores of the process's home: a fake one,
// so the real home is never looked at.
func confinedEnv(t *testing.T) *Env {
	t.Helper()
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Fatalf("bubblewrap (bwrap) is required for the confined bash tests: %v", err)
	}
	t.Setenv("HOME", hermetictest.New(t).Home)
	env := testEnv(t)
	env.Sandbox = sandbox.Policy{Enabled: true}
	return env
}

// TestBashConfined: a confined command writes in the workspace but not
// outside it, checked on the host.
func TestBashConfined(t *testing.T) {
	env := confinedEnv(t)
	outside, err := os.MkdirTemp("/var/tmp", "oc-tools-outside-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(outside) })
	tmpOutside := t.TempDir() // under /tmp: a private tmpfs inside the sandbox
	cmd := "echo in > inside.txt && echo wrote-inside; " +
		"echo x > " + outside + "/escape.txt || echo refused-outside; " +
		"echo x > " + tmpOutside + "/escape.txt 2>/dev/null; " +
		"echo x > ../escape-parent.txt 2>/dev/null" // the parent is in the private /tmp
	r := run(t, BashTool{}, env, obj{"command": cmd})
	if r.Meta["sandboxed"] != true {
		t.Fatalf("not sandboxed: %q %v", r.Content, r.Meta)
	}
	for _, want := range []string{"wrote-inside", "refused-outside"} {
		if !strings.Contains(r.Content, want) {
			t.Errorf("output lacks %q:\n%s", want, r.Content)
		}
	}
	if got := readFile(t, filepath.Join(env.Cwd, "inside.txt")); got != "in\n" {
		t.Errorf("inside.txt = %q", got)
	}
	for _, p := range []string{outside + "/escape.txt", tmpOutside + "/escape.txt", filepath.Join(filepath.Dir(env.Cwd), "escape-parent.txt")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("the confined command wrote %s on the host", p)
		}
	}
}

// TestBashConfinedTimeout: the group kill reaches a confined command.
func TestBashConfinedTimeout(t *testing.T) {
	env := confinedEnv(t)
	start := time.Now()
	r := run(t, BashTool{}, env, obj{"command": "sleep 100 & sleep 100", "timeout_s": 1})
	if d := time.Since(start); d > 60*time.Second { // the commands sleep 100 s
		t.Errorf("the confined call took %v with a 1 s timeout", d)
	}
	if !strings.Contains(r.Content, "timed out") {
		t.Errorf("result %q", r.Content)
	}
}

// TestBashRefusesUnconfinable: a confined policy the sandbox cannot set up
// refuses the command; it never runs unconfined.
func TestBashRefusesUnconfinable(t *testing.T) {
	env := confinedEnv(t)
	env.Sandbox.Network = sandbox.NetworkAllowlist // and no egress proxy
	env.Sandbox.AllowHosts = []string{"example.com"}
	marker := filepath.Join(env.Cwd, "ran")
	r := mustErr(t, run(t, BashTool{}, env, obj{"command": "touch " + marker}))
	if !strings.Contains(r.Content, "not run") || !strings.Contains(r.Content, "egress") {
		t.Errorf("refusal = %q", r.Content)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the command ran although it could not be confined")
	}
}

// TestBashTreeGoneOnReturn: when the tool returns, none of the command's
// processes is alive — background, setsid, nohup and double-forked ones —
// with the sandbox off (the supervisor) and on (the PID namespace). No
// grace period: checked at once.
func TestBashTreeGoneOnReturn(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  func(*testing.T) *Env
	}{
		{"sandbox-off", func(t *testing.T) *Env { return testEnv(t) }},
		{"sandbox-on", confinedEnv},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := tc.env(t)
			cmd := "setsid sleep 83.1 > /dev/null 2>&1 & nohup sleep 83.2 > /dev/null 2>&1 & ( sleep 83.3 > /dev/null 2>&1 & ) ; echo bye"
			for i := 0; i < 3; i++ {
				r := mustOK(t, run(t, BashTool{}, env, obj{"command": cmd}))
				if r.Content != "bye\n" {
					t.Fatalf("output %q", r.Content)
				}
				if left := liveSleeps("83.1", "83.2", "83.3"); len(left) > 0 {
					for _, p := range left {
						syscallKill(p)
					}
					t.Fatalf("run %d: alive after the call returned: %v", i, left)
				}
			}
		})
	}
}

// liveSleeps lists the live (not zombie) `sleep ARG` processes on the host.
func liveSleeps(args ...string) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		for _, a := range args {
			if string(cmdline) == "sleep\x00"+a+"\x00" && alive(pid) {
				out = append(out, pid)
			}
		}
	}
	return out
}
