package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/agent/sandbox"
	"github.com/oceancode/oceancode/internal/hermetictest"
)

// TestSandboxLeanHelper builds oceancode and oceancode-sandbox side by side,
// as make build installs them, and checks a confined command runs through
// the lean helper: the workspace is writable, the host outside it is not.
func TestSandboxLeanHelper(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Fatal("bubblewrap is missing: run scripts/install-bwrap.sh")
	}
	dir := t.TempDir()
	for pkg, name := range map[string]string{"./../../oceancode": "oceancode", "./../../oceancode-sandbox": sandbox.HelperBinary} {
		hermetictest.GoBuild(t, filepath.Join(dir, name), pkg)
	}
	user := hermetictest.New(t)
	base := hermetictest.Scratch(t)
	ws := filepath.Join(base, "ws")
	os.MkdirAll(ws, 0o755)
	outside := filepath.Join(base, "outside.txt")

	// First prove the sibling is the helper actually used: a stand-in that
	// only exits 99 must make the confined command fail with 99.
	lean := filepath.Join(dir, sandbox.HelperBinary)
	if err := os.Rename(lean, lean+".real"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lean, []byte("#!/bin/sh\nexit 99\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	probe := exec.Command(filepath.Join(dir, "oceancode"), "sandbox", "--", "true")
	probe.Dir, probe.Env = ws, user.Env(os.Environ())
	if out, err := probe.CombinedOutput(); err == nil || probe.ProcessState.ExitCode() != 99 {
		t.Fatalf("with a stand-in helper beside oceancode: exit %d (%v), want 99: the sibling was not used\n%s", probe.ProcessState.ExitCode(), err, out)
	}
	if err := os.Rename(lean+".real", lean); err != nil {
		t.Fatal(err)
	}

	// Then the real lean helper confines the command.
	cmd := exec.Command(filepath.Join(dir, "oceancode"), "sandbox", "--", "sh", "-c", "echo in > inside.txt; echo out > "+outside)
	cmd.Dir = ws
	cmd.Env = user.Env(os.Environ())
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err := cmd.Run()
	if _, statErr := os.Stat(filepath.Join(ws, "inside.txt")); statErr != nil {
		t.Fatalf("the workspace was not writable: %v\n%s", statErr, buf.String())
	}
	if _, statErr := os.Stat(outside); statErr == nil {
		t.Fatalf("a file outside the workspace was written (err %v)\n%s", err, buf.String())
	}
	if err == nil || !strings.Contains(buf.String(), "Read-only file system") {
		t.Errorf("want the write outside to fail with EROFS; err %v, output:\n%s", err, buf.String())
	}
	// The lean helper refuses to be run by hand.
	out, err := exec.Command(filepath.Join(dir, sandbox.HelperBinary)).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "internal helper of oceancode") {
		t.Errorf("oceancode-sandbox without the helper argument: %v %s", err, out)
	}
}
