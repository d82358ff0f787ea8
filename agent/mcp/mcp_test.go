package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/fsguard"
	"github.com/oceancode/oceancode/agent/gate"
	"github.com/oceancode/oceancode/agent/mcp"
	"github.com/oceancode/oceancode/agent/mcp/mcptest"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/provider"
	"github.com/oceancode/oceancode/agent/provider/anthropic"
	"github.com/oceancode/oceancode/agent/provider/providertest"
	"github.com/oceancode/oceancode/agent/sandbox"
	"github.com/oceancode/oceancode/agent/sandbox/sandboxtest"
	"github.com/oceancode/oceancode/agent/shellguard"
	"github.com/oceancode/oceancode/agent/tools"
	"github.com/oceancode/oceancode/provenance"
	"github.com/oceancode/oceancode/requirements"
)

// The test binary doubles as the MCP server (mcptest.Main, re-executed with
// OC_MCP_TEST_SERVER=1) and as the sandbox helper.
func TestMain(m *testing.M) {
	if os.Getenv(mcptest.ServerEnv) == "1" {
		mcptest.Main()
	}
	sandboxtest.ServeHelper()
	code := m.Run()
	sandboxtest.Cleanup()
	os.Exit(code)
}

// fixture is a project directory, a trust store in a state directory of
// its own and the path of the server executable.
type fixture struct {
	t       testing.TB
	root    string
	state   string
	exe     string
	trust   *mcp.TrustStore
	markers string
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(tmp, "project")
	state := filepath.Join(tmp, "state")
	for _, d := range []string{root, state, filepath.Join(tmp, "markers")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, root: root, state: state, exe: exe, markers: filepath.Join(tmp, "markers"),
		trust: &mcp.TrustStore{Path: filepath.Join(state, mcp.TrustFile)}}
}

// server is a stdio definition of the test server; its start marker is
// marker(name).
func (f *fixture) server(name string, o permission.MCPOrigin) mcp.Server {
	return mcp.Server{Name: name, Command: f.exe, Origin: o, Source: "test",
		Env: map[string]string{mcptest.ServerEnv: "1", "OC_MCP_MARKER": f.marker(name)}}
}

func (f *fixture) marker(name string) string { return filepath.Join(f.markers, name) }

func (f *fixture) started(name string) bool {
	_, err := os.Stat(f.marker(name))
	return err == nil
}

func (f *fixture) config(servers ...mcp.Server) mcp.Config {
	return mcp.Config{Servers: servers, Policy: mcp.Policy{Trust: f.trust, Project: f.root},
		Env: []string{"PATH=/usr/bin:/bin"}, Sandbox: sandbox.Policy{Dir: f.root, Workspace: f.root},
		StartTimeout: 2 * time.Minute, CallTimeout: 2 * time.Minute} // hang guards
}

func (f *fixture) start(c mcp.Config) *mcp.Manager {
	f.t.Helper()
	m := mcp.Start(c)
	f.t.Cleanup(func() { m.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	m.Wait(ctx)
	return m
}

func statusOf(t *testing.T, m *mcp.Manager, name string) mcp.Status {
	t.Helper()
	for _, s := range m.Statuses() {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no status for %s in %+v", name, m.Statuses())
	return mcp.Status{}
}

func toolNames(ts []tools.Tool) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Def().Name)
	}
	slices.Sort(out)
	return out
}

func find(t *testing.T, ts []tools.Tool, name string) tools.Tool {
	t.Helper()
	for _, tl := range ts {
		if tl.Def().Name == name {
			return tl
		}
	}
	t.Fatalf("no tool %s in %v", name, toolNames(ts))
	return nil
}

func call(t *testing.T, tl tools.Tool, input string) tools.Result {
	t.Helper()
	return tl.Run(context.Background(), &tools.Env{}, json.RawMessage(input))
}

