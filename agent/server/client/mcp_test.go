package client_test

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
	"github.com/oceancode/oceancode/agent/server/client"
	"github.com/oceancode/oceancode/agent/server/servertest"
)

// The test binary doubles as the MCP server the trust test starts.
func TestMain(m *testing.M) {
	if os.Getenv(mcptest.ServerEnv) == "1" {
		mcptest.Main()
	}
	os.Exit(m.Run())
}

// TestTrustMCP: a project .mcp.json server shows as untrusted in the
// MCP list (with what it would run); trusting it through Remote records it
// in the trust store and starts it; a runtime add starts another.
func TestTrustMCP(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	store := &mcp.TrustStore{Path: filepath.Join(t.TempDir(), mcp.TrustFile)}
	l := servertest.NewLive(t, servertest.LiveOptions{MCP: &mcp.Config{Env: []string{"PATH=/usr/bin:/bin"}, StartTimeout: 20 * time.Second,
		Policy:  mcp.Policy{Trust: store},
		Servers: []mcp.Server{{Name: "proj", Command: exe, Env: map[string]string{mcptest.ServerEnv: "1"}, Origin: permission.MCPProjectFile, Source: ".mcp.json"}}}})
	c := newClient(t, l)
	ctx := context.Background()
	sess, err := c.Create(ctx, client.CreateRequest{})
	if err != nil {
		t.Fatal(err)
	}
	id := sess.ID
	list, err := c.MCP(ctx, id)
	if err != nil || len(list) != 1 || list[0].State != mcp.StateUntrusted || !strings.Contains(list[0].Reason, "not trusted yet") {
		t.Fatalf("mcp = %+v, %v", list, err)
	}
	st, err := c.TrustMCP(ctx, id, "proj")
	if err != nil || st.State != mcp.StateConnected || len(st.Tools) == 0 {
		t.Fatalf("trust = %+v, %v", st, err)
	}
	var ce *client.Error
	if _, err := c.TrustMCP(ctx, id, "proj"); !errors.As(err, &ce) || ce.Status != 409 {
		t.Errorf("trust again: %v", err)
	}
	if _, err := c.TrustMCP(ctx, id, "nope"); !errors.As(err, &ce) || ce.Status != 404 || ce.Code != "no_mcp_server" {
		t.Errorf("trust an unknown server: %v", err)
	}
	if _, ok, _ := store.Lookup(l.Dir, "proj"); !ok {
		t.Error("not in the trust store")
	}
	// A runtime add through Remote: connected, listed.
	st, err = c.AddMCP(ctx, id, "rt", mcp.Server{Command: exe, Env: map[string]string{mcptest.ServerEnv: "1"}})
	if err != nil || st.State != mcp.StateConnected || st.Origin != "runtime" || len(st.Tools) == 0 || st.Took <= 0 {
		t.Fatalf("add = %+v, %v", st, err)
	}
	if list, err := c.MCP(ctx, id); err != nil || len(list) != 2 || list[1].Name != "rt" {
		t.Errorf("mcp after the add = %+v, %v", list, err)
	}
}
