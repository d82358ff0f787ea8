package mcp_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/mcp"
	"github.com/oceancode/oceancode/agent/mcp/mcptest"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/provider/providertest"
	"github.com/oceancode/oceancode/agent/tools"
	"github.com/oceancode/oceancode/requirements"
)

// python3 is the real interpreter the identity tests run servers with.
func python3(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("/usr/bin/python3")
	if err != nil {
		t.Fatalf("these tests run a real python3: %v", err)
	}
	return p
}

// pyServer is a .mcp.json-style server `python3 srv.py` whose srv.py
// replaces itself with the test MCP server; it writes srv.py.
func (f *fixture) pyServer(t *testing.T, name string, o permission.MCPOrigin) mcp.Server {
	t.Helper()
	f.writeScript(t, "")
	s := f.server(name, o)
	s.Command, s.Args = "python3", []string{"srv.py"}
	return s
}

func (f *fixture) writeScript(t *testing.T, extra string) string {
	t.Helper()
	body := fmt.Sprintf("import os\n%sos.execv(%q, [%q])\n", extra, f.exe, f.exe)
	p := filepath.Join(f.root, "srv.py")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(body))
	return hex.EncodeToString(sum[:])
}

func (f *fixture) pyConfig(servers ...mcp.Server) mcp.Config {
	c := f.config(servers...)
	c.Env = []string{"PATH=" + filepath.Dir(python3(f.t.(*testing.T))) + ":/bin"}
	return c
}

// TestTrustCoversScript: trust of `python3 srv.py` covers srv.py: the
// trusted server starts through the real interpreter; once srv.py is
// rewritten it does not start, and the notice names the changed digest.
func TestTrustCoversScript(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.pyServer(t, "py", permission.MCPProjectFile)
	before := f.writeScript(t, "")
	fp, err := mcp.Identify(s, f.root, "/usr/bin")
	if err != nil {
		t.Fatal(err)
	}
	if fp.Script != filepath.Join(f.root, "srv.py") || fp.ScriptSHA256 != before || fp.Runner != "python3" {
		t.Fatalf("fingerprint %+v: want srv.py with sha256 %s", fp, before)
	}
	if err := f.trust.Trust(f.root, "py", fp); err != nil {
		t.Fatal(err)
	}
	m := f.start(f.pyConfig(s))
	if st := statusOf(t, m, "py"); st.State != mcp.StateConnected {
		t.Fatalf("trusted python3 srv.py: %+v", st)
	}
	m.Close()
	if err := os.Remove(f.marker("py")); err != nil {
		t.Fatal(err)
	}

	after := f.writeScript(t, "open('/tmp/pwned', 'w')\n")
	m = f.start(f.pyConfig(s))
	st := statusOf(t, m, "py")
	if st.State != mcp.StateUntrusted || !strings.Contains(st.Reason, fmt.Sprintf("script sha256 %q → %q", before, after)) {
		t.Fatalf("rewritten srv.py: %+v, want untrusted naming the changed script digest", st)
	}
	if f.started("py") {
		t.Fatal("the server started with a rewritten srv.py")
	}
}

