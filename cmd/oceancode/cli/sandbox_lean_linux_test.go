package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/agent/sandbox"
	"github.com/oceancode/oceancode/internal/exechelper"
	"github.com/oceancode/oceancode/internal/hermetictest"
)

// TestSandboxLeanHelper builds oceancode, oceancode-sandbox and the exec
// helper side by side, as make build installs them, and checks a confined
// command runs through the exec helper, and through the lean Go helper
// when the exec helper is not installed: the workspace is writable, the
// host outside it is not.
func TestSandboxLeanHelper(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Fatal("bubblewrap is missing: run scripts/install-bwrap.sh")
	}
	dir := t.TempDir()
	for pkg, name := range map[string]string{"./../../oceancode": "oceancode", "./../../oceancode-sandbox": sandbox.HelperBinary} {
		hermetictest.GoBuild(t, filepath.Join(dir, name), pkg)
	}
	built, err := exechelper.Build()
	if err != nil {
		t.Fatal(err)
	}
	execHelper := filepath.Join(dir, sandbox.ExecHelperBinary)
	data, err := os.ReadFile(built)
	if err != nil {
		t.Fatal(err)
	}
	user := hermetictest.New(t)
	base := hermetictest.Scratch(t)
	ws := filepath.Join(base, "ws")
	os.MkdirAll(ws, 0o755)
	outside := filepath.Join(base, "outside.txt")

	// standIn proves which sibling is the helper actually used: a stand-in
	// that only exits 99 must make the confined command fail with 99.
	standIn := func(helper string) {
		t.Helper()
		real, _ := os.ReadFile(helper)
		if err := os.WriteFile(helper, []byte("#!/bin/sh\nexit 99\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		probe := exec.Command(filepath.Join(dir, "oceancode"), "sandbox", "--", "true")
		probe.Dir, probe.Env = ws, user.Env(os.Environ())
		if out, err := probe.CombinedOutput(); err == nil || probe.ProcessState.ExitCode() != 99 {
			t.Fatalf("with a stand-in %s beside oceancode: exit %d (%v), want 99: the sibling was not used\n%s", filepath.Base(helper), probe.ProcessState.ExitCode(), err, out)
		}
		if err := os.WriteFile(helper, real, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	confines := func(name string) {
		t.Helper()
		os.Remove(outside)
		os.Remove(filepath.Join(ws, "inside.txt"))
		cmd := exec.Command(filepath.Join(dir, "oceancode"), "sandbox", "--", "sh", "-c", "echo in > inside.txt; echo out > "+outside)
		cmd.Dir = ws
		cmd.Env = user.Env(os.Environ())
		var buf bytes.Buffer
		cmd.Stdout, cmd.Stderr = &buf, &buf
		err := cmd.Run()
		if _, statErr := os.Stat(filepath.Join(ws, "inside.txt")); statErr != nil {
			t.Fatalf("%s: the workspace was not writable: %v\n%s", name, statErr, buf.String())
		}
		if _, statErr := os.Stat(outside); statErr == nil {
			t.Fatalf("%s: a file outside the workspace was written (err %v)\n%s", name, err, buf.String())
		}
		if err == nil || !strings.Contains(buf.String(), "Read-only file system") {
			t.Errorf("%s: want the write outside to fail with EROFS; err %v, output:\n%s", name, err, buf.String())
		}
	}

	// The lean Go helper alone (no exec helper installed).
	standIn(filepath.Join(dir, sandbox.HelperBinary))
	confines("the Go helper")
	// With the exec helper beside it, the exec helper runs the command.
	if err := os.WriteFile(execHelper, data, 0o755); err != nil {
		t.Fatal(err)
	}
	standIn(execHelper)
	confines("the exec helper")
	// doctor names both.
	doc := exec.Command(filepath.Join(dir, "oceancode"), "doctor", "--json")
	doc.Dir, doc.Env = ws, user.Env(os.Environ())
	out, _ := doc.Output()
	if !strings.Contains(string(out), `"exec": "`+execHelper+`"`) || !strings.Contains(string(out), `"go": "`+filepath.Join(dir, sandbox.HelperBinary)+`"`) {
		t.Errorf("doctor --json does not name both helpers:\n%s", out)
	}
	if strings.Contains(string(out), "helper_binds") {
		t.Errorf("doctor --json: no helper binds anything any more (bubblewrap makes every mount):\n%s", out)
	}
	// The lean helper refuses to be run by hand.
	out, err = exec.Command(filepath.Join(dir, sandbox.HelperBinary)).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "internal helper of oceancode") {
		t.Errorf("oceancode-sandbox without the helper argument: %v %s", err, out)
	}
	// So does the exec helper: no command.
	out, err = exec.Command(execHelper).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "missing -- before the command") {
		t.Errorf("oceancode-sandbox-exec without arguments: %v %s", err, out)
	}
}
