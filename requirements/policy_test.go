package requirements

import (
	"errors"
	"strings"
	"testing"
)

func TestParseMessages(t *testing.T) {
	tests := []struct {
		name, payload string
		signed        bool
		want          []string // substrings of the violations, in order
	}{
		{name: "rules.allow refused", payload: `{"schema_version":1,"rules":{"allow":["Bash"]}}`, want: []string{"/rules", "only narrow"}},
		{name: "pin of an unknown key", payload: `{"schema_version":1,"pins":{"sandbox.mdoe":"x"}}`, want: []string{`/pins/sandbox.mdoe`, `names no config key`}},
		{name: "pin with a bad value", payload: `{"schema_version":1,"pins":{"sandbox.mode":"off"}}`, want: []string{`/pins/sandbox.mode`, `must be one of`}},
		{name: "float", payload: `{"schema_version":1,"threshold":1.5}`, want: []string{"/threshold", "expected an integer"}},
		{name: "exponent", payload: `{"schema_version":1,"threshold":1e0}`, want: []string{"/threshold", "not an integer"}},
		{name: "float in a pin", payload: `{"schema_version":1,"pins":{"jev.deadline_ms":1500.0}}`, want: []string{"/pins/jev.deadline_ms", "not an integer"}},
		{name: "beyond 2^53", payload: `{"schema_version":1,"serial":9007199254740993}`, want: []string{"/serial", "at most 9007199254740991"}},
		{name: "duplicate key", payload: `{"schema_version":1,"org":"a","org":"b"}`, want: []string{"duplicate"}},
		{name: "signed needs serial", payload: `{"schema_version":1}`, signed: true, want: []string{"/serial", "oceanadmin sign"}},
		{name: "trailing data", payload: `{"schema_version":1} {}`, want: []string{"line 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.payload), ParseOptions{File: "policy.json", Signed: tt.signed})
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
			msg := err.Error()
			at := 0
			for _, w := range tt.want {
				i := strings.Index(msg[at:], w)
				if i < 0 {
					t.Fatalf("error %q lacks %q (in order)", msg, w)
				}
				at += i
			}
			if !strings.Contains(msg, "policy.json") {
				t.Errorf("error %q does not name the file", msg)
			}
		})
	}
}

func TestParseGood(t *testing.T) {
	p, err := Parse(payload(7, map[string]any{
		"allowed_permission_modes": []any{"default", "plan"},
		"mcp":                      map[string]any{"allowed_servers": []any{map[string]any{"name": "gh", "command": "/usr/bin/gh-mcp"}}},
	}), ParseOptions{Signed: true})
	if err != nil {
		t.Fatal(err)
	}
	if p.Serial != 7 || p.Org != "acme" || !p.DisableBypassPermissions || p.Pins["sandbox.mode"] != "workspace-write" {
		t.Errorf("parsed %+v", p)
	}
	if ok, why := p.ModeAllowed("bypassPermissions"); ok || !strings.Contains(why, "locked out") {
		t.Errorf("bypassPermissions allowed: %v %q", ok, why)
	}
	if ok, _ := p.ModeAllowed("acceptEdits"); ok {
		t.Error("acceptEdits allowed though not in allowed_permission_modes")
	}
	if ok, _ := p.ModeAllowed("plan"); !ok {
		t.Error("plan refused though allowed")
	}
}

