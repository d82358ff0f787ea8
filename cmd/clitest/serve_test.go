//go:build unix

package clitest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/oceancode/oceancode/agent/provider/providertest"
	"github.com/oceancode/oceancode/agent/server/servertest"
	"github.com/oceancode/oceancode/layers/layerstest"
)

// The end-to-end tests of `oceancode serve`: the real binary (the suite's
// oceancode command, as the scripts run it) on loopback, a scripted
// loopback model, a hermetic machine (layerstest) with signed requirements
// where a test needs locks.

// serveMachine is a machine whose project is configured for the mock model.
func serveMachine(t testing.TB, model *providertest.Server, extra string) *layerstest.Machine {
	t.Helper()
	m := layerstest.New(t)
	m.ProjectConfig(`{"provider": {"mock": {"type": "openai", "base_url": "` + model.OpenAIURL() + `"}}, "model": "mock/m"` + extra + `}`)
	m.TrustProject()
	return m
}

// serveEnv is the server's environment: the machine's paths only.
func serveEnv(m *layerstest.Machine) []string {
	env := []string{"PATH=" + os.Getenv("PATH"), "OPENAI_API_KEY=sk-test", testManagedDir + "=" + m.ManagedDir}
	for k, v := range m.Env {
		env = append(env, k+"="+v)
	}
	return env
}

// served is one running `oceancode serve`.
type served struct {
	t      testing.TB
	cmd    *exec.Cmd
	URL    string
	Token  string
	Addr   string
	stderr *syncBuffer
	done   chan struct{}
	schema *servertest.Schemas
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startServe starts the suite's oceancode serve and waits for its first
// stdout line.
func startServe(t testing.TB, m *layerstest.Machine, args ...string) *served {
	t.Helper()
	return startServeBin(t, "oceancode", m, args...)
}

// startServeBin is startServe with the binary bin.
func startServeBin(t testing.TB, bin string, m *layerstest.Machine, args ...string) *served {
	t.Helper()
	s := &served{t: t, stderr: &syncBuffer{}, done: make(chan struct{})}
	s.cmd = exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	s.cmd.Dir = m.Project
	s.cmd.Env = serveEnv(m)
	s.cmd.Stderr = s.stderr
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.cmd.Wait(); close(s.done) }()
	t.Cleanup(func() { s.kill(syscall.SIGKILL) })
	line := make(chan string, 1)
	go func() {
		br := bufio.NewReader(out)
		l, _ := br.ReadString('\n')
		line <- l
		io.Copy(io.Discard, br)
	}()
	select {
	case l := <-line:
		addr, ok := strings.CutPrefix(strings.TrimSuffix(l, "\n"), "listening on http://")
		if !ok || !strings.HasPrefix(addr, "127.0.0.1:") || strings.HasSuffix(addr, ":0") {
			t.Fatalf("first stdout line %q, want \"listening on http://127.0.0.1:PORT\"; stderr:\n%s", l, s.stderr.String())
		}
		s.Addr, s.URL = addr, "http://"+addr
	case <-time.After(guard):
		t.Fatalf("serve did not listen within %v; stderr:\n%s", guard, s.stderr.String())
	}
	tok, err := os.ReadFile(filepath.Join(m.Env["XDG_STATE_HOME"], "oceancode", "server.token"))
	if err != nil {
		t.Fatal(err)
	}
	s.Token = strings.TrimSpace(string(tok))
	s.schema = s.loadSchemas()
	return s
}

// kill signals the server's process group and waits for it to end (a
// SIGKILL after the hang guard).
func (s *served) kill(sig syscall.Signal) {
	if s.cmd.Process == nil {
		return
	}
	syscall.Kill(-s.cmd.Process.Pid, sig)
	select {
	case <-s.done:
	case <-time.After(guard):
		syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.done
	}
}

func (s *served) request(method, path string, body any, hdr map[string]string) *http.Response {
	s.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			s.t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.URL+path, rd)
	if err != nil {
		s.t.Fatal(err)
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatalf("%s %s: %v; stderr:\n%s", method, path, err, s.stderr.String())
	}
	return resp
}

