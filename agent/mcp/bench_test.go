package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
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

// BenchmarkIdentify is the admission's identification of one stdio server
// per start (the hash cache warm, as for every start after the first):
// a program, against python3 srv.py (the interpreter and the script hashed
// and cached) and npx pkg@1.2.3 (the version read from the arguments).
func BenchmarkIdentify(b *testing.B) {
	f := newFixture(b)
	py, err := exec.LookPath("/usr/bin/python3")
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.root, "srv.py"), []byte(strings.Repeat("# a 20 KB server\n", 1200)), 0o644); err != nil {
		b.Fatal(err)
	}
	bin := b.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "npx"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		s    mcp.Server
	}{
		{"program", mcp.Server{Name: "p", Command: f.exe}},
		{"python3_srv.py", mcp.Server{Name: "p", Command: py, Args: []string{"srv.py"}}},
		{"npx_pinned", mcp.Server{Name: "p", Command: "npx", Args: []string{"-y", "pkg@1.2.3"}}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := mcp.Identify(c.s, f.root, bin); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
