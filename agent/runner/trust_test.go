package runner_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/oceancode/oceancode/agent/mcp"
	"github.com/oceancode/oceancode/agent/mcp/mcptest"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/provider/providertest"
	"github.com/oceancode/oceancode/agent/sandbox"
)

// TestTrustMCP: a project .mcp.json server starts untrusted (the pager
// shows its reason); trusting it through the session records it in the
// user's trust store and starts it, told as an mcp event; the next session
// starts it without asking. Only a waiting server can be trusted.
func TestTrustMCP(t *testing.T) {
	t.Parallel()
	f := newFixture(t, providertest.Text("hi"))
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	store := &mcp.TrustStore{Path: filepath.Join(t.TempDir(), mcp.TrustFile)}
	cfg := mcp.Config{Env: []string{"PATH=/usr/bin:/bin"}, Sandbox: sandbox.Policy{Dir: f.dir}, StartTimeout: 20 * time.Second,
		Policy:  mcp.Policy{Trust: store, Project: f.dir},
		Servers: []mcp.Server{{Name: "proj", Command: exe, Env: map[string]string{mcptest.ServerEnv: "1"}, Origin: permission.MCPProjectFile, Source: ".mcp.json"}}}
	m := mcp.Start(cfg)
	t.Cleanup(func() { m.Close() })
	m.Wait(context.Background())
	o := f.options()
	o.MCP = m
	s := f.start(o)
	list := s.MCPServers()
	if len(list) != 1 || list[0].State != mcp.StateUntrusted || !strings.Contains(list[0].Reason, "oceancode mcp trust proj") {
		t.Fatalf("before trust: %+v", list)
	}
	u, _ := s.Subscribe(s.LastSeq())
	st, err := s.TrustMCP(context.Background(), "proj")
	if err != nil || st.State != mcp.StateConnected {
		t.Fatalf("trust = %+v, %v", st, err)
	}
	// (The start's untrusted state is told first, when no turn did yet.)
	for ev := next(t, u); !strings.Contains(ev.Event.Text, "MCP server proj (project .mcp.json): connected"); ev = next(t, u) {
		if ev.Event.Type != "mcp" || ev.Event.Key != "proj" || !strings.Contains(ev.Event.Text, ": untrusted: ") {
			t.Fatalf("event = %+v", ev.Event)
		}
	}
	if _, ok, err := store.Lookup(f.dir, "proj"); !ok || err != nil {
		t.Errorf("trust store: %v, %v", ok, err)
	}
	if _, err := s.TrustMCP(context.Background(), "proj"); !errors.Is(err, mcp.ErrNotWaiting) {
		t.Errorf("trust a connected server: %v", err)
	}
	if _, err := s.TrustMCP(context.Background(), "nope"); !errors.Is(err, mcp.ErrNoServer) {
		t.Errorf("trust an unknown server: %v", err)
	}
	again := mcp.Start(cfg)
	t.Cleanup(func() { again.Close() })
	again.Wait(context.Background())
	if st := again.Statuses(); st[0].State != mcp.StateConnected {
		t.Errorf("the next session: %+v", st)
	}
	plain := f.start(f.options())
	if _, err := plain.TrustMCP(context.Background(), "proj"); err == nil || !strings.Contains(err.Error(), "no MCP client") {
		t.Errorf("a session without MCP: %v", err)
	}
}