// TestListAndCall: a config server starts, lists every tool (several pages)
// as mcp__<server>__<tool>, and answers a call marked as untrusted output.
func TestListAndCall(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	m := f.start(f.config(f.server("srv", permission.MCPConfig)))
	ts := m.Tools(context.Background())
	var want []string
	for _, n := range mcptest.Tools {
		want = append(want, "mcp__srv__"+n)
	}
	if got := toolNames(ts); !slices.Equal(got, want) {
		t.Fatalf("tools = %v, want %v (every page of the listing)", got, want)
	}
	echo := find(t, ts, "mcp__srv__echo")
	tg, err := echo.Target(json.RawMessage(`{"text":"hi"}`))
	if err != nil || tg.Tool != "mcp" || tg.Input != "srv/echo" || tg.MCPOrigin != permission.MCPConfig || len(tg.MCPIdentity) != 16 {
		t.Fatalf("Target = %+v, %v", tg, err)
	}
	res := call(t, echo, `{"text":"hi"}`)
	if res.IsError || !strings.Contains(res.Content, "echo: hi") || !strings.HasPrefix(res.Content, "[untrusted output of MCP server srv (config), tool echo") {
		t.Fatalf("result = %+v", res)
	}
	if _, err := echo.Target(json.RawMessage(`[1]`)); err == nil {
		t.Error("Target accepted an input that is not an object")
	}
	if res := call(t, find(t, ts, "mcp__srv__fail"), `{}`); !res.IsError || !strings.Contains(res.Content, "it failed") {
		t.Errorf("fail = %+v, want an error result", res)
	}
	// A server's error — here for arguments its schema refuses — is its
	// own text: marked as untrusted too.
	if res := call(t, echo, `{"text":5}`); !res.IsError || !strings.HasPrefix(res.Content, "[untrusted output of MCP server srv") {
		t.Errorf("bad arguments = %+v", res)
	}
	// Output is capped to the session's output limit.
	res = find(t, ts, "mcp__srv__big").Run(context.Background(), &tools.Env{OutputLimit: 1000}, json.RawMessage(`{"n":100000}`))
	if len(res.Content) > 1300 || !strings.Contains(res.Content, "bytes omitted") {
		t.Errorf("big result is %d bytes, want it capped with a note", len(res.Content))
	}
}

// TestProjectServerTrust: a .mcp.json server does not start before it is
// trusted (its start marker stays absent), starts once trusted, and a
// changed command or binary keeps it from starting and says what changed.
func TestProjectServerTrust(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	def := f.server("proj", permission.MCPProjectFile)
	m := f.start(f.config(def))
	st := statusOf(t, m, "proj")
	if st.State != mcp.StateUntrusted || !strings.Contains(st.Reason, "oceancode mcp trust proj") {
		t.Fatalf("status = %+v, want untrusted with the trust command", st)
	}
	if f.started("proj") {
		t.Fatal("the untrusted server started")
	}
	if n := len(m.Tools(context.Background())); n != 0 {
		t.Fatalf("%d tools offered from an untrusted server", n)
	}

	fp, err := mcp.Identify(def, f.root, "/usr/bin:/bin")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.trust.Trust(f.root, "proj", fp); err != nil {
		t.Fatal(err)
	}
	m2 := f.start(f.config(def))
	if st := statusOf(t, m2, "proj"); st.State != mcp.StateConnected {
		t.Fatalf("trusted server: %+v", st)
	}
	if !f.started("proj") {
		t.Fatal("the trusted server did not start")
	}
	m2.Close()

	// A changed argument asks again.
	os.Remove(f.marker("proj"))
	changed := def
	changed.Args = []string{"--evil"}
	m3 := f.start(f.config(changed))
	if st := statusOf(t, m3, "proj"); st.State != mcp.StateUntrusted || !strings.Contains(st.Reason, `args "" → "--evil"`) {
		t.Fatalf("changed args: %+v", st)
	}
	// Another project's trust does not carry over.
	c := f.config(def)
	c.Policy.Project = filepath.Join(f.root, "other")
	if st := statusOf(t, f.start(c), "proj"); st.State != mcp.StateUntrusted {
		t.Fatalf("trust leaked to another project: %+v", st)
	}
	if f.started("proj") {
		t.Fatal("a changed server started")
	}
}

