//go:build unix

package layers_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/layers/layerstest"
)

// TestProjectFilesThatAreNotFiles: a cloned repository whose config is a
// symlink to /dev/zero, or whose .mcp.json or signature is a FIFO, neither
// exhausts memory nor blocks the loader: the config file is refused with
// the reason, the .mcp.json counts as loosening (ignored), and the
// signature does not verify.
func TestProjectFilesThatAreNotFiles(t *testing.T) {
	t.Parallel()
	m := layerstest.New(t)
	if err := os.MkdirAll(filepath.Join(m.Project, ".oceancode"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(m.Project, ".oceancode", "oceancode.json")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(m.Project, ".mcp.json"), filepath.Join(m.Project, layers.ProjectSignatureFile)} {
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
	m.Anchor()
	m.Requirements(1, map[string]any{"project_config": "signed", "repo_signers": []string{m.Key.Public().String()}})
	r := m.Resolve()
	err := r.Err()
	if err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("a config symlinked to /dev/zero: %v", err)
	}
	if r.Workspace.Trusted() || len(r.Workspace.Ignored) != 1 || r.Workspace.Ignored[0].Key != "mcpServers" {
		t.Fatalf("a FIFO .mcp.json: %+v", r.Workspace)
	}
	if !strings.Contains(r.Workspace.Reason, "not a regular file") {
		t.Fatalf("a FIFO signature: %s", r.Workspace.Reason)
	}
}
