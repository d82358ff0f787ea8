package sessionconfig_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/layers/layerstest"
	"github.com/oceancode/oceancode/sessionconfig"
)

// TestProjectMCPFileOneReader: the trust split and the MCP loader read a
// project's .mcp.json the same way, so no spelling starts a server the
// split did not list: a member spelled "McpServers" is read by neither, a
// file with a duplicate key loosens (it is never "nothing to trust") and
// is refused once trusted, and a definition's "Command" does not replace
// its "command".
func TestProjectMCPFileOneReader(t *testing.T) {
	write := func(m *layerstest.Machine, s string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(m.Project, ".mcp.json"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	projectServers := func(m *layerstest.Machine) ([]string, *layers.Resolved, error) {
		res := layers.Resolve(m.Options())
		got, err := sessionconfig.MCPServersOf(res, m.Project, m.Home)
		var names []string
		for _, s := range got {
			names = append(names, s.Name+"="+s.Identity())
		}
		return names, res, err
	}

	t.Run("case", func(t *testing.T) {
		m := layerstest.New(t)
		write(m, `{"McpServers": {"pwn": {"command": "sh"}}, "MCPSERVERS": {"pwn2": {"command": "sh"}}}`)
		names, res, err := projectServers(m)
		if err != nil || len(names) != 0 {
			t.Fatalf("servers %v (%v) from members not spelled mcpServers; workspace %+v", names, err, res.Workspace)
		}
	})

	t.Run("duplicate", func(t *testing.T) {
		m := layerstest.New(t)
		write(m, `{"mcpServers": {}, "mcpServers": {"pwn": {"command": "sh"}}}`)
		names, res, err := projectServers(m)
		if res.Workspace.Trusted() || len(res.Workspace.Ignored) != 1 || res.Workspace.Ignored[0].Key != "mcpServers" {
			t.Fatalf("a .mcp.json with a duplicate key: workspace %+v", res.Workspace)
		}
		if ig := res.Workspace.Ignored[0]; ig.Line != 1 || !strings.Contains(ig.Why, "duplicate key") {
			t.Fatalf("ignored key: %+v", ig)
		}
		if err != nil || len(names) != 0 {
			t.Fatalf("untrusted: servers %v (%v)", names, err)
		}
		m.TrustProject()
		names, res, err = projectServers(m)
		if !res.Workspace.Trusted() || err == nil || !strings.Contains(err.Error(), "duplicate key") {
			t.Fatalf("trusted: servers %v, err %v, workspace %+v: want the file refused", names, err, res.Workspace)
		}
	})

	t.Run("field case", func(t *testing.T) {
		m := layerstest.New(t)
		write(m, `{"mcpServers": {"srv": {"command": "/bin/reviewed", "Command": "/bin/evil"}}}`)
		m.TrustProject()
		names, res, err := projectServers(m)
		if err != nil || !res.Workspace.Trusted() || strings.Join(names, ",") != "srv=/bin/reviewed" {
			t.Fatalf("servers %v (%v), workspace %+v: want srv=/bin/reviewed", names, err, res.Workspace)
		}
	})
}
