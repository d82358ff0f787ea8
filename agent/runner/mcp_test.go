package runner_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/oceancode/oceancode/agent/mcp"
	"github.com/oceancode/oceancode/agent/mcp/mcptest"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/provider/providertest"
	"github.com/oceancode/oceancode/agent/sandbox"
)

// TestAddMCP: a runtime add through the session engine starts the server,
// tells it as an mcp event, offers its tools from the next turn, and its
// calls ask (a headless session refuses them with the rule that approves
// the server).
func TestAddMCP(t *testing.T) {
	t.Parallel()
	f := newFixture(t, providertest.Text("first"),
		providertest.Call("mcp__rt__echo", map[string]string{"text": "x"}), providertest.Text("done"))
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	m := mcp.Start(mcp.Config{Env: []string{"PATH=/usr/bin:/bin"}, Sandbox: sandbox.Policy{Dir: f.dir}, StartTimeout: 20 * time.Second})
	t.Cleanup(func() { m.Close() })
	o := f.options()
	o.Interactive = false
	o.MCP = m
	o.Turn.Extra = m.Extra
	s := f.start(o)
	if _, err := s.Run(context.Background(), "one"); err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(f.srv.Requests()[0].Tools, func(n string) bool { return strings.HasPrefix(n, "mcp__") }) {
		t.Fatal("MCP tools offered before the add")
	}
	u, err := s.Subscribe(s.LastSeq())
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.AddMCP(context.Background(), mcp.Server{Name: "rt", Command: exe, Env: map[string]string{mcptest.ServerEnv: "1"}})
	if err != nil || st.State != mcp.StateConnected || st.Origin != permission.MCPRuntime.String() {
		t.Fatalf("AddMCP = %+v, %v", st, err)
	}
	if ev := next(t, u); ev.Event.Type != "mcp" || !strings.Contains(ev.Event.Text, "MCP server rt (runtime): connected") {
		t.Fatalf("event = %+v", ev.Event)
	}
	if _, err := s.Run(context.Background(), "two"); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(f.srv.Requests()[1].Tools, "mcp__rt__echo") {
		t.Fatalf("tools after the add: %v", f.srv.Requests()[1].Tools)
	}
	if r := lastResult(t, f.srv); !strings.Contains(r, "refused: this headless run cannot ask") || !strings.Contains(r, "mcp(rt/*)") {
		t.Fatalf("result = %q", r)
	}
}
