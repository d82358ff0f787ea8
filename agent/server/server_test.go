package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/oceancode/oceancode/agent/checkpoint"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/provider/providertest"
	"github.com/oceancode/oceancode/agent/runner"
	"github.com/oceancode/oceancode/agent/server"
	"github.com/oceancode/oceancode/agent/server/servertest"
	"github.com/oceancode/oceancode/agent/session"
)

const testToken = "test-token-0123456789abcdefghijklmnopqrstuvwxyz"

// guard bounds every wait of these tests: it fires only when something is
// broken (a hang), never because a busy machine is slow.
const guard = 2 * time.Minute

// harness is a Server over real runner sessions, a real session store
// and a scripted loopback model, behind httptest.
type harness struct {
	t      testing.TB
	model  *providertest.Server
	store  *session.Store
	srv    *server.Server
	ts     *httptest.Server
	dir    string
	cfg    server.Config
	locks  permission.Locks
	rules  []string // ask rules, e.g. "Bash(echo:*)"
	schema *schemas
	// noStore runs the sessions unrecorded; buffer is their subscriber
	// buffer (0: the runner's); smallSocket shrinks the server's send
	// buffers so a client that does not read blocks its stream.
	noStore     bool
	buffer      int
	smallSocket bool
	loop        bool // the model's turns start over when they run out
	checkpoints bool // the sessions keep checkpoints (checkpoint_test.go)
}

type option func(*harness)

func withLocks(l permission.Locks) option { return func(h *harness) { h.locks = l } }
func withAsk(rules ...string) option      { return func(h *harness) { h.rules = rules } }
func withoutStore() option                { return func(h *harness) { h.noStore = true } }
func withLoop() option                    { return func(h *harness) { h.loop = true } }
func withBuffer(n int, small bool) option {
	return func(h *harness) { h.buffer, h.smallSocket = n, small }
}
func withConfig(f func(*server.Config)) option {
	return func(h *harness) { f(&h.cfg) }
}

func newHarness(t testing.TB, turns []providertest.Turn, opts ...option) *harness {
	t.Helper()
	h := &harness{t: t, dir: t.TempDir(), schema: loadSchemas(t)}
	h.cfg = server.Config{Token: testToken, TokenHint: "the test", Addr: "127.0.0.1:1",
		NewSession: h.newSession, Inspect: func() ([]byte, error) { return []byte(`{"version":1}`), nil }}
	for _, o := range opts {
		o(h)
	}
	h.model = providertest.NewScript(t, providertest.Script{Turns: turns, Loop: h.loop})
	st, err := session.Open(context.Background(), filepath.Join(h.dir, "sessions.db"))
	if err != nil {
		t.Fatal(err)
	}
	h.store = st
	t.Cleanup(func() { st.Close() })
	h.ts = httptest.NewUnstartedServer(nil)
	if h.smallSocket {
		h.ts.Listener = smallSendBuffers{h.ts.Listener}
	}
	h.ts.Start()
	h.cfg.Addr = h.ts.Listener.Addr().String()
	srv, err := server.New(h.cfg)
	if err != nil {
		t.Fatal(err)
	}
	h.srv = srv
	h.ts.Config.Handler = srv
	t.Cleanup(func() {
		h.srv.Close()
		h.ts.Close()
	})
	return h
}

func (h *harness) turnConfig(agentName, mode string) (agent.Config, error) {
	return servertest.TurnConfig(servertest.TurnOptions{Dir: h.dir, ModelURL: h.model.OpenAIURL(), Agent: agentName,
		Mode: permission.Mode(mode), Ask: h.rules, Locks: h.locks})
}

func (h *harness) newSession(ctx context.Context, r server.CreateRequest) (*runner.Session, error) {
	if r.Model == "bad" {
		return nil, server.Errorf(http.StatusBadRequest, "bad_request", fmt.Errorf("model %q: want PROVIDER/MODEL", r.Model))
	}
	tc, err := h.turnConfig(r.Agent, r.PermissionMode)
	if err != nil {
		return nil, err
	}
	o := runner.Options{Turn: tc, Store: h.store, Resume: r.Resume, Interactive: true, Buffer: h.buffer}
	o.Reconfigure = h.reconfigure
	if h.checkpoints {
		o.Checkpoints = &checkpoint.Options{StateDir: filepath.Join(h.dir, "state")}
	}
	if h.noStore {
		o.Store = nil
	}
	return runner.Start(context.WithoutCancel(ctx), o)
}