// call sends an authorized request, checks the status and validates the
// answer against the documented schema (when schema is not "").
func (s *served) call(method, path string, body any, want int, schema string) map[string]any {
	s.t.Helper()
	resp := s.request(method, path, body, map[string]string{"Authorization": "Bearer " + s.Token})
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		s.t.Fatalf("%s %s: %d %s, want %d", method, path, resp.StatusCode, data, want)
	}
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil {
		s.t.Fatalf("%s %s: answer is not JSON: %q", method, path, data)
	}
	if schema != "" {
		s.schema.Check(s.t, schema, data)
	}
	return v
}

func (s *served) loadSchemas() *servertest.Schemas {
	resp := s.request("GET", "/api/openapi.json", nil, map[string]string{"Authorization": "Bearer " + s.Token})
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		s.t.Fatalf("openapi.json: %d %s", resp.StatusCode, data)
	}
	sch, err := servertest.NewSchemas(data)
	if err != nil {
		s.t.Fatal(err)
	}
	return sch
}

// events opens GET …/events (with Last-Event-ID when after >= 0).
func (s *served) events(id string, after int64) (<-chan servertest.Event, context.CancelFunc) {
	s.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", s.URL+"/api/session/"+id+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+s.Token)
	if after >= 0 {
		req.Header.Set("Last-Event-ID", fmt.Sprint(after))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		s.t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		cancel()
		s.t.Fatalf("events: %d %s", resp.StatusCode, b)
	}
	ch := servertest.Stream(resp.Body, 1<<14)
	s.t.Cleanup(cancel)
	return ch, cancel
}

// until reads events up to the n-th of type typ, validating each.
func (s *served) until(ch <-chan servertest.Event, typ string, n int) []servertest.Event {
	s.t.Helper()
	var got []servertest.Event
	deadline := time.After(60 * time.Second)
	for n > 0 {
		select {
		case e, ok := <-ch:
			if !ok {
				s.t.Fatalf("stream ended before a %s event; got %d events; stderr:\n%s", typ, len(got), s.stderr.String())
			}
			got = append(got, e)
			s.schema.Check(s.t, "StreamEvent", []byte(e.Data))
			if e.Type() == typ {
				n--
			}
		case <-deadline:
			s.t.Fatalf("no %s event within 60s; got %d events", typ, len(got))
		}
	}
	return got
}

func (s *served) create(body map[string]any) string {
	s.t.Helper()
	if body == nil {
		body = map[string]any{}
	}
	return s.call("POST", "/api/session", body, 200, "State")["id"].(string)
}

func (s *served) send(id, text string) {
	s.t.Helper()
	s.call("POST", "/api/session/"+id+"/message", map[string]string{"text": text}, 202, "Accepted")
}

// pending waits for a pending ask of the session.
func (s *served) pending(id string) map[string]any {
	s.t.Helper()
	for deadline := time.Now().Add(guard); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		p := s.call("GET", "/api/session/"+id+"/permission/pending", nil, 200, "Pending")["pending"].([]any)
		if len(p) > 0 {
			return p[0].(map[string]any)
		}
	}
	s.t.Fatalf("no pending ask within %v; stderr:\n%s", guard, s.stderr.String())
	return nil
}

func (s *served) answer(id, ask string, body map[string]string, want int) map[string]any {
	s.t.Helper()
	schema := "Answer"
	if want != 200 {
		schema = "Error"
	}
	return s.call("POST", "/api/session/"+id+"/permission/"+ask, body, want, schema)
}