func TestMCPAllowed(t *testing.T) {
	ab, cd := strings.Repeat("ab", 32), strings.Repeat("cd", 32)
	p := &Policy{MCP: &MCP{AllowedServers: []MCPServer{
		{Name: "github", Command: "/usr/local/bin/github-mcp", SHA256: ab},
		{Name: "docs", URL: "https://mcp.example.com/docs"},
		{Name: "py", Command: "/usr/bin/python3", SHA256: ab, Args: []string{"/opt/mcp/srv.py"}, ScriptSHA256: cd},
		{Name: "pyloose", Command: "/usr/bin/python3", SHA256: ab},
		{Name: "pypath", Command: "/usr/bin/python3", Args: []string{"/opt/mcp/srv.py"}},
		{Name: "pyrel", Command: "/usr/bin/python3", Args: []string{"srv.py"}},
		{Name: "npx", Command: "/usr/bin/npx", Args: []string{"-y", "pkg@1.2.3"}},
		{Name: "linked", Command: "/opt/bin/srv", SHA256: ab},
	}}}
	py := MCPCandidate{Name: "py", Command: "/usr/bin/python3", SHA256: ab, Runner: "python3", Args: []string{"/opt/mcp/srv.py"}, Script: "/opt/mcp/srv.py", ScriptSHA256: cd}
	with := func(c MCPCandidate, f func(*MCPCandidate)) MCPCandidate { f(&c); return c }
	tests := []struct {
		name string
		c    MCPCandidate
		ok   bool
	}{
		{"listed command with its hash", MCPCandidate{Name: "github", Command: "/usr/local/bin/github-mcp", SHA256: ab}, true},
		{"listed command, other binary", MCPCandidate{Name: "github", Command: "/usr/local/bin/github-mcp", SHA256: cd}, false},
		{"renamed to a listed name", MCPCandidate{Name: "github", Command: "/tmp/evil"}, false},
		{"listed url", MCPCandidate{Name: "docs", URL: "https://mcp.example.com/docs"}, true},
		{"listed name, other url", MCPCandidate{Name: "docs", URL: "https://evil.example.com/"}, false},
		{"not listed", MCPCandidate{Name: "other", Command: "/bin/x"}, false},
		{"interpreter, pinned args and script", py, true},
		{"interpreter, script rewritten", with(py, func(c *MCPCandidate) { c.ScriptSHA256 = ab }), false},
		{"interpreter, -c instead of the script", with(py, func(c *MCPCandidate) { c.Args, c.Script, c.ScriptSHA256 = []string{"-c", "import os"}, "", "" }), false},
		{"interpreter entry without args admits nothing", MCPCandidate{Name: "pyloose", Command: "/usr/bin/python3", SHA256: ab, Runner: "python3", Args: []string{"-c", "x"}}, false},
		{"interpreter entry without args, same digest, a script", MCPCandidate{Name: "pyloose", Command: "/usr/bin/python3", SHA256: ab, Runner: "python3", Args: []string{"/opt/srv.py"}, Script: "/opt/srv.py", ScriptSHA256: cd}, false},
		{"absolute script pinned by path", MCPCandidate{Name: "pypath", Command: "/usr/bin/python3", Runner: "python3", Args: []string{"/opt/mcp/srv.py"}, Script: "/opt/mcp/srv.py", ScriptSHA256: cd}, true},
		{"relative script without its digest", MCPCandidate{Name: "pyrel", Command: "/usr/bin/python3", Runner: "python3", Args: []string{"srv.py"}, Script: "/home/u/repo/srv.py", ScriptSHA256: cd}, false},
		{"launcher, pinned version", MCPCandidate{Name: "npx", Command: "/usr/bin/npx", Runner: "npx", Args: []string{"-y", "pkg@1.2.3"}}, true},
		{"launcher, other version", MCPCandidate{Name: "npx", Command: "/usr/bin/npx", Runner: "npx", Args: []string{"-y", "pkg@1.2.4"}}, false},
		{"a link to an interpreter (the agent says so)", MCPCandidate{Name: "linked", Command: "/opt/bin/srv", SHA256: ab, Runner: "python3", Args: []string{"-c", "x"}}, false},
	}
	for _, tt := range tests {
		if ok, why := p.MCPAllowed(tt.c); ok != tt.ok {
			t.Errorf("%s: allowed = %v (%s), want %v", tt.name, ok, why, tt.ok)
		}
	}
	none := &Policy{MCP: &MCP{}}
	if ok, _ := none.MCPAllowed(MCPCandidate{Name: "x", Command: "/bin/x"}); ok {
		t.Error("an empty allow-list allowed a server")
	}
	if ok, _ := (&Policy{}).MCPAllowed(MCPCandidate{Name: "x", Command: "/bin/x"}); !ok {
		t.Error("no mcp section refused a server")
	}
}

// TestRepoSignersMustBeKeys: a repo_signers entry that is not a public key
// is refused with its pointer; a good key and project_config parse.
func TestRepoSignersMustBeKeys(t *testing.T) {
	_, err := Parse([]byte(`{"schema_version": 1, "project_config": "signed", "repo_signers": ["nope"]}`), ParseOptions{File: "p.json"})
	if err == nil || !strings.Contains(err.Error(), "repo_signers[0] is not a public key") {
		t.Fatalf("a bad signer: %v", err)
	}
	key := "ed25519:" + strings.Repeat("A", 43) + "="
	p, err := Parse([]byte(`{"schema_version": 1, "project_config": "signed", "repo_signers": ["`+key+`"]}`), ParseOptions{File: "p.json"})
	if err != nil || p.ProjectConfig != "signed" || len(p.RepoSigners) != 1 {
		t.Fatalf("a good policy: %+v, %v", p, err)
	}
}