// do sends a request with the token and decodes a JSON answer into out
// (when not nil); it returns the status.
func (h *harness) do(method, path string, body any, out any) int {
	h.t.Helper()
	resp := h.raw(method, path, body, map[string]string{"Authorization": "Bearer " + testToken})
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			h.t.Fatalf("%s %s: %d %s: %v", method, path, resp.StatusCode, data, err)
		}
	}
	return resp.StatusCode
}

func (h *harness) raw(method, path string, body any, hdr map[string]string) *http.Response {
	h.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			h.t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, h.ts.URL+path, rd)
	if err != nil {
		h.t.Fatal(err)
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := h.ts.Client().Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	return resp
}

// create makes a session and returns its id.
func (h *harness) create(body any) string {
	h.t.Helper()
	if body == nil {
		body = map[string]any{}
	}
	var st map[string]any
	if code := h.do("POST", "/api/session", body, &st); code != http.StatusOK {
		h.t.Fatalf("create: %d %v", code, st)
	}
	h.schema.check(h.t, "State", st)
	return st["id"].(string)
}

func (h *harness) send(id, text string) {
	h.t.Helper()
	var a map[string]any
	if code := h.do("POST", "/api/session/"+id+"/message", map[string]string{"text": text}, &a); code != http.StatusAccepted {
		h.t.Fatalf("message: %d %v", code, a)
	}
	h.schema.check(h.t, "Accepted", a)
}

// stream opens the event stream; events arrive on the channel until the
// stream ends (closed) or the test ends.
func (h *harness) stream(id string, hdr map[string]string) (<-chan servertest.Event, func()) {
	h.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", h.ts.URL+"/api/session/"+id+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := h.ts.Client().Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		b, _ := io.ReadAll(resp.Body)
		h.t.Fatalf("events: %d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	ch := servertest.Stream(resp.Body, 4096)
	h.t.Cleanup(cancel)
	return ch, cancel
}

// until reads events until one of type typ (inclusive); the deadline is a
// hang guard (guard), not an expectation of speed.
func (h *harness) until(ch <-chan servertest.Event, typ string) []servertest.Event {
	h.t.Helper()
	var got []servertest.Event
	deadline := time.After(guard)
	for {
		select {
		case e, ok := <-ch:
			if !ok {
				h.t.Fatalf("stream ended before a %s event; got %v", typ, servertest.Types(got))
			}
			got = append(got, e)
			var v any
			if err := json.Unmarshal([]byte(e.Data), &v); err != nil {
				h.t.Fatalf("event data is not JSON: %q", e.Data)
			}
			h.schema.check(h.t, "StreamEvent", v)
			if e.Type() == typ {
				return got
			}
		case <-deadline:
			h.t.Fatalf("no %s event within %v; got %v", typ, guard, servertest.Types(got))
		}
	}
}

// schemas validates values against the OpenAPI document's schemas.
type schemas struct{ *servertest.Schemas }

func loadSchemas(t testing.TB) *schemas {
	t.Helper()
	s, err := servertest.NewSchemas(server.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	return &schemas{s}
}

// check validates v's JSON form.
func (s *schemas) check(t testing.TB, name string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	s.Check(t, name, b)
}

// routePath fills a route pattern's wildcards.
func routePath(pattern, id string) string {
	return strings.NewReplacer("{id}", id, "{req}", "no-such-ask", "{name}", "no-such-server").Replace(pattern)
}

// TestAuthOnEveryRoute walks the route table: without a token or with a
// wrong one every route is 401 (with WWW-Authenticate); a browser Origin
// or a foreign Host is 403 with or without the token.
func TestAuthOnEveryRoute(t *testing.T) {
	t.Parallel()
	h := newHarness(t, []providertest.Turn{providertest.Text("hi")})
	id := h.create(nil)
	routes := append(h.srv.Routes(), "GET /no/such/route")
	good := "Bearer " + testToken
	cases := []struct {
		name string
		hdr  map[string]string
		want int
	}{
		{"no token", nil, 401},
		{"wrong token", map[string]string{"Authorization": "Bearer " + testToken + "x"}, 401},
		{"token as basic", map[string]string{"Authorization": "Basic " + testToken}, 401},
		{"browser origin with token", map[string]string{"Authorization": good, "Origin": "http://evil.example"}, 403},
		{"browser origin, no token", map[string]string{"Origin": "null"}, 403},
		{"foreign host with token", map[string]string{"Authorization": good, "Host": "evil.example:80"}, 403},
		{"rebound host, right port", map[string]string{"Authorization": good, "Host": "attacker.example:" + portOf(h.cfg.Addr)}, 403},
	}
	for _, rt := range routes {
		method, pattern, _ := strings.Cut(rt, " ")
		for _, c := range cases {
			resp := h.raw(method, routePath(pattern, id), nil, c.hdr)
			var e map[string]any
			json.NewDecoder(resp.Body).Decode(&e)
			resp.Body.Close()
			if resp.StatusCode != c.want {
				t.Errorf("%s %s (%s): %d, want %d", method, pattern, c.name, resp.StatusCode, c.want)
				continue
			}
			h.schema.check(t, "Error", e)
			if c.want == 401 && resp.Header.Get("WWW-Authenticate") == "" {
				t.Errorf("%s %s (%s): 401 without WWW-Authenticate", method, pattern, c.name)
			}
		}
	}
	// The accepted Host spellings of the bound port.
	for _, host := range []string{h.cfg.Addr, "localhost:" + portOf(h.cfg.Addr), "[::1]:" + portOf(h.cfg.Addr)} {
		resp := h.raw("GET", "/api/openapi.json", nil, map[string]string{"Authorization": good, "Host": host})
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("Host %s: %d, want 200", host, resp.StatusCode)
		}
	}
}

func portOf(addr string) string { return addr[strings.LastIndex(addr, ":")+1:] }

// TestOpenAPIMatchesRoutes: every route is documented with its method, and
// every documented operation is a route.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	t.Parallel()
	h := newHarness(t, []providertest.Turn{providertest.Text("hi")})
	var doc struct {
		OpenAPI string                                `json:"openapi"`
		Paths   map[string]map[string]json.RawMessage `json:"paths"`
	}
	if code := h.do("GET", "/api/openapi.json", nil, &doc); code != 200 {
		t.Fatalf("openapi.json: %d", code)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi %q, want 3.1.0", doc.OpenAPI)
	}
	documented := map[string]bool{}
	for p, ops := range doc.Paths {
		for m := range ops {
			if m == "parameters" {
				continue
			}
			documented[strings.ToUpper(m)+" "+p] = true
		}
	}
	served := map[string]bool{}
	for _, r := range h.srv.Routes() {
		served[r] = true
		if !documented[r] {
			t.Errorf("route %s is not in openapi.json", r)
		}
	}
	for d := range documented {
		if !served[d] {
			t.Errorf("openapi.json documents %s, which is not served", d)
		}
	}
}