// TestServe drives one server through the whole API: create, message,
// stream, asks answered once / always / deny with feedback, the locked mode
// downgraded, abort, reconnect with Last-Event-ID, and the request checks
// on every route.
func TestServe(t *testing.T) {
	t.Parallel()
	model := providertest.New(t,
		providertest.Text("hello from the model"),
		providertest.Call("bash", map[string]string{"command": "echo one"}),
		providertest.Call("bash", map[string]string{"command": "echo two"}),
		providertest.Call("bash", map[string]string{"command": "echo three"}),
		providertest.Call("bash", map[string]string{"command": "echo three"}),
		providertest.Text("asks done"),
		providertest.Turn{Text: "a slow answer", Delay: providertest.Duration(time.Minute)},
	)
	m := serveMachine(t, model, `, "permission": {"bash": {"echo *": "ask"}}`)
	m.Anchor()
	m.Requirements(1, map[string]any{"disable_bypass_permissions": true})
	s := startServe(t, m)
	// stderr is copied by its own goroutine: it may trail the stdout line.
	for deadline := time.Now().Add(guard); !strings.Contains(s.stderr.String(), "server.token") && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(s.stderr.String(), "server.token") || strings.Contains(s.stderr.String(), s.Token) {
		t.Errorf("stderr names the token file and never the token:\n%s", s.stderr.String())
	}

	// create, message, stream
	id := s.create(map[string]any{"agent": "build"})
	ch, _ := s.events(id, -1)
	s.send(id, "say hello")
	first := s.until(ch, "done", 1)
	if !strings.Contains(servertest.Types(first), "start") || !strings.Contains(servertest.Types(first), "text") {
		t.Errorf("first turn's events: %s", servertest.Types(first))
	}
	for i, e := range first {
		if e.ID != fmt.Sprint(i+1) {
			t.Fatalf("event %d has id %q, want %d", i, e.ID, i+1)
		}
	}
	st := s.call("GET", "/api/session/"+id, nil, 200, "State")
	if st["status"] != "idle" || st["stop_reason"] != "end_turn" {
		t.Errorf("state after a turn: %v", st)
	}

	// asks: once, deny with feedback, always (the repeat does not ask)
	s.send(id, "echo things")
	ask := s.pending(id)
	s.answer(id, "no-such-ask", map[string]string{"answer": "once"}, 404)
	s.answer(id, ask["id"].(string), map[string]string{"answer": "perhaps"}, 400)
	s.answer(id, ask["id"].(string), map[string]string{"answer": "once"}, 200)
	if e := s.answer(id, ask["id"].(string), map[string]string{"answer": "deny"}, 409); e["first"].(map[string]any)["answer"] != "once" {
		t.Errorf("409 without the first answer: %v", e)
	}
	ask2 := s.pending(id)
	s.answer(id, ask2["id"].(string), map[string]string{"answer": "deny", "feedback": "not that one, please"}, 200)
	ask3 := s.pending(id)
	if in, _ := json.Marshal(ask3["input"]); !strings.Contains(string(in), "echo three") {
		t.Fatalf("third ask is about %s", in)
	}
	s.answer(id, ask3["id"].(string), map[string]string{"answer": "always"}, 200)
	turn2 := s.until(ch, "done", 1)
	if n := strings.Count(servertest.Types(turn2), "resolved"); n != 3 {
		t.Errorf("%d resolved events, want 3 (the always answer covers the repeat): %s", n, servertest.Types(turn2))
	}
	reqs := model.Requests()
	var sawFeedback bool
	for _, r := range reqs {
		b, _ := json.Marshal(r.Messages)
		sawFeedback = sawFeedback || strings.Contains(string(b), "not that one, please")
	}
	if !sawFeedback {
		t.Error("the deny's feedback never reached the model")
	}

	// the live mode switch: bypassPermissions is locked out
	mode := s.call("POST", "/api/session/"+id+"/permission/mode", map[string]string{"mode": "bypassPermissions"}, 200, "Mode")
	if mode["mode"] != "default" || mode["downgraded"] != true || !strings.Contains(mode["reason"].(string), "requirements") {
		t.Errorf("locked mode: %v", mode)
	}
	if mode := s.call("POST", "/api/session/"+id+"/permission/mode", map[string]string{"mode": "acceptEdits"}, 200, "Mode"); mode["mode"] != "acceptEdits" {
		t.Errorf("acceptEdits: %v", mode)
	}
	if mode := s.call("GET", "/api/session/"+id+"/permission/mode", nil, 200, "Mode"); mode["mode"] != "acceptEdits" {
		t.Errorf("GET mode: %v", mode)
	}
	locked := s.call("POST", "/api/session", map[string]any{"permission_mode": "bypassPermissions"}, 200, "State")
	if lm := locked["mode"].(map[string]any); lm["mode"] != "default" || lm["downgraded"] != true {
		t.Errorf("session created in a locked mode: %v", locked)
	}

	// abort a turn that waits on the model
	s.send(id, "take your time")
	s.until(ch, "text", 1)
	s.call("POST", "/api/session/"+id+"/abort", nil, 200, "Abort")
	aborted := s.until(ch, "done", 1)
	if last := aborted[len(aborted)-1].Data; !strings.Contains(last, `"stop_reason":"cancelled"`) {
		t.Errorf("done after abort: %s", last)
	}

	// reconnect: the suffix after any id is byte-identical
	full, stop := s.events(id, 0)
	everything := s.until(full, "done", 3)
	stop()
	for _, k := range []int{1, len(everything) / 3, len(everything) - 2} {
		rest, stop := s.events(id, int64(k))
		got := s.until(rest, "done", strings.Count(servertest.Types(everything[k:]), "done"))
		stop()
		if servertest.Join(got) != servertest.Join(everything[k:]) {
			t.Errorf("replay after %d differs:\n got %q\nwant %q", k, servertest.Join(got), servertest.Join(everything[k:]))
		}
	}

	// the request checks on every documented route
	s.walkRoutes(id)

	// inspect is the inspect --json document
	if insp := s.call("GET", "/api/config/inspect", nil, 200, ""); insp["version"] == nil {
		t.Errorf("inspect: %v", insp)
	}
}

