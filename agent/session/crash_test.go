package session

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestScrub(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"anthropic key", "key sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz012345-_x end", "key [REDACTED] end"},
		{"openai project key", "sk-proj-abcdefghijklmnopqrstuvwxyz0123", "[REDACTED]"},
		{"github token", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "[REDACTED]"},
		{"github fine-grained", "github_pat_11ABCDEFG0123456789_abcdefghijklmnop", "[REDACTED]"},
		{"slack", "xoxb-123456789012-abcdefghijkl", "[REDACTED]"},
		{"aws key id", "AKIAIOSFODNN7EXAMPLE", "[REDACTED]"},
		{"google key", "AIzaSyA-abcdefghijklmnopqrstuvwxyz012345", "[REDACTED]"},
		{"jwt", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NSJ9.c2lnbmF0dXJlX2hlcmU", "[REDACTED]"},
		{"bearer header", "Authorization: Bearer abcdef0123456789", "Authorization: [REDACTED] [REDACTED]"},
		{"assignment", "OPENAI_API_KEY=not-a-known-shape-1234 rest", "OPENAI_API_KEY=[REDACTED] rest"},
		{"json field", `{"token": "s3cr3t-value", "user": "me"}`, `{"token": "[REDACTED]", "user": "me"}`},
		{"password", "password: hunter2hunter2", "password: [REDACTED]"},
		{"private key", "x -----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\nBBBB\n-----END OPENSSH PRIVATE KEY----- y", "x [REDACTED] y"},
		{"key in its own assignment", "api_key=sk-ant-api03-abcdefghijklmnopqrstuvwxyz", "api_key=[REDACTED]"},
		{"plain stack untouched", "goroutine 1 [running]:\nmain.main()\n\t/src/token.go:12 +0x1d\npanic: index out of range [3] with length 2", "goroutine 1 [running]:\nmain.main()\n\t/src/token.go:12 +0x1d\npanic: index out of range [3] with length 2"},
		{"short values kept", "token=abc", "token=abc"},
		{"words kept", "the sk- prefix and tokenizer: fine", "the sk- prefix and tokenizer: fine"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Scrub(tc.in); got != tc.want {
				t.Errorf("Scrub(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestCrashReportFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "crash")
	if got, err := CrashReports(dir); err != nil || len(got) != 0 {
		t.Fatalf("missing dir: %v, %v", got, err)
	}
	t0 := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	older, err := WriteCrashReport(dir, CrashReport{Time: t0, Version: "v1.0.0", SessionID: "ses_a", Panic: "first line\nsecond", Stack: "goroutine 1"})
	if err != nil {
		t.Fatal(err)
	}
	newer, err := WriteCrashReport(dir, CrashReport{Time: t0.Add(time.Hour), Version: "v1.0.1", Panic: "sk-ant-api03-abcdefghijklmnopqrstuvwxyz in panic", Stack: "token=abcdefghij"})
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" {
		for p, want := range map[string]os.FileMode{dir: 0o700, older: 0o600} {
			if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
				t.Errorf("%s: %v %v, want mode %v", p, fi.Mode(), err, want)
			}
		}
	}
	b, _ := os.ReadFile(newer)
	var r CrashReport
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if r.Format != CrashFormat || r.PID != os.Getpid() || r.GoVersion != runtime.Version() || r.OS != runtime.GOOS {
		t.Errorf("report %+v", r)
	}
	if strings.Contains(string(b), "sk-ant") || strings.Contains(string(b), "abcdefghij") {
		t.Errorf("secret written: %s", b)
	}
	// Junk with a crash report's name is listed with a problem.
	junk := filepath.Join(dir, "crash-junk.json")
	os.WriteFile(junk, []byte("{"), 0o600)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o600)

	list, err := CrashReports(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 3 {
		t.Fatalf("%d reports: %+v", len(list), list)
	}
	// The junk file's time is its mtime (now), so it sorts first.
	if list[0].Path != junk || list[0].Problem == "" {
		t.Errorf("list[0] = %+v, want the junk file with a problem", list[0])
	}
	if list[1].Path != newer || list[2].Path != older {
		t.Errorf("order %s, %s; want newer then older", list[1].Path, list[2].Path)
	}
	if l := list[2]; l.Version != "v1.0.0" || l.SessionID != "ses_a" || l.Panic != "first line" || !l.Time.Equal(t0) {
		t.Errorf("info %+v", l)
	}

	if err := RemoveCrashReport(filepath.Join(dir, "notes.txt")); err == nil {
		t.Error("removed a file not named like a crash report")
	}
	for _, p := range []string{older, newer, junk} {
		if err := RemoveCrashReport(p); err != nil {
			t.Fatal(err)
		}
	}
	if list, _ := CrashReports(dir); len(list) != 0 {
		t.Errorf("left: %+v", list)
	}
}

// TestRecoverInChild: a child process panics under a deferred Recover. It
// must die of the panic (non-zero exit, the panic on stderr) and leave one
// crash report with the stack, the version, the session id, and no secret.
func TestRecoverInChild(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "crash")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=panic", "CHILD_ARG="+dir)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Fatalf("child exit: %v, want exit status 2 (a panic)\n%s", err, out)
	}
	if !strings.Contains(string(out), "panic: boom") || !strings.Contains(string(out), "crash report written to "+dir) {
		t.Errorf("child output:\n%s", out)
	}
	list, err := CrashReports(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 {
		t.Fatalf("%d crash reports, want 1", len(list))
	}
	b, err := os.ReadFile(list[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	var r CrashReport
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if r.Version != "v9.9.9-test" || r.SessionID != "ses_child" || r.PID != cmd.Process.Pid {
		t.Errorf("report fields %+v", r)
	}
	if !strings.HasPrefix(r.Panic, "boom: the key was [REDACTED]") || !strings.Contains(r.Panic, "token=[REDACTED]") {
		t.Errorf("panic %q", r.Panic)
	}
	if !strings.Contains(r.Stack, "goroutine ") || !strings.Contains(r.Stack, "childPanics") {
		t.Errorf("stack lacks the panicking frame:\n%s", r.Stack)
	}
	if strings.Contains(string(b), "sk-ant-api03") || strings.Contains(string(b), "hunter2") {
		t.Errorf("secret in the report:\n%s", b)
	}
}

func TestRecoverWithoutPanic(t *testing.T) {
	dir := t.TempDir()
	func() { defer Recover(dir, "v", func() string { return "s" }) }()
	if list, _ := CrashReports(dir); len(list) != 0 {
		t.Errorf("report without a panic: %+v", list)
	}
}