// TestChangedBinaryAsksAgain: trust binds the executable's SHA-256: the
// same path with other content does not start.
func TestChangedBinaryAsksAgain(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	bin := filepath.Join(f.root, "bin", "server")
	copyFile(t, f.exe, bin)
	def := f.server("proj", permission.MCPProjectFile)
	def.Command = "bin/server" // relative to the project
	fp, err := mcp.Identify(def, f.root, "")
	if err != nil {
		t.Fatal(err)
	}
	if fp.Executable != bin || len(fp.SHA256) != 64 {
		t.Fatalf("fingerprint = %+v", fp)
	}
	if err := f.trust.Trust(f.root, "proj", fp); err != nil {
		t.Fatal(err)
	}
	m := f.start(f.config(def))
	if st := statusOf(t, m, "proj"); st.State != mcp.StateConnected {
		t.Fatalf("trusted: %+v", st)
	}
	m.Close()
	os.Remove(f.marker("proj"))
	fh, err := os.OpenFile(bin, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fh.Write([]byte("tampered"))
	fh.Close()
	st := statusOf(t, f.start(f.config(def)), "proj")
	if st.State != mcp.StateUntrusted || !strings.Contains(st.Reason, "executable sha256") {
		t.Fatalf("changed binary: %+v", st)
	}
	if f.started("proj") {
		t.Fatal("the changed binary started")
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestAllowList: the requirements' allow-list is checked before a start
// (through requirements.Policy.MCPAllowed, as the CLI wires it): a pinned
// SHA-256 that does not match never starts, a matching one does, and a
// server the list does not name never starts.
func TestAllowList(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	good := f.server("good", permission.MCPConfig)
	bad := f.server("bad", permission.MCPConfig)
	other := f.server("other", permission.MCPConfig)
	fp, err := mcp.Identify(good, f.root, "")
	if err != nil {
		t.Fatal(err)
	}
	pol := &requirements.Policy{MCP: &requirements.MCP{AllowedServers: []requirements.MCPServer{
		{Name: "good", Command: f.exe, SHA256: fp.SHA256},
		{Name: "bad", Command: f.exe, SHA256: strings.Repeat("0", 64)},
	}}}
	c := f.config(good, bad, other)
	c.Policy.Allowed = allowList(pol)
	m := f.start(c)
	if st := statusOf(t, m, "good"); st.State != mcp.StateConnected {
		t.Errorf("matching sha256: %+v", st)
	}
	for _, n := range []string{"bad", "other"} {
		if st := statusOf(t, m, n); st.State != mcp.StateRefused {
			t.Errorf("%s: %+v, want refused", n, st)
		}
		if f.started(n) {
			t.Errorf("%s started", n)
		}
	}
	if !strings.Contains(statusOf(t, m, "bad").Reason, "does not match the SHA-256") {
		t.Errorf("bad reason = %q", statusOf(t, m, "bad").Reason)
	}
	// The runtime add goes through the same check.
	if _, err := m.Add(context.Background(), f.server("late", permission.MCPRuntime)); !errors.Is(err, mcp.ErrRefused) {
		t.Errorf("runtime add of an unlisted server: %v, want refused", err)
	}
	if f.started("late") {
		t.Error("the refused runtime add started")
	}
}

// TestRuntimeAdd: a runtime add starts at once with the runtime origin; a
// duplicate name is refused.
func TestRuntimeAdd(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	m := f.start(f.config())
	st, err := m.Add(context.Background(), f.server("rt", permission.MCPOriginUnknown))
	if err != nil || st.State != mcp.StateConnected || st.Origin != "runtime" {
		t.Fatalf("Add = %+v, %v", st, err)
	}
	tl := find(t, m.Tools(context.Background()), "mcp__rt__echo")
	if tg, _ := tl.Target(nil); tg.MCPOrigin != permission.MCPRuntime {
		t.Errorf("origin = %v, want runtime", tg.MCPOrigin)
	}
	if _, err := m.Add(context.Background(), f.server("rt", permission.MCPRuntime)); err == nil {
		t.Error("a second server named rt was added")
	}
}

// TestTimeoutAndReconnect: a call that outlasts the call timeout ends with
// a clear error, and the next call starts the server again.
func TestTimeoutAndReconnect(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	c := f.config(f.server("srv", permission.MCPConfig))
	// The call timeout is the hang guard the hung call runs into; the
	// restart after it is bounded by the start timeout (20 s), not by this,
	// so a busy machine's slow restart does not fail the next call.
	c.CallTimeout = 2 * time.Second
	m := f.start(c)
	ts := m.Tools(context.Background())
	res := call(t, find(t, ts, "mcp__srv__sleep"), `{"ms":600000}`) // hangs
	if !res.IsError || !strings.Contains(res.Content, "no answer within 2s") {
		t.Fatalf("slow call = %+v", res)
	}
	res = call(t, find(t, ts, "mcp__srv__echo"), `{"text":"again"}`)
	if res.IsError || !strings.Contains(res.Content, "echo: again") {
		t.Fatalf("call after the timeout = %+v", res)
	}
	b, _ := os.ReadFile(f.marker("srv"))
	if n := strings.Count(string(b), "started"); n != 2 {
		t.Errorf("the server started %d times, want 2 (restarted after the hung call)", n)
	}
}

// TestReconnectRechecksTrust: a project server that went away is started
// again only through Admit: changed meanwhile, it is not.
func TestReconnectRechecksTrust(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	def := f.server("proj", permission.MCPProjectFile)
	fp, _ := mcp.Identify(def, f.root, "")
	if err := f.trust.Trust(f.root, "proj", fp); err != nil {
		t.Fatal(err)
	}
	c := f.config(def)
	c.CallTimeout = 300 * time.Millisecond
	m := f.start(c)
	ts := m.Tools(context.Background())
	call(t, find(t, ts, "mcp__proj__sleep"), `{"ms":600000}`) // hangs, times out: the session is dropped
	if err := f.trust.Forget(f.root, "proj"); err != nil {
		t.Fatal(err)
	}
	res := call(t, find(t, ts, "mcp__proj__echo"), `{"text":"x"}`)
	if !res.IsError || !strings.Contains(res.Content, "not trusted yet") {
		t.Fatalf("reconnect without trust = %+v", res)
	}
}

// TestChildEnv: a stdio server gets the composed child environment; a
// secret-named variable reaches it only where its config names it.
func TestChildEnv(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	def := f.server("srv", permission.MCPConfig)
	def.Env["GITHUB_TOKEN"] = "${GITHUB_TOKEN}"
	c := f.config(def)
	c.Getenv = func(k string) string {
		return map[string]string{"GITHUB_TOKEN": "ghp-named", "OTHER_TOKEN": "leak"}[k]
	}
	ts := f.start(c).Tools(context.Background())
	env := find(t, ts, "mcp__srv__env")
	if r := call(t, env, `{"name":"GITHUB_TOKEN"}`); !strings.Contains(r.Content, "GITHUB_TOKEN=ghp-named") {
		t.Errorf("named secret: %s", r.Content)
	}
	if r := call(t, env, `{"name":"OTHER_TOKEN"}`); !strings.Contains(r.Content, "OTHER_TOKEN is unset") {
		t.Errorf("unnamed secret: %s", r.Content)
	}
	if r := call(t, env, `{"name":"PATH"}`); !strings.Contains(r.Content, "PATH=/usr/bin:/bin") {
		t.Errorf("child env: %s", r.Content)
	}
}

// TestSandboxed: with the sandbox on, a stdio server runs confined: it
// writes in the workspace, not outside it.
func TestSandboxed(t *testing.T) {
	t.Parallel()
	if err := sandbox.Detect().Usable(); err != nil {
		t.Skipf("sandbox unavailable: %v", err)
	}
	f := newFixture(t)
	outside := t.TempDir()
	def := f.server("srv", permission.MCPConfig)
	def.Env["OC_MCP_MARKER"] = "" // the marker directory is outside the workspace
	// The server binary where the sandbox shows it (the test binary's own
	// directory is under /tmp, which the sandbox replaces).
	data, err := os.ReadFile(f.exe)
	if err != nil {
		t.Fatal(err)
	}
	def.Command = filepath.Join(f.root, "mcp-server.test")
	if err := os.WriteFile(def.Command, data, 0o755); err != nil {
		t.Fatal(err)
	}
	c := f.config(def)
	c.Sandbox = sandbox.Policy{Enabled: true, Mode: sandbox.ModeWorkspaceWrite, Workspace: f.root, Dir: f.root}
	m := f.start(c)
	if st := statusOf(t, m, "srv"); st.State != mcp.StateConnected {
		t.Fatalf("confined server: %+v", st)
	}
	w := find(t, m.Tools(context.Background()), "mcp__srv__write")
	if r := call(t, w, fmt.Sprintf(`{"path":%q}`, filepath.Join(f.root, "in.txt"))); !strings.Contains(r.Content, "wrote") {
		t.Errorf("write in the workspace: %s", r.Content)
	}
	if r := call(t, w, fmt.Sprintf(`{"path":%q}`, filepath.Join(outside, "out.txt"))); !strings.Contains(r.Content, "write failed") {
		t.Errorf("write outside the workspace: %s", r.Content)
	}
}

// TestStreamableHTTP: a remote server on loopback, with its headers.
func TestStreamableHTTP(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var mu sync.Mutex
	var seen []string
	h := mcptest.Handler()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization"))
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	c := f.config(mcp.Server{Name: "web", URL: ts.URL, Origin: permission.MCPConfig, Headers: map[string]string{"Authorization": "Bearer ${WEB_TOKEN}"}})
	c.Getenv = func(k string) string { return map[string]string{"WEB_TOKEN": "tok"}[k] }
	m := f.start(c)
	tl := m.Tools(context.Background())
	if len(tl) != len(mcptest.Tools) {
		t.Fatalf("tools = %v (%+v)", toolNames(tl), m.Statuses())
	}
	if r := call(t, find(t, tl, "mcp__web__echo"), `{"text":"net"}`); r.IsError || !strings.Contains(r.Content, "echo: net") {
		t.Fatalf("call = %+v", r)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) == 0 || seen[0] != "Bearer tok" {
		t.Errorf("Authorization headers = %q", seen)
	}
}

// TestToolName: names the model APIs accept, and long names stay unique.
func TestToolName(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ s, t, want string }{
		{"github", "create_issue", "mcp__github__create_issue"},
		{"my.srv", "a b", "mcp__my_srv__a_b"},
	} {
		if got := mcp.ToolName(tt.s, tt.t); got != tt.want {
			t.Errorf("ToolName(%q, %q) = %q, want %q", tt.s, tt.t, got, tt.want)
		}
	}
	a, b := mcp.ToolName("s", strings.Repeat("x", 80)+"1"), mcp.ToolName("s", strings.Repeat("x", 80)+"2")
	if len(a) > 64 || a == b {
		t.Errorf("long names %q and %q", a, b)
	}
}

// loop runs the turn loop over a scripted model with the manager's tools.
type loopRun struct {
	cfg agent.Config
	srv *providertest.Server
}

func newLoop(t *testing.T, m *mcp.Manager, rules []permission.Rule, turns ...providertest.Turn) *loopRun {
	t.Helper()
	srv := providertest.New(t, turns...)
	p, err := anthropic.New(provider.Config{Type: "anthropic", BaseURL: srv.AnthropicURL(), APIKey: providertest.APIKey, Stream: true, RetryBackoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	g, err := gate.New(gate.Config{Permission: permission.Config{Rules: rules}, Shell: shellguard.Config{ProjectRoot: dir, Home: dir}, Boundary: fsguard.Boundary{ProjectRoot: dir}})
	if err != nil {
		t.Fatal(err)
	}
	return &loopRun{srv: srv, cfg: agent.Config{Agent: agent.Build, Model: "m", Provider: p, Gate: g,
		Tools: []tools.Tool{tools.ReadTool{}},
		Env:   &tools.Env{Boundary: fsguard.Boundary{ProjectRoot: dir}, Cwd: dir},
		Extra: func(ctx context.Context) ([]tools.Tool, []agent.Event) { return m.Tools(ctx), nil }}}
}

func (l *loopRun) results(t *testing.T) []string {
	t.Helper()
	reqs := l.srv.Requests()
	var out []string
	for _, m := range reqs[len(reqs)-1].Messages {
		for _, p := range m.Parts {
			if p.ToolResult != nil {
				out = append(out, p.ToolResult.Content)
			}
		}
	}
	return out
}

var ruleOrigin = provenance.Origin{Layer: provenance.Project, Source: "test.json", Line: 1}

// TestPermissions: calls through the turn loop under the key mcp: a config
// server runs without asking; a project server asks, "always" approves the
// whole server; a headless run refuses with the rule that approves the
// server; a "* deny" hides the tool from the model's request.
func TestPermissions(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	proj := f.server("proj", permission.MCPProjectFile)
	fp, _ := mcp.Identify(proj, f.root, "")
	if err := f.trust.Trust(f.root, "proj", fp); err != nil {
		t.Fatal(err)
	}
	m := f.start(f.config(f.server("cfg", permission.MCPConfig), proj))

	t.Run("config server runs without asking", func(t *testing.T) {
		l := newLoop(t, m, nil, providertest.Call("mcp__cfg__echo", map[string]string{"text": "a"}), providertest.Text("done"))
		asked := 0
		l.cfg.Ask = func(context.Context, agent.Ask) (agent.Reply, error) {
			asked++
			return agent.Reply{Answer: agent.Deny}, nil
		}
		if _, err := agent.Run(context.Background(), l.cfg, nil, "go"); err != nil {
			t.Fatal(err)
		}
		if r := l.results(t); asked != 0 || len(r) != 1 || !strings.Contains(r[0], "echo: a") {
			t.Fatalf("asked %d times, results %q", asked, r)
		}
	})
	t.Run("always approves the whole server", func(t *testing.T) {
		l := newLoop(t, m, nil,
			providertest.Call("mcp__proj__echo", map[string]string{"text": "1"}),
			providertest.Call("mcp__proj__t1", map[string]string{}),
			providertest.Text("done"))
		var asks []string
		l.cfg.Ask = func(_ context.Context, a agent.Ask) (agent.Reply, error) {
			asks = append(asks, a.Target.Input)
			return agent.Reply{Answer: agent.Always}, nil
		}
		if _, err := agent.Run(context.Background(), l.cfg, nil, "go"); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(asks, []string{"proj/echo"}) {
			t.Fatalf("asks = %q, want one for proj/echo and none for proj/t1", asks)
		}
		if r := l.results(t); len(r) != 2 || !strings.Contains(r[1], "tool t1") {
			t.Fatalf("results = %q", r)
		}
	})
	t.Run("headless refusal names the rule", func(t *testing.T) {
		l := newLoop(t, m, nil, providertest.Call("mcp__proj__echo", map[string]string{"text": "1"}), providertest.Text("done"))
		res, err := agent.Run(context.Background(), l.cfg, nil, "go")
		if err != nil {
			t.Fatal(err)
		}
		r := l.results(t)
		if res.Denied != 1 || len(r) != 1 || !strings.Contains(r[0], "refused: this headless run cannot ask") ||
			!strings.Contains(r[0], `"permission": {"mcp": {"proj/*": "allow"}}`) {
			t.Fatalf("denied %d, results %q", res.Denied, r)
		}
		if f.started("never") {
			t.Fatal("unreachable")
		}
	})
	t.Run("a deny hides the tool", func(t *testing.T) {
		rules := []permission.Rule{
			{Key: "mcp", Pattern: "cfg/fail", Action: permission.Deny, Origin: ruleOrigin},
			{Key: "mcp", Pattern: "proj/*", Action: permission.Deny, Origin: ruleOrigin},
		}
		l := newLoop(t, m, rules, providertest.Text("done"))
		if _, err := agent.Run(context.Background(), l.cfg, nil, "go"); err != nil {
			t.Fatal(err)
		}
		offered := l.srv.Requests()[0].Tools
		if slices.Contains(offered, "mcp__cfg__fail") || slices.ContainsFunc(offered, func(n string) bool { return strings.HasPrefix(n, "mcp__proj__") }) {
			t.Fatalf("denied tools offered: %v", offered)
		}
		if !slices.Contains(offered, "mcp__cfg__echo") || !slices.Contains(offered, "read") {
			t.Fatalf("allowed tools missing: %v", offered)
		}
	})
	t.Run("readOnlyHint is not trusted", func(t *testing.T) {
		// echo carries readOnlyHint; a project server's echo still asks
		// (the headless run refuses it), in plan mode too.
		l := newLoop(t, m, nil, providertest.Call("mcp__proj__echo", map[string]string{"text": "1"}), providertest.Text("done"))
		res, _ := agent.Run(context.Background(), l.cfg, nil, "go")
		if res.Denied != 1 {
			t.Fatalf("a readOnlyHint tool ran without asking")
		}
	})
}

// TestDeniedServerNotStarted: a server all of whose tools a rule denies
// (the deny list: "server/*" or "*") is not started; one with a single
// tool denied starts.
func TestDeniedServerNotStarted(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	eng, err := permission.New(permission.Config{Rules: []permission.Rule{
		{Key: "mcp", Pattern: "gone/*", Action: permission.Deny, Origin: ruleOrigin},
		{Key: "mcp", Pattern: "part/fail", Action: permission.Deny, Origin: ruleOrigin},
		{Key: "mcp", Pattern: "part/?", Action: permission.Deny, Origin: ruleOrigin},
	}})
	if err != nil {
		t.Fatal(err)
	}
	c := f.config(f.server("gone", permission.MCPConfig), f.server("part", permission.MCPConfig))
	c.Policy.Denied = mcp.DeniedBy(eng.OfferedMCP)
	m := f.start(c)
	if st := statusOf(t, m, "gone"); st.State != mcp.StateDenied || !strings.Contains(st.Reason, "mcp(gone/*)") {
		t.Errorf("gone: %+v", st)
	}
	if f.started("gone") {
		t.Error("a server whose every tool is denied started")
	}
	if st := statusOf(t, m, "part"); st.State != mcp.StateConnected {
		t.Errorf("part: %+v", st)
	}
}

// TestAlwaysBoundToDefinition: "always" for a server is bound to its
// definition and executable: the same name with a changed (and trusted
// again) definition asks again, with the session's approvals restored.
func TestAlwaysBoundToDefinition(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	trust := func(d mcp.Server) {
		fp, err := mcp.Identify(d, f.root, "")
		if err != nil {
			t.Fatal(err)
		}
		if err := f.trust.Trust(f.root, d.Name, fp); err != nil {
			t.Fatal(err)
		}
	}
	def := f.server("proj", permission.MCPProjectFile)
	trust(def)
	approvals := &permission.Approvals{}
	run := func(m *mcp.Manager) int {
		l := newLoop(t, m, nil, providertest.Call("mcp__proj__echo", map[string]string{"text": "1"}), providertest.Text("done"))
		l.cfg.Approvals = approvals
		asks := 0
		l.cfg.Ask = func(context.Context, agent.Ask) (agent.Reply, error) {
			asks++
			return agent.Reply{Answer: agent.Always}, nil
		}
		if _, err := agent.Run(context.Background(), l.cfg, nil, "go"); err != nil {
			t.Fatal(err)
		}
		return asks
	}
	m := f.start(f.config(def))
	if n := run(m); n != 1 {
		t.Fatalf("first call asked %d times", n)
	}
	if n := run(m); n != 0 {
		t.Fatalf("after always, asked %d times", n)
	}
	m.Close()
	// The session's approvals as stored, restored into a new session.
	restored := &permission.Approvals{}
	restored.Restore(approvals.List())
	approvals = restored
	if n := run(f.start(f.config(def))); n != 0 {
		t.Fatalf("same definition, restored approvals: asked %d times", n)
	}
	changed := def
	changed.Args = []string{"--other"}
	trust(changed)
	if n := run(f.start(f.config(changed))); n != 1 {
		t.Fatalf("changed definition: asked %d times, want 1", n)
	}
}

// TestNameCollision: two servers whose tool names sanitize alike: the
// second's tools are left out, said once in its state.
func TestNameCollision(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	m := f.start(f.config(f.server("x.y", permission.MCPConfig), f.server("x_y", permission.MCPConfig)))
	for range 2 {
		if n := len(m.Tools(context.Background())); n != len(mcptest.Tools) {
			t.Fatalf("%d tools, want %d", n, len(mcptest.Tools))
		}
	}
	st := statusOf(t, m, "x_y")
	if !strings.Contains(st.Reason, "tool echo is not offered: its name mcp__x_y__echo collides with x.y/echo") || strings.Count(st.Reason, "tool echo ") != 1 {
		t.Errorf("x_y reason = %q", st.Reason)
	}
}

// TestServerExits: a server that dies mid-call ends the call with an error
// naming its stderr, its state says so, and the next call starts it again.
func TestServerExits(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	m := f.start(f.config(f.server("srv", permission.MCPConfig)))
	ts := m.Tools(context.Background())
	m.Drain()
	res := call(t, find(t, ts, "mcp__srv__crash"), `{}`)
	if !res.IsError || !strings.Contains(res.Content, "mcptest: crashing as asked") {
		t.Fatalf("crash = %+v", res)
	}
	res = call(t, find(t, ts, "mcp__srv__echo"), `{"text":"back"}`)
	if res.IsError || !strings.Contains(res.Content, "echo: back") {
		t.Fatalf("call after the crash = %+v", res)
	}
	var states []string
	for _, st := range m.Drain() {
		states = append(states, st.State)
	}
	if !slices.Contains(states, mcp.StateConnected) {
		t.Errorf("states after the crash: %v, want a reconnect", states)
	}
}

// allowList is the requirements' allow-list as the CLI wires it
// (sessionconfig.MCPPolicy).
func allowList(pol *requirements.Policy) func(mcp.Candidate) (bool, string) {
	return func(c mcp.Candidate) (bool, string) { return pol.MCPAllowed(requirements.MCPCandidate(c)) }
}