// walkRoutes: every route of the server's OpenAPI document answers 401
// without a token or with a wrong one, and 403 for a browser Origin or a
// foreign Host, token or not.
func (s *served) walkRoutes(id string) {
	t := s.t
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(s.schema.Doc, &doc); err != nil {
		t.Fatal(err)
	}
	good := "Bearer " + s.Token
	cases := []struct {
		name string
		hdr  map[string]string
		want int
	}{
		{"no token", nil, 401},
		{"wrong token", map[string]string{"Authorization": good + "x"}, 401},
		{"origin", map[string]string{"Authorization": good, "Origin": "https://evil.example"}, 403},
		{"origin, no token", map[string]string{"Origin": "https://evil.example"}, 403},
		{"foreign host", map[string]string{"Authorization": good, "Host": "evil.example:" + s.Addr[strings.LastIndex(s.Addr, ":")+1:]}, 403},
	}
	n := 0
	for p, ops := range doc.Paths {
		path := strings.NewReplacer("{id}", id, "{req}", "no-such-ask").Replace(p)
		for method := range ops {
			if method == "parameters" {
				continue
			}
			n++
			for _, c := range cases {
				resp := s.request(strings.ToUpper(method), path, nil, c.hdr)
				data, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != c.want {
					t.Errorf("%s %s (%s): %d, want %d", method, p, c.name, resp.StatusCode, c.want)
					continue
				}
				s.schema.Check(t, "Error", data)
				if c.want == 401 && resp.Header.Get("WWW-Authenticate") == "" {
					t.Errorf("%s %s: 401 without WWW-Authenticate", method, p)
				}
			}
		}
	}
	if n < 12 {
		t.Errorf("walked %d routes, want the 12 of docs/server.md", n)
	}
}

// TestServeRestartPendingAsk: the server is killed while an ask is
// pending; the next start lists it, and answering it finishes the turn.
func TestServeRestartPendingAsk(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) { restartWithPendingAsk(t, sig) })
	}
}

