package cli

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/internal/hermetictest"
	"github.com/oceancode/oceancode/layers/layerstest"
)

// TestTestBuildUsesItsManagedDir: a test build of oceancode takes its
// managed dir (config, trust anchor) from OC_TEST_MANAGED_DIR, so the tests
// that run the real binary never read the host's /etc/oceancode. That a
// production build has no such code is layers' TestTestManagedDirOnlyInTestBuilds.
func TestTestBuildUsesItsManagedDir(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "oceancode")
	hermetictest.GoBuild(t, bin, "github.com/oceancode/oceancode/cmd/oceancode")
	m := layerstest.New(t)
	m.Managed(`{"model": "managed/from-the-test-dir"}`)
	cmd := exec.Command(bin, "inspect", "--layers")
	cmd.Dir, cmd.Env = m.Project, m.Environ("PATH=/usr/bin:/bin")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("inspect: %v\n%s", err, out)
	}
	if want := filepath.Join(m.ManagedDir, "managed.json"); !strings.Contains(string(out), want) {
		t.Errorf("inspect does not list %s as the managed layer:\n%s", want, out)
	}
	if regexp.MustCompile(`(^|\s)/etc/oceancode`).Match(out) {
		t.Errorf("inspect names the host's managed dir:\n%s", out)
	}
}
