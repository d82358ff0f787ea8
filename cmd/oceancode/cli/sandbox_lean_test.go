package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/agent/sandbox"
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
		out, err := exec.Command("go", "build", "-o", filepath.Join(dir, name), pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("build %s: %v\n%s", name, err, out)
		}
	}
	home, _ := os.UserHomeDir()
	base, err := os.MkdirTemp(home, ".oceancode-leantest-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	ws := filepath.Join(base, "ws")
	os.MkdirAll(ws, 0o755)
	outside := filepath.Join(base, "outside.txt")

	// helperPath picks the lean binary when it is beside oceancode (unit
	// tested in agent/sandbox); a broken lean helper would leave no
	// inside.txt here.
	cmd := exec.Command(filepath.Join(dir, "oceancode"), "sandbox", "--", "sh", "-c", "echo in > inside.txt; echo out > "+outside)
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "HOME="+home)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err = cmd.Run()
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