// restartWithPendingAsk stops the server with sig while an ask is pending.
func restartWithPendingAsk(t *testing.T, sig syscall.Signal) {
	model := providertest.New(t,
		providertest.Call("bash", map[string]string{"command": "echo survived"}),
		providertest.Text("finished after the restart"),
	)
	m := serveMachine(t, model, `, "permission": {"bash": {"echo *": "ask"}}`)
	s := startServe(t, m)
	id := s.create(nil)
	s.send(id, "run it")
	ask := s.pending(id)
	s.kill(sig)
	if sig == syscall.SIGTERM {
		if code := s.cmd.ProcessState.ExitCode(); code != 0 || !strings.Contains(s.stderr.String(), "server stopped") {
			t.Errorf("SIGTERM with an ask pending: exit %d, want 0; stderr:\n%s", code, s.stderr.String())
		}
	}

	s2 := startServe(t, m)
	if !strings.Contains(s2.stderr.String(), "resumed session "+id) {
		t.Errorf("the restart does not say it resumed %s:\n%s", id, s2.stderr.String())
	}
	got := s2.pending(id)
	if got["id"] != ask["id"] || got["input_digest"] != ask["input_digest"] {
		t.Fatalf("after the restart the pending ask is %v, want %v", got, ask)
	}
	ch, _ := s2.events(id, 0)
	s2.answer(id, ask["id"].(string), map[string]string{"answer": "once", "input_digest": ask["input_digest"].(string)}, 200)
	evs := s2.until(ch, "done", 1)
	types := servertest.Types(evs)
	if !strings.Contains(types, "resolved") || !strings.Contains(types, "tool_result") {
		t.Errorf("the turn did not go on after the restart: %s", types)
	}
	if !strings.Contains(evs[len(evs)-1].Data, `"stop_reason":"end_turn"`) {
		t.Errorf("last event: %s", evs[len(evs)-1].Data)
	}
	// SIGTERM is a graceful stop: exit 0, the session closed.
	s2.kill(syscall.SIGTERM)
	if code := s2.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit %d after SIGTERM, want 0; stderr:\n%s", code, s2.stderr.String())
	}
}

// TestServeStartChecks: the token file (made 0600, reused, refused when
// others can read it), the loopback default, refused requirements (4).
func TestServeStartChecks(t *testing.T) {
	t.Parallel()
	model := providertest.New(t, providertest.Text("unused"))
	m := serveMachine(t, model, "")
	s := startServe(t, m)
	tokFile := filepath.Join(m.Env["XDG_STATE_HOME"], "oceancode", "server.token")
	fi, err := os.Stat(tokFile)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v, want mode 0600", fi, err)
	}
	if len(s.Token) < 40 {
		t.Errorf("token %d characters, want 32 random bytes' worth", len(s.Token))
	}
	s.kill(syscall.SIGTERM)
	s2 := startServe(t, m)
	if s2.Token != s.Token {
		t.Error("the second start made a new token instead of reusing the file")
	}
	s2.kill(syscall.SIGTERM)

	run := func(args ...string) (int, string) {
		cmd := exec.Command("oceancode", append([]string{"serve"}, args...)...)
		cmd.Dir, cmd.Env = m.Project, serveEnv(m)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		ctx, cancel := context.WithTimeout(context.Background(), guard)
		defer cancel()
		go func() { <-ctx.Done(); cmd.Process.Kill() }()
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), stderr.String()
		}
		return 0, stderr.String()
	}
	os.Chmod(tokFile, 0o644)
	if code, stderr := run("--addr", "127.0.0.1:0"); code != 1 || !strings.Contains(stderr, "mode 0644, want 0600") {
		t.Errorf("a 0644 token file: exit %d, stderr:\n%s", code, stderr)
	}
	os.Chmod(tokFile, 0o600)
	if code, stderr := run("--addr", "0.0.0.0:0"); code != 2 || !strings.Contains(stderr, "--allow-remote") {
		t.Errorf("a non-loopback address: exit %d, stderr:\n%s", code, stderr)
	}
	// Requirements signed by an untrusted key, no last-known-good: 4.
	m.Anchor()
	m2 := *m
	m2.Key = layerstest.FixedKey("not trusted")
	m2.Requirements(1, map[string]any{"disable_bypass_permissions": true})
	if code, stderr := run("--addr", "127.0.0.1:0"); code != 4 || !strings.Contains(stderr, "refused") {
		t.Errorf("refused requirements: exit %d, stderr:\n%s", code, stderr)
	}
}

