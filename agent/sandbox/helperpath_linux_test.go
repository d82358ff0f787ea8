package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// TestHelperPathPrefersLeanHelper: the lean helper beside the executable is
// used when it is there and executable; otherwise the executable itself.
func TestHelperPathPrefersLeanHelper(t *testing.T) {
	dir := t.TempDir()
	self := filepath.Join(dir, "oceancode")
	os.WriteFile(self, []byte("x"), 0o755)
	old, oldHelper := osExecutable, HelperPath
	osExecutable = func() (string, error) { return self, nil }
	HelperPath = "" // TestMain points it at the test binary
	defer func() { osExecutable, HelperPath = old, oldHelper }()

	if got, _ := helperPath(); got != self {
		t.Errorf("without a lean helper: %s, want %s", got, self)
	}
	lean := filepath.Join(dir, HelperBinary)
	os.WriteFile(lean, []byte("x"), 0o644)
	if got, _ := helperPath(); got != self {
		t.Errorf("with a non-executable lean helper: %s, want %s", got, self)
	}
	os.Chmod(lean, 0o755)
	if got, _ := helperPath(); got != lean {
		t.Errorf("with the lean helper: %s, want %s", got, lean)
	}
	HelperPath = "/explicit"
	if got, _ := helperPath(); got != "/explicit" {
		t.Errorf("HelperPath set: %s", got)
	}
}