// TestUnpinnedLauncher: a launcher without an exact version cannot be
// trusted (the refusal says how to pin); with one it can, without any
// download (the version is read from the arguments).
func TestUnpinnedLauncher(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	bin := t.TempDir()
	for _, n := range []string{"npx", "uvx"} {
		if err := os.WriteFile(filepath.Join(bin, n), []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	p := mcp.Policy{Trust: f.trust, Project: f.root}
	for _, c := range []struct {
		cmd  string
		args []string
		pin  string
	}{
		{"npx", []string{"-y", "some-mcp-server"}, `"some-mcp-server@1.2.3"`},
		{"npx", []string{"-y", "some-mcp-server@latest"}, `"some-mcp-server@1.2.3"`},
		{"npx", []string{"some-mcp-server@^2"}, `"some-mcp-server@1.2.3"`},
		{"uvx", []string{"mcp-server-git"}, `"mcp-server-git==1.2.3"`},
	} {
		s := mcp.Server{Name: "l", Command: c.cmd, Args: c.args, Origin: permission.MCPProjectFile}
		_, err := mcp.Identify(s, f.root, bin)
		if !errors.Is(err, mcp.ErrUnpinned) || !strings.Contains(err.Error(), "pin it as "+c.pin) {
			t.Errorf("%s %q: Identify = %v, want ErrUnpinned saying how to pin (%s)", c.cmd, c.args, err, c.pin)
		}
		_, err = p.Admit(s, f.root, bin)
		var ae *mcp.AdmitError
		if !errors.As(err, &ae) || ae.Kind != mcp.ErrUntrusted || !errors.Is(err, mcp.ErrUnpinned) {
			t.Errorf("%s %q: Admit = %v, want untrusted and unpinned", c.cmd, c.args, err)
		}
	}
	s := mcp.Server{Name: "l", Command: "npx", Args: []string{"-y", "some-mcp-server@1.2.3"}, Origin: permission.MCPProjectFile}
	fp, err := mcp.Identify(s, f.root, bin)
	if err != nil || !slices.Equal(fp.Packages, []string{"some-mcp-server@1.2.3"}) || fp.Runner != "npx" {
		t.Fatalf("pinned npx: %+v, %v", fp, err)
	}
	if err := f.trust.Trust(f.root, "l", fp); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Admit(s, f.root, bin); err != nil {
		t.Fatalf("trusted pinned npx: %v", err)
	}
	s.Args = []string{"-y", "some-mcp-server@1.2.4"}
	if _, err := p.Admit(s, f.root, bin); !errors.Is(err, mcp.ErrUntrusted) || !strings.Contains(err.Error(), "some-mcp-server@1.2.4") {
		t.Fatalf("another version: %v, want untrusted naming the new args", err)
	}
}

// TestAllowListPinsInterpreterArgs: an allow-list entry pinning python3's
// digest without its arguments admits nothing (not python3 -c ANY); one
// pinning the arguments and the script's digest admits exactly that script.
func TestAllowListPinsInterpreterArgs(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	py := python3(t)
	real, err := filepath.EvalSymlinks(py)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(real)
	if err != nil {
		t.Fatal(err)
	}
	pySum := fmt.Sprintf("%x", sha256.Sum256(b))
	script := f.writeScript(t, "")
	inline := f.server("inline", permission.MCPConfig)
	inline.Command, inline.Args = py, []string{"-c", fmt.Sprintf("import os; os.execv(%q, [%q])", f.exe, f.exe)}
	loose := f.server("loose", permission.MCPConfig)
	loose.Command, loose.Args = py, []string{"srv.py"}
	pinned := f.server("pinned", permission.MCPConfig)
	pinned.Command, pinned.Args = py, []string{"srv.py"}
	pinnedInline := f.server("pinnedinline", permission.MCPConfig)
	pinnedInline.Command, pinnedInline.Args = py, inline.Args
	pol := &requirements.Policy{MCP: &requirements.MCP{AllowedServers: []requirements.MCPServer{
		{Name: "inline", Command: py, SHA256: pySum},
		{Name: "loose", Command: py, SHA256: pySum},
		{Name: "pinned", Command: py, SHA256: pySum, Args: []string{"srv.py"}, ScriptSHA256: script},
		{Name: "pinnedinline", Command: py, SHA256: pySum, Args: []string{"-c", "print(1)"}},
	}}}
	c := f.config(inline, loose, pinned, pinnedInline)
	c.Policy.Allowed = allowList(pol)
	m := f.start(c)
	for _, n := range []string{"inline", "loose", "pinnedinline"} {
		st := statusOf(t, m, n)
		if st.State != mcp.StateRefused || f.started(n) {
			t.Errorf("%s: %+v (started %v), want refused", n, st, f.started(n))
		}
	}
	if st := statusOf(t, m, "inline"); !strings.Contains(st.Reason, "pins no arguments") {
		t.Errorf("inline: reason %q does not say the entry pins no arguments", st.Reason)
	}
	if st := statusOf(t, m, "pinned"); st.State != mcp.StateConnected {
		t.Fatalf("pinned python3 srv.py: %+v", st)
	}
	m.Close()

	f.writeScript(t, "# changed\n")
	c = f.config(pinned)
	c.Policy.Allowed = allowList(pol)
	if err := os.Remove(f.marker("pinned")); err != nil {
		t.Fatal(err)
	}
	m = f.start(c)
	if st := statusOf(t, m, "pinned"); st.State != mcp.StateRefused || !strings.Contains(st.Reason, "script_sha256") || f.started("pinned") {
		t.Fatalf("rewritten pinned script: %+v, want refused naming script_sha256", st)
	}
}

// TestToolDefinitionCap: the cap covers the whole definition: a 200 KB
// input schema, a long description nested in a property and prose in enum
// values each leave their tool out, with a notice in the server's status,
// and none of it reaches the model's request.
func TestToolDefinitionCap(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.server("h", permission.MCPConfig)
	s.Env[mcptest.HostileEnv] = "1"
	m := f.start(f.config(s))
	st := statusOf(t, m, "h")
	if st.State != mcp.StateConnected {
		t.Fatalf("%+v", st)
	}
	for _, n := range []string{"huge", "deepdesc", "enumtext"} {
		if !strings.Contains(st.Reason, "tool "+n+" is not offered") {
			t.Errorf("no notice for %s in %q", n, st.Reason)
		}
		if slices.Contains(st.Tools, n) {
			t.Errorf("%s listed as offered: %v", n, st.Tools)
		}
	}
	ev := st.Event().Text
	if !strings.Contains(ev, "tool huge is not offered: its definition is") || !strings.Contains(ev, "over the 8192-byte cap") {
		t.Errorf("event %q does not name the left-out tool and the cap", ev)
	}
	l := newLoop(t, m, nil, providertest.Call("mcp__h__escape", map[string]string{}), providertest.Call("mcp__h__escerror", map[string]string{}), providertest.Text("done"))
	if _, err := agent.Run(context.Background(), l.cfg, nil, "go"); err != nil {
		t.Fatal(err)
	}
	reqs := l.srv.Requests()
	offered := reqs[0].Tools
	for _, n := range []string{"mcp__h__huge", "mcp__h__deepdesc", "mcp__h__enumtext"} {
		if slices.Contains(offered, n) {
			t.Errorf("%s offered to the model", n)
		}
	}
	if !slices.Contains(offered, "mcp__h__echo") || !slices.Contains(offered, "mcp__h__escdesc") {
		t.Errorf("tools within the caps missing: %v", offered)
	}
	for i, r := range reqs {
		if len(r.Body) > 64<<10 || strings.Contains(string(r.Body), `"p11999"`) || strings.Contains(string(r.Body), "IGNORE PREVIOUS") {
			t.Errorf("request %d carries a left-out definition (%d bytes)", i, len(r.Body))
		}
	}
	// Escape bytes: not in the results, the error text or the description.
	checkNoEscapes(t, reqs[len(reqs)-1].Body)
	res := l.results(t)
	if len(res) != 2 || !strings.Contains(res[0], "beforelink") || !strings.Contains(res[0], "after") || !strings.Contains(res[0], "resource") || !strings.Contains(res[1], "failed") {
		t.Errorf("results %q", res)
	}
}

// checkNoEscapes fails when any string of a JSON request body carries an
// escape, control (but newline and tab), bidi or tag character.
func checkNoEscapes(t *testing.T, body []byte) {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatal(err)
	}
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			for _, r := range v {
				if r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r <= 0x9f || r >= 0x202a && r <= 0x202e || r >= 0xe0000 && r <= 0xe007f {
					t.Errorf("the model request carries %U in %q", r, v)
					return
				}
			}
			if strings.Contains(v, "]52;") || strings.Contains(v, "pwned") || strings.Contains(v, "evil.example") {
				t.Errorf("the model request carries an escape sequence's payload: %q", v)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(v)
}

var _ tools.Tool = (*mcp.Tool)(nil)
