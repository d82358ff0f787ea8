package mcp_test

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/oceancode/oceancode/agent/mcp"
	"github.com/oceancode/oceancode/agent/mcp/mcptest"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/tools"
)

// benchStart starts n stdio servers (each delaying its start by delay, so
// the start is the server's own wait rather than CPU the five share) and
// waits for their listing: a session start's MCP part.
func benchStart(b *testing.B, n int, delay time.Duration, trusted bool) {
	f := newFixture(b)
	var servers []mcp.Server
	for i := range n {
		s := f.server("s"+strconv.Itoa(i), permission.MCPConfig)
		s.Env["OC_MCP_MARKER"] = ""
		s.Env["OC_MCP_START_DELAY_MS"] = strconv.Itoa(int(delay / time.Millisecond))
		servers = append(servers, s)
	}
	c := f.config(servers...)
	if trusted {
		// Project servers: each start hashes the executable and checks trust.
		for i := range c.Servers {
			c.Servers[i].Origin = permission.MCPProjectFile
			fp, err := mcp.Identify(c.Servers[i], f.root, "")
			if err != nil {
				b.Fatal(err)
			}
			if err := f.trust.Trust(f.root, c.Servers[i].Name, fp); err != nil {
				b.Fatal(err)
			}
		}
	}
	var added time.Duration
	b.ResetTimer()
	for b.Loop() {
		began := time.Now()
		m := mcp.Start(c)
		if got := len(m.Tools(context.Background())); got != n*len(mcptest.Tools) {
			b.Fatalf("%d tools, want %d: %+v", got, n*len(mcptest.Tools), m.Statuses())
		}
		total := time.Since(began)
		b.StopTimer()
		var slowest time.Duration
		for _, st := range m.Statuses() {
			slowest = max(slowest, st.Took)
		}
		added += total - slowest
		m.Close()
		b.StartTimer()
	}
	// What the manager adds over the slowest server's own start (its
	// admission, spawn, initialize and listing, measured in the manager).
	b.ReportMetric(float64(added.Microseconds())/float64(b.N), "µs-over-slowest/op")
}

// BenchmarkStart: one server vs five in parallel, each starting in 100 ms
// (the five should cost ≤ the one + 5 ms) and with no delay.
func BenchmarkStart(b *testing.B) {
	b.Run("one-100ms", func(b *testing.B) { benchStart(b, 1, 100*time.Millisecond, false) })
	b.Run("five-100ms", func(b *testing.B) { benchStart(b, 5, 100*time.Millisecond, false) })
	b.Run("five-100ms-trusted", func(b *testing.B) { benchStart(b, 5, 100*time.Millisecond, true) })
	b.Run("one", func(b *testing.B) { benchStart(b, 1, 0, false) })
	b.Run("five", func(b *testing.B) { benchStart(b, 5, 0, false) })
}

// BenchmarkCall: one echo call through the tool (gate-less: Run), a
// round trip over stdio; the server's own time is near zero, so this is
// what a call adds.
func BenchmarkCall(b *testing.B) {
	f := newFixture(b)
	s := f.server("srv", permission.MCPConfig)
	s.Env["OC_MCP_MARKER"] = ""
	m := mcp.Start(f.config(s))
	defer m.Close()
	var echo tools.Tool
	for _, t := range m.Tools(context.Background()) {
		if t.Def().Name == "mcp__srv__echo" {
			echo = t
		}
	}
	if echo == nil {
		b.Fatalf("no echo tool: %+v", m.Statuses())
	}
	in := json.RawMessage(`{"text":"x"}`)
	env := &tools.Env{}
	b.ResetTimer()
	for b.Loop() {
		if r := echo.Run(context.Background(), env, in); r.IsError {
			b.Fatal(r.Content)
		}
	}
}