// TestServeLoad: 50 sessions × 10 turns at once on one server; every
// subscriber gets every event of its session, in order, none lost.
func TestServeLoad(t *testing.T) {
	t.Parallel()
	const sessions, turns = 50, 10
	model := providertest.NewScript(t, providertest.Script{Loop: true, Turns: []providertest.Turn{providertest.Text("one two three four five six seven eight")}})
	m := serveMachine(t, model, "")
	s := startServe(t, m, "--max-sessions", "64")
	start := time.Now()
	for _, err := range s.load(sessions, turns) {
		t.Error(err)
	}
	t.Logf("%d sessions × %d turns in %v", sessions, turns, time.Since(start))
}

// load runs sessions at once, each with turns turns (loadSession), and
// returns their errors.
func (s *served) load(sessions, turns int) []error {
	var wg sync.WaitGroup
	errs := make(chan error, sessions)
	for i := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.loadSession(i, turns); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	var out []error
	for err := range errs {
		out = append(out, err)
	}
	return out
}

// loadSession runs one session of the load test (without t.Fatal: it
// runs on its own goroutine).
func (s *served) loadSession(i, turns int) error {
	req, _ := http.NewRequest("POST", s.URL+"/api/session", strings.NewReader(`{}`))
	req.Header.Set("Authorization", "Bearer "+s.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	var st struct{ ID string }
	json.NewDecoder(resp.Body).Decode(&st)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		return fmt.Errorf("session %d: create: %d", i, resp.StatusCode)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	ereq, _ := http.NewRequestWithContext(ctx, "GET", s.URL+"/api/session/"+st.ID+"/events", nil)
	ereq.Header.Set("Authorization", "Bearer "+s.Token)
	eresp, err := http.DefaultClient.Do(ereq)
	if err != nil {
		return err
	}
	defer eresp.Body.Close()
	for range turns {
		mreq, _ := http.NewRequest("POST", s.URL+"/api/session/"+st.ID+"/message", strings.NewReader(`{"text": "count"}`))
		mreq.Header.Set("Authorization", "Bearer "+s.Token)
		r, err := http.DefaultClient.Do(mreq)
		if err != nil {
			return err
		}
		r.Body.Close()
		if r.StatusCode != 202 {
			return fmt.Errorf("session %d: message: %d", i, r.StatusCode)
		}
	}
	br := bufio.NewReader(eresp.Body)
	var next int64 = 1
	dones, texts := 0, 0
	for dones < turns {
		line, err := br.ReadString('\n')
		if err != nil {
			return fmt.Errorf("session %d: stream after id %d, %d turns done: %v", i, next-1, dones, err)
		}
		if id, ok := strings.CutPrefix(line, "id: "); ok {
			if strings.TrimSpace(id) != fmt.Sprint(next) {
				return fmt.Errorf("session %d: event id %s, want %d (lost or reordered)", i, strings.TrimSpace(id), next)
			}
			next++
		}
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			switch {
			case strings.HasPrefix(d, `{"type":"done"`):
				dones++
			case strings.HasPrefix(d, `{"type":"text"`):
				texts++
			case strings.HasPrefix(d, `{"type":"lagged"`):
				return fmt.Errorf("session %d: the stream lagged", i)
			}
		}
	}
	if texts != 8*turns {
		return fmt.Errorf("session %d: %d text deltas, want %d", i, texts, 8*turns)
	}
	return nil
}

// TestServeBadRequestModel: a model the request names wrongly is the
// client's error (400, naming the field), not a broken configuration.
func TestServeBadRequestModel(t *testing.T) {
	t.Parallel()
	model := providertest.New(t, providertest.Text("unused"))
	s := startServe(t, serveMachine(t, model, ""))
	for _, body := range []map[string]any{{"model": "no-slash"}, {"model": "nobody/m"}} {
		e := s.call("POST", "/api/session", body, 400, "Error")
		t.Logf("%v: %s", body, e["error"])
		if e["code"] != "bad_request" {
			t.Errorf("%v: %v", body, e)
		}
	}
	if e := s.call("POST", "/api/session", map[string]any{"permission_mode": "yolo"}, 400, "Error"); e["code"] != "bad_mode" {
		t.Errorf("bad mode: %v", e)
	}
}
