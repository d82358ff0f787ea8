package mcp_test

import (
	"testing"

	"github.com/oceancode/oceancode/agent/mcp"
)

// TestServerCheck: a runtime definition needs a name the mcp rules and tool
// names can carry and exactly one transport.
func TestServerCheck(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		s  mcp.Server
		ok bool
	}{
		{mcp.Server{Name: "docs", Command: "/usr/bin/docs-mcp"}, true},
		{mcp.Server{Name: "remote", URL: "http://127.0.0.1:9/mcp"}, true},
		{mcp.Server{Name: "", Command: "x"}, false},
		{mcp.Server{Name: "a/b", Command: "x"}, false},
		{mcp.Server{Name: "a b", Command: "x"}, false},
		{mcp.Server{Name: "a\tb", Command: "x"}, false},
		{mcp.Server{Name: "both", Command: "x", URL: "http://127.0.0.1:9/"}, false},
		{mcp.Server{Name: "neither"}, false},
	} {
		if err := c.s.Check(); (err == nil) != c.ok {
			t.Errorf("%+v: Check() = %v, want ok %v", c.s, err, c.ok)
		}
	}
}
