//go:build unix

package clitest

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/oceancode/oceancode/agent/mcp/mcptest"
	"github.com/oceancode/oceancode/agent/provider/providertest"
	"github.com/oceancode/oceancode/agent/server/servertest"
	"github.com/oceancode/oceancode/internal/telemetry/otlptest"
)

// TestServeAddMCP: POST /mcp adds a real stdio MCP server (agent/mcp/mcptest)
// to a running session of the real `oceancode serve`; its tools are offered
// from the next turn, and a call asks (origin runtime) until answered.
func TestServeAddMCP(t *testing.T) {
	t.Parallel()
	model := providertest.New(t,
		providertest.Call("mcp__rt__echo", map[string]string{"text": "from the runtime server"}),
		providertest.Text("echoed"),
	)
	m := serveMachine(t, model, "")
	s := startServe(t, m)
	id := s.create(nil)
	marker := filepath.Join(t.TempDir(), "started")

	// Bad adds first: nothing may start.
	s.call("POST", "/mcp", map[string]any{"session": "nope", "name": "rt", "command": "oc-mcp-server"}, 404, "Error")
	s.call("POST", "/mcp", map[string]any{"session": id, "name": "rt"}, 400, "Error")
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a refused add started a server")
	}

	add := map[string]any{"session": id, "name": "rt", "command": "oc-mcp-server",
		"env": map[string]string{mcptest.ServerEnv: "1", "OC_MCP_MARKER": marker}}
	st := s.call("POST", "/mcp", add, 200, "MCPStatus")
	if st["state"] != "connected" || st["origin"] != "runtime" || !strings.Contains(strings.Join(toStrings(st["tools"]), " "), "echo") {
		t.Fatalf("add: %v", st)
	}
	if b, err := os.ReadFile(marker); err != nil || !strings.Contains(string(b), "started") {
		t.Fatalf("the added server did not start (marker %q, %v)", b, err)
	}
	// The same name again is a conflict.
	s.call("POST", "/mcp", add, 409, "Error")

	ch, _ := s.events(id, -1)
	s.send(id, "echo through the new server")
	ask := s.pending(id)
	if ask["tool"] != "mcp__rt__echo" {
		t.Fatalf("pending ask %v, want the runtime server's tool", ask)
	}
	s.answer(id, ask["id"].(string), map[string]string{"answer": "once"}, 200)
	evs := s.until(ch, "done", 1)
	joined := servertest.Join(evs)
	if !strings.Contains(joined, "from the runtime server") || !strings.Contains(joined, `"type":"mcp"`) {
		t.Errorf("the turn's events do not show the server's answer and its mcp event:\n%s", joined)
	}
}

func toStrings(v any) []string {
	var out []string
	if l, ok := v.([]any); ok {
		for _, x := range l {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// TestServeClientMCP: servers a client passes with POST /api/session have
// the client origin: a call runs without an ask where no mcp rule decides;
// a name the config already declares is refused, never replaced.
func TestServeClientMCP(t *testing.T) {
	t.Parallel()
	model := providertest.New(t,
		providertest.Call("mcp__ide__echo", map[string]string{"text": "from the client's server"}),
		providertest.Text("echoed"),
	)
	marker := filepath.Join(t.TempDir(), "started")
	m := serveMachine(t, model, `, "mcp": {"servers": {"tools": {"command": "oc-mcp-server", "env": {"`+mcptest.ServerEnv+`": "1"}}}}`)
	s := startServe(t, m)
	env := map[string]string{mcptest.ServerEnv: "1", "OC_MCP_MARKER": marker}
	e := s.call("POST", "/api/session", map[string]any{"mcp_servers": map[string]any{"tools": map[string]any{"command": "oc-mcp-server", "env": env}}}, 400, "Error")
	if !strings.Contains(e["error"].(string), "already declared") {
		t.Errorf("a client server named like a config one: %v", e)
	}
	id := s.call("POST", "/api/session", map[string]any{"mcp_servers": map[string]any{"ide": map[string]any{"command": "oc-mcp-server", "env": env}}}, 200, "State")["id"].(string)
	ch, _ := s.events(id, -1)
	s.send(id, "echo through the client's server")
	evs := s.until(ch, "done", 1)
	joined := servertest.Join(evs)
	if !strings.Contains(joined, "from the client's server") || strings.Contains(servertest.Types(evs), "ask") {
		t.Errorf("the client's server should answer without an ask:\n%s", joined)
	}
	if b, err := os.ReadFile(marker); err != nil || !strings.Contains(string(b), "started") {
		t.Errorf("the client's server did not start (marker %q, %v)", b, err)
	}
}

// TestServeTelemetry: with telemetry.enabled, serve exports each session's
// permission decisions to the OTLP/HTTP collector, flushed when it stops.
func TestServeTelemetry(t *testing.T) {
	t.Parallel()
	rcv := otlptest.New()
	t.Cleanup(rcv.Close)
	model := providertest.New(t,
		providertest.Call("bash", map[string]string{"command": "echo audit"}),
		providertest.Text("done"),
	)
	m := serveMachine(t, model, `, "telemetry": {"enabled": true}, "permission": {"bash": {"echo audit": "allow"}}`)
	m.Env["OTEL_EXPORTER_OTLP_ENDPOINT"] = rcv.URL()
	s := startServe(t, m)
	id := s.create(nil)
	ch, _ := s.events(id, -1)
	s.send(id, "audit")
	s.until(ch, "done", 1)
	s.kill(syscall.SIGTERM)
	var found bool
	for _, sp := range rcv.Spans() {
		for _, e := range sp.Events {
			if e.Attrs["oceancode.permission.action"] == "allow" && e.Attrs["oceancode.permission.rule"] != "" {
				found = true
			}
		}
	}
	if !found {
		t.Errorf("no exported allow decision; spans %+v, errors %v; stderr:\n%s", rcv.Spans(), rcv.Errors(), s.stderr.String())
	}
}