func TestOpenAPIRefsCompile(t *testing.T) {
	t.Parallel()
	s := loadSchemas(t)
	var doc struct {
		Components struct {
			Schemas map[string]json.RawMessage `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(server.OpenAPI, &doc); err != nil {
		t.Fatal(err)
	}
	for name := range doc.Components.Schemas {
		if _, err := s.Compile(name); err != nil {
			t.Errorf("schema %s: %v", name, err)
		}
	}
}

// TestTurnStreamsEveryEvent: a prompt's events, text deltas included,
// arrive with consecutive ids and validate against the schema.
func TestTurnStreamsEveryEvent(t *testing.T) {
	t.Parallel()
	h := newHarness(t, []providertest.Turn{providertest.Text("one two three four")})
	id := h.create(map[string]any{"agent": "build"})
	ch, _ := h.stream(id, nil)
	h.send(id, "count")
	got := h.until(ch, "done")
	var texts int
	for i, e := range got {
		if e.ID != fmt.Sprint(i+1) {
			t.Errorf("event %d has id %s, want %d", i, e.ID, i+1)
		}
		if e.Type() == "text" {
			texts++
		}
	}
	if texts < 4 {
		t.Errorf("%d text deltas, want one per word (4): %v", texts, servertest.Types(got))
	}
	var st map[string]any
	h.do("GET", "/api/session/"+id, nil, &st)
	h.schema.check(t, "State", st)
	if st["last_seq"] != float64(len(got)) || st["status"] != "idle" || st["stop_reason"] != "end_turn" {
		t.Errorf("state after the turn: %v", st)
	}
}

// TestReplay: reconnecting with Last-Event-ID (or ?after=) gives the
// byte-identical suffix of the stream.
func TestReplay(t *testing.T) {
	t.Parallel()
	h := newHarness(t, []providertest.Turn{providertest.Text("alpha beta gamma delta epsilon")})
	id := h.create(nil)
	ch, stop := h.stream(id, nil)
	h.send(id, "go")
	all := h.until(ch, "done")
	stop()
	for _, k := range []int{0, 1, len(all) / 2, len(all) - 1} {
		for _, how := range []string{"header", "query"} {
			var ch2 <-chan servertest.Event
			var stop2 func()
			if how == "header" {
				ch2, stop2 = h.stream(id, map[string]string{"Last-Event-ID": fmt.Sprint(k)})
			} else {
				ch2, stop2 = h.streamQuery(id, k)
			}
			rest := h.until(ch2, "done")
			stop2()
			if got, want := servertest.Join(rest), servertest.Join(all[k:]); got != want {
				t.Errorf("replay after %d (%s):\n got %q\nwant %q", k, how, got, want)
			}
		}
	}
	resp := h.raw("GET", "/api/session/"+id+"/events", nil, map[string]string{"Authorization": "Bearer " + testToken, "Last-Event-ID": "x1"})
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Errorf("Last-Event-ID x1: %d, want 400", resp.StatusCode)
	}
}

func (h *harness) streamQuery(id string, after int) (<-chan servertest.Event, func()) {
	h.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", h.ts.URL+"/api/session/"+id+"/events?after="+url.QueryEscape(fmt.Sprint(after)), nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := h.ts.Client().Do(req)
	if err != nil || resp.StatusCode != 200 {
		h.t.Fatalf("events?after: %v %v", resp, err)
	}
	ch := servertest.Stream(resp.Body, 4096)
	h.t.Cleanup(cancel)
	return ch, cancel
}

// pendingAsk waits until the session has one pending ask and returns it.
func (h *harness) pendingAsk(id string) map[string]any {
	h.t.Helper()
	deadline := time.Now().Add(guard)
	for time.Now().Before(deadline) {
		var p struct {
			Pending []map[string]any `json:"pending"`
		}
		if code := h.do("GET", "/api/session/"+id+"/permission/pending", nil, &p); code != 200 {
			h.t.Fatalf("pending: %d", code)
		}
		if len(p.Pending) > 0 {
			h.schema.check(h.t, "Pending", p)
			return p.Pending[0]
		}
		time.Sleep(10 * time.Millisecond)
	}
	h.t.Fatalf("no pending ask within %v", guard)
	return nil
}

// TestAskAnsweredRemotely: once runs the call, a second answer is 409
// with the first, an unknown id 404, a bad answer 400; deny's feedback
// reaches the model; every subscriber sees resolved.
func TestAskAnsweredRemotely(t *testing.T) {
	t.Parallel()
	turns := []providertest.Turn{
		providertest.Call("bash", map[string]string{"command": "echo first"}),
		providertest.Call("bash", map[string]string{"command": "echo second"}),
		providertest.Text("done"),
	}
	h := newHarness(t, turns, withAsk("Bash(echo:*)"))
	id := h.create(nil)
	a, _ := h.stream(id, nil)
	b, _ := h.stream(id, nil)
	h.send(id, "echo things")
	ask := h.pendingAsk(id)
	askID := ask["id"].(string)
	if ask["tool"] != "bash" || !strings.HasPrefix(ask["input_digest"].(string), "sha256:") {
		t.Errorf("pending ask: %v", ask)
	}
	base := "/api/session/" + id + "/permission/"
	var e map[string]any
	if code := h.do("POST", base+askID, map[string]string{"answer": "maybe"}, &e); code != 400 {
		t.Errorf("answer maybe: %d %v", code, e)
	}
	if code := h.do("POST", base+"no-such-ask", map[string]string{"answer": "once"}, &e); code != 404 {
		t.Errorf("unknown ask: %d %v", code, e)
	}
	if code := h.do("POST", base+askID, map[string]string{"answer": "once", "input_digest": "sha256:" + strings.Repeat("0", 64)}, &e); code != 409 || e["code"] != "digest_mismatch" {
		t.Errorf("wrong digest: %d %v", code, e)
	}
	var ok map[string]any
	if code := h.do("POST", base+askID, map[string]any{"answer": "once", "input_digest": ask["input_digest"]}, &ok); code != 200 {
		t.Fatalf("answer once: %d %v", code, ok)
	}
	h.schema.check(t, "Answer", ok)
	if code := h.do("POST", base+askID, map[string]string{"answer": "deny"}, &e); code != 409 || e["code"] != "already_answered" {
		t.Errorf("second answer: %d %v", code, e)
	} else if first, _ := e["first"].(map[string]any); first["answer"] != "once" {
		t.Errorf("409 does not show the first answer: %v", e)
	}
	h.schema.check(t, "Error", e)
	// The second call asks too: deny it with feedback.
	ask2 := h.pendingAsk(id)
	if ask2["id"] == askID {
		t.Fatalf("the answered ask is still pending")
	}
	if code := h.do("POST", base+ask2["id"].(string), map[string]string{"answer": "deny", "feedback": "use printf instead"}, &ok); code != 200 {
		t.Fatalf("answer deny: %d %v", code, ok)
	}
	for _, ch := range []<-chan servertest.Event{a, b} {
		evs := h.until(ch, "done")
		var resolved int
		for _, e := range evs {
			if e.Type() == "resolved" {
				resolved++
			}
		}
		if resolved != 2 {
			t.Errorf("a subscriber saw %d resolved events, want 2: %v", resolved, servertest.Types(evs))
		}
	}
	reqs := h.model.Requests()
	last, _ := json.Marshal(reqs[len(reqs)-1].Messages)
	if !strings.Contains(string(last), "use printf instead") {
		t.Errorf("the deny's feedback did not reach the model:\n%s", last)
	}
}

// TestAlwaysAnswer: "always" settles the same call for the session.
func TestAlwaysAnswer(t *testing.T) {
	t.Parallel()
	turns := []providertest.Turn{
		providertest.Call("bash", map[string]string{"command": "echo again"}),
		providertest.Call("bash", map[string]string{"command": "echo again"}),
		providertest.Text("done"),
	}
	h := newHarness(t, turns, withAsk("Bash(echo:*)"))
	id := h.create(nil)
	ch, _ := h.stream(id, nil)
	h.send(id, "twice")
	ask := h.pendingAsk(id)
	if code := h.do("POST", "/api/session/"+id+"/permission/"+ask["id"].(string), map[string]string{"answer": "always"}, nil); code != 200 {
		t.Fatalf("answer always: %d", code)
	}
	evs := h.until(ch, "done")
	var asks int
	for _, e := range evs {
		if e.Type() == "ask" {
			asks++
		}
	}
	if asks != 1 {
		t.Errorf("%d asks, want 1 (always approves the second call): %v", asks, servertest.Types(evs))
	}
}

// TestModeSwitch: a live switch takes effect; a locked-out mode is
// downgraded to default with the reason.
func TestModeSwitch(t *testing.T) {
	t.Parallel()
	h := newHarness(t, []providertest.Turn{providertest.Text("hi")},
		withLocks(permission.Locks{DisallowedModes: map[permission.Mode]string{permission.BypassPermissions: "locked out by the test's requirements"}}))
	id := h.create(nil)
	path := "/api/session/" + id + "/permission/mode"
	var m map[string]any
	if code := h.do("POST", path, map[string]string{"mode": "acceptEdits"}, &m); code != 200 || m["mode"] != "acceptEdits" || m["downgraded"] != false {
		t.Errorf("acceptEdits: %d %v", code, m)
	}
	h.schema.check(t, "Mode", m)
	if code := h.do("POST", path, map[string]string{"mode": "bypassPermissions"}, &m); code != 200 || m["mode"] != "default" || m["requested"] != "bypassPermissions" || m["downgraded"] != true || !strings.Contains(m["reason"].(string), "locked out") {
		t.Errorf("bypassPermissions: %d %v", code, m)
	}
	h.schema.check(t, "Mode", m)
	if code := h.do("GET", path, nil, &m); code != 200 || m["mode"] != "default" {
		t.Errorf("GET mode: %d %v", code, m)
	}
	var e map[string]any
	if code := h.do("POST", path, map[string]string{"mode": "yolo"}, &e); code != 400 {
		t.Errorf("unknown mode: %d %v", code, e)
	}
	// Creating a session in a locked-out mode downgrades it too.
	id2 := h.create(map[string]any{"permission_mode": "bypassPermissions"})
	h.do("GET", "/api/session/"+id2+"/permission/mode", nil, &m)
	if m["mode"] != "default" || m["downgraded"] != true {
		t.Errorf("session created in a locked mode: %v", m)
	}
}

// TestAbort: abort ends a running turn as cancelled.
func TestAbort(t *testing.T) {
	t.Parallel()
	h := newHarness(t, []providertest.Turn{{Text: "slow answer", Delay: providertest.Duration(time.Minute)}})
	id := h.create(nil)
	ch, _ := h.stream(id, nil)
	h.send(id, "take your time")
	h.until(ch, "text")
	var a map[string]any
	if code := h.do("POST", "/api/session/"+id+"/abort", nil, &a); code != 200 {
		t.Fatalf("abort: %d %v", code, a)
	}
	h.schema.check(t, "Abort", a)
	evs := h.until(ch, "done")
	var done map[string]any
	json.Unmarshal([]byte(evs[len(evs)-1].Data), &done)
	if done["stop_reason"] != "cancelled" {
		t.Errorf("done after abort: %v", done)
	}
}

// TestBadRequests: the body and path errors, each a JSON error.
func TestBadRequests(t *testing.T) {
	t.Parallel()
	h := newHarness(t, []providertest.Turn{providertest.Text("hi")}, withConfig(func(c *server.Config) { c.MaxBody = 1024; c.MaxSessions = 2 }))
	id := h.create(nil)
	cases := []struct {
		method, path string
		body         any
		want         int
		code         string
	}{
		{"POST", "/api/session", `{"agent": "build", "colour": "blue"}`, 400, "bad_body"},
		{"POST", "/api/session", `{"agent": "build"} {}`, 400, "bad_body"},
		{"POST", "/api/session", `not json`, 400, "bad_body"},
		{"POST", "/api/session/" + id + "/message", ``, 400, "bad_body"},
		{"POST", "/api/session/" + id + "/permission/mode", ``, 400, "bad_body"},
		{"POST", "/api/session", `{"permission_mode": "yolo"}`, 400, "bad_mode"},
		{"POST", "/api/session", `{"model": "bad"}`, 400, "bad_request"},
		{"POST", "/api/session/" + id + "/message", `{"text": "` + strings.Repeat("x", 2000) + `"}`, 413, "body_too_large"},
		{"POST", "/api/session/" + id + "/message", `{"text": "  "}`, 400, "empty_prompt"},
		{"POST", "/api/session/" + id + "/message", `{"prompt": "hi"}`, 400, "bad_body"},
		{"POST", "/api/session/nope/message", `{"text": "hi"}`, 404, "no_session"},
		{"GET", "/api/session/nope", nil, 404, "no_session"},
		{"DELETE", "/api/session/" + id, nil, 405, "method_not_allowed"},
		{"GET", "/api/nothing", nil, 404, "not_found"},
		{"POST", "/mcp", `{}`, 400, "bad_request"},
		{"POST", "/mcp", `{"session": "` + id + `", "name": "a/b", "command": "x"}`, 400, "bad_request"},
		{"POST", "/mcp", `{"session": "` + id + `", "name": "x", "command": "x", "url": "http://127.0.0.1:1/"}`, 400, "bad_request"},
		{"POST", "/mcp", `{"session": "nope", "name": "x", "command": "x"}`, 404, "no_session"},
		{"POST", "/mcp", `{"session": "` + id + `", "name": "x", "cmd": "x"}`, 400, "bad_body"},
	}
	for _, c := range cases {
		var e map[string]any
		code := h.do(c.method, c.path, c.body, &e)
		if code != c.want || e["code"] != c.code {
			t.Errorf("%s %s %v: %d %v, want %d %s", c.method, c.path, c.body, code, e, c.want, c.code)
		}
		h.schema.check(t, "Error", e)
	}
	// The session limit: 2 open, a third is 429 with Retry-After. An
	// empty body creates with the defaults.
	resp := h.raw("POST", "/api/session", nil, map[string]string{"Authorization": "Bearer " + testToken})
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("create without a body: %d, want 200", resp.StatusCode)
	}
	resp = h.raw("POST", "/api/session", `{}`, map[string]string{"Authorization": "Bearer " + testToken})
	resp.Body.Close()
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" {
		t.Errorf("third session: %d Retry-After %q, want 429 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	var insp map[string]any
	if code := h.do("GET", "/api/config/inspect", nil, &insp); code != 200 || insp["version"] != float64(1) {
		t.Errorf("inspect: %d %v", code, insp)
	}
}

// TestPendingSurvivesRestart: a server closed with an ask pending is
// replaced by one that takes the session up (Recover): the ask is listed,
// and answering it finishes the turn.
func TestPendingSurvivesRestart(t *testing.T) {
	t.Parallel()
	turns := []providertest.Turn{
		providertest.Call("bash", map[string]string{"command": "echo after restart"}),
		providertest.Text("finished"),
	}
	h := newHarness(t, turns, withAsk("Bash(echo:*)"))
	id := h.create(nil)
	h.send(id, "go")
	ask := h.pendingAsk(id)
	if err := h.srv.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	// A new server over the same store.
	cfg := h.cfg
	cfg.Resumable = func(context.Context) ([]string, error) { return []string{id}, nil }
	srv2, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := srv2.Recover(context.Background())
	if err != nil || len(ids) != 1 || ids[0] != id {
		t.Fatalf("recover: %v %v", ids, err)
	}
	h.srv = srv2
	h.ts.Config.Handler = srv2
	got := h.pendingAsk(id)
	if got["id"] != ask["id"] || got["input_digest"] != ask["input_digest"] {
		t.Fatalf("after restart the pending ask is %v, want %v", got, ask)
	}
	ch, _ := h.stream(id, map[string]string{"Last-Event-ID": "0"})
	if code := h.do("POST", "/api/session/"+id+"/permission/"+ask["id"].(string), map[string]string{"answer": "once"}, nil); code != 200 {
		t.Fatalf("answer after restart: %d", code)
	}
	evs := h.until(ch, "done")
	if !strings.Contains(servertest.Types(evs), "resolved") {
		t.Errorf("no resolved event after the restart: %v", servertest.Types(evs))
	}
}

// smallSendBuffers gives accepted connections a 4 KiB send buffer.
type smallSendBuffers struct{ net.Listener }

func (l smallSendBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetWriteBuffer(4096)
	}
	return c, err
}

// words is a text of n words.
func words(n int) string {
	return strings.TrimSpace(strings.Repeat("w ", n))
}

// TestResync: events the session no longer holds and never recorded
// cannot be replayed: one resync event (id = the current seq), then the
// stream goes on live.
func TestResync(t *testing.T) {
	t.Parallel()
	h := newHarness(t, []providertest.Turn{providertest.Text(words(6000)), providertest.Text("after")}, withoutStore())
	id := h.create(nil)
	h.send(id, "talk a lot")
	last := fmt.Sprint(h.idle(id, 1)["last_seq"])
	ch2, _ := h.stream(id, map[string]string{"Last-Event-ID": "1"})
	first := <-ch2
	var n map[string]any
	json.Unmarshal([]byte(first.Data), &n)
	if n["type"] != "resync" || first.ID != last || fmt.Sprint(n["last_seq"]) != last || n["after"] != float64(1) {
		t.Fatalf("first event after a gap: id %s %s, want a resync with id %s", first.ID, first.Data, last)
	}
	h.send(id, "more")
	next := h.until(ch2, "done")
	if next[0].Type() == "resync" || next[0].ID != fmt.Sprint(atoi(last)+1) {
		t.Errorf("after the resync: %s id %s, want the live events from %d", next[0].Type(), next[0].ID, atoi(last)+1)
	}
}

// TestResyncAhead: a cursor past the session's last event is a resync too.
func TestResyncAhead(t *testing.T) {
	t.Parallel()
	h := newHarness(t, []providertest.Turn{providertest.Text("one two")})
	id := h.create(nil)
	ch, stop := h.stream(id, nil)
	h.send(id, "go")
	all := h.until(ch, "done")
	stop()
	last := all[len(all)-1].ID
	ch2, _ := h.stream(id, map[string]string{"Last-Event-ID": "999999"})
	first := <-ch2
	if first.Type() != "resync" || first.ID != last {
		t.Fatalf("a cursor ahead of the session: id %s %s, want a resync with id %s", first.ID, first.Data, last)
	}
}

// idle waits until the session has ended turns turns and is idle, and
// returns its state.
func (h *harness) idle(id string, turns int) map[string]any {
	h.t.Helper()
	for deadline := time.Now().Add(guard); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var st map[string]any
		h.do("GET", "/api/session/"+id, nil, &st)
		if st["status"] == "idle" && st["turns"].(float64) >= float64(turns) && st["stop_reason"] != "" {
			return st
		}
	}
	h.t.Fatalf("session %s not idle after %d turn(s) within %v", id, turns, guard)
	return nil
}

func atoi(s string) int {
	var n int
	fmt.Sscan(s, &n)
	return n
}

// TestLagged: a client that stops reading is dropped with a lagged event
// naming the last id it was sent; reconnecting from there loses nothing.
func TestLagged(t *testing.T) {
	t.Parallel()
	h := newHarness(t, []providertest.Turn{providertest.Text(words(3000))}, withBuffer(8, true))
	id := h.create(nil)
	d := &net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		return c.Control(smallRecvBuf)
	}}
	client := &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
	req, _ := http.NewRequest("GET", h.ts.URL+"/api/session/"+id+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	h.send(id, "flood")
	// The turn ends while the client does not read: a slow subscriber
	// never blocks the session.
	h.idle(id, 1)
	ch := make(chan servertest.Event, 1<<13)
	servertest.Read(resp.Body, ch)
	close(ch)
	var got []servertest.Event
	for e := range ch {
		got = append(got, e)
	}
	lag := got[len(got)-1]
	var n map[string]any
	json.Unmarshal([]byte(lag.Data), &n)
	if n["type"] != "lagged" || lag.ID != "" {
		t.Fatalf("the last event of a dropped stream: id %q %s, want a lagged event without id", lag.ID, lag.Data)
	}
	h.schema.check(t, "StreamNotice", n)
	lastID := got[len(got)-2].ID
	if fmt.Sprint(n["last_seq"]) != lastID {
		t.Errorf("lagged names %v, the last event sent was %s", n["last_seq"], lastID)
	}
	for i, e := range got[:len(got)-1] {
		if e.ID != fmt.Sprint(i+1) {
			t.Fatalf("event %d has id %s before the drop", i, e.ID)
		}
	}
	rest, _ := h.stream(id, map[string]string{"Last-Event-ID": lastID})
	tail := h.until(rest, "done")
	if tail[0].ID != fmt.Sprint(atoi(lastID)+1) {
		t.Errorf("reconnect after the drop starts at %s, want %d", tail[0].ID, atoi(lastID)+1)
	}
}

// TestHeartbeat: an idle stream gets comment lines.
func TestHeartbeat(t *testing.T) {
	t.Parallel()
	h := newHarness(t, []providertest.Turn{providertest.Text("hi")}, withConfig(func(c *server.Config) { c.Heartbeat = 20 * time.Millisecond }))
	id := h.create(nil)
	resp := h.raw("GET", "/api/session/"+id+"/events", nil, map[string]string{"Authorization": "Bearer " + testToken})
	defer resp.Body.Close()
	done := make(chan error, 1)
	go func() {
		br := bufio.NewReader(resp.Body)
		for beats := 0; beats < 2; {
			line, err := br.ReadString('\n')
			if err != nil {
				done <- err
				return
			}
			if line == ": heartbeat\n" {
				beats++
			}
		}
		done <- nil
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(guard):
		t.Fatal("no heartbeat comments on an idle stream")
	}
}

// TestFirstAnswerWins: clients answering one ask at once: exactly one
// 200, every other 409 naming that first answer.
func TestFirstAnswerWins(t *testing.T) {
	t.Parallel()
	h := newHarness(t, []providertest.Turn{
		providertest.Call("bash", map[string]string{"command": "echo race"}),
		providertest.Text("done"),
	}, withAsk("Bash(echo:*)"))
	id := h.create(nil)
	h.send(id, "go")
	ask := h.pendingAsk(id)["id"].(string)
	const clients = 8
	answers := []string{"once", "deny", "always"}
	type result struct {
		code int
		body map[string]any
		sent string
	}
	res := make([]result, clients)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			res[i].sent = answers[i%len(answers)]
			resp := h.raw("POST", "/api/session/"+id+"/permission/"+ask, map[string]string{"answer": res[i].sent},
				map[string]string{"Authorization": "Bearer " + testToken, "X-OceanCode-Client": fmt.Sprint("client-", i)})
			defer resp.Body.Close()
			res[i].code = resp.StatusCode
			json.NewDecoder(resp.Body).Decode(&res[i].body)
		}()
	}
	close(start)
	wg.Wait()
	var winner *result
	for i := range res {
		if res[i].code == 200 {
			if winner != nil {
				t.Fatalf("two answers won: %v and %v", winner.body, res[i].body)
			}
			winner = &res[i]
		}
	}
	if winner == nil {
		t.Fatalf("no answer won: %v", res)
	}
	for _, r := range res {
		if r.code == 200 {
			continue
		}
		first, _ := r.body["first"].(map[string]any)
		if r.code != 409 || first["answer"] != winner.sent || first["by"] != winner.body["by"] {
			t.Errorf("a losing answer: %d %v, want 409 naming %s by %v", r.code, r.body, winner.sent, winner.body["by"])
		}
	}
}
