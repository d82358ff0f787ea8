package sessionconfig_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/mcp"
	"github.com/oceancode/oceancode/agent/mcp/mcptest"
	"github.com/oceancode/oceancode/agent/tools"
	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/layers/layerstest"
	"github.com/oceancode/oceancode/sessionconfig"
)

// The test binary doubles as a real MCP server (mcptest).
func TestMain(m *testing.M) {
	if os.Getenv(mcptest.ServerEnv) == "1" {
		mcptest.Main()
	}
	os.Exit(m.Run())
}

func serverJSON(t *testing.T, marker string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf(`{"command": %q, "env": {%q: "1", "OC_MCP_MARKER": %q}}`, exe, mcptest.ServerEnv, marker)
}

// TestMCPServersOf: every declaration place with its origin, and the
// user's declaration of a name wins over the repository's.
func TestMCPServersOf(t *testing.T) {
	m := layerstest.New(t)
	m.UserConfig(`{"mcp": {"servers": {"cfg": {"command": "/bin/cfg"}, "both": {"command": "/bin/mine"}}}}`)
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(m.Home, ".claude.json"), fmt.Sprintf(`{"mcpServers": {"cl": {"command": "/bin/cl"}},
	  "projects": {%q: {"mcpServers": {"local": {"type": "http", "url": "http://127.0.0.1:1/mcp"}}}}}`, m.Project))
	write(filepath.Join(m.Project, ".mcp.json"), `{"mcpServers": {"proj": {"command": "./srv"}, "both": {"command": "/bin/theirs"}}}`)
	if got, err := sessionconfig.MCPServersOf(layers.Resolve(m.Options()), m.Project, m.Home); err != nil || len(got) != 4 {
		t.Fatalf("untrusted workspace: %d servers (%v), want the 4 that are not the project's .mcp.json", len(got), err)
	}
	m.TrustProject()
	res := layers.Resolve(m.Options())
	got, err := sessionconfig.MCPServersOf(res, m.Project, m.Home)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, s := range got {
		lines = append(lines, fmt.Sprintf("%s %s %s", s.Name, s.Origin, s.Identity()))
	}
	want := []string{"both config /bin/mine", "cfg config /bin/cfg", "cl config /bin/cl", "local config http://127.0.0.1:1/mcp", "proj project .mcp.json ./srv"}
	if !slices.Equal(lines, want) {
		t.Fatalf("servers:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// TestSessionMCP: a session built from config starts its config server and
// offers its tools through Turn.Extra; a .mcp.json server is not started
// before trust; the explore sub-agent gets no MCP tools.
func TestSessionMCP(t *testing.T) {
	m := layerstest.New(t)
	markers := t.TempDir()
	m.UserConfig(fmt.Sprintf(`{"model": "openai/gpt-5", "mcp": {"call_timeout_s": 7, "servers": {"cfg": %s}}}`, serverJSON(t, filepath.Join(markers, "cfg"))))
	if err := os.WriteFile(filepath.Join(m.Project, ".mcp.json"), []byte(fmt.Sprintf(`{"mcpServers": {"proj": %s}}`, serverJSON(t, filepath.Join(markers, "proj")))), 0o644); err != nil {
		t.Fatal(err)
	}
	m.TrustProject()
	s, _, err := build(t, m, sessionconfig.Request{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ts, evs := s.Turn.Extra(ctx)
	if len(ts) != len(mcptest.Tools) {
		t.Fatalf("%d MCP tools offered, want %d (%+v)", len(ts), len(mcptest.Tools), s.MCP.Statuses())
	}
	var texts []string
	for _, e := range evs {
		if e.Type != agent.EventMCP {
			t.Errorf("event type %s", e.Type)
		}
		texts = append(texts, e.Text)
	}
	joined := strings.Join(texts, "\n")
	if !strings.Contains(joined, "MCP server cfg (config): connected, 10 tools") || !strings.Contains(joined, "MCP server proj (project .mcp.json): untrusted") {
		t.Errorf("events:\n%s", joined)
	}
	if _, err := os.Stat(filepath.Join(markers, "proj")); err == nil {
		t.Error("the untrusted .mcp.json server started")
	}
	explore, err := s.SubAgent("")
	if err != nil {
		t.Fatal(err)
	}
	if explore.Extra != nil || slices.ContainsFunc(explore.Tools, func(t tools.Tool) bool { _, ok := t.(tools.MCPTool); return ok }) {
		t.Error("the explore sub-agent gets MCP tools")
	}
	st := s.MCP.Statuses()
	if len(st) != 2 || st[0].State != mcp.StateConnected {
		t.Errorf("statuses %+v", st)
	}
}
