package remote

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/oceancode/oceancode/agent/message"
	"github.com/oceancode/oceancode/agent/provider"
	"github.com/oceancode/oceancode/agent/provider/official"
	"github.com/oceancode/oceancode/agent/provider/providertest"
)

// The test binary is its own companion: started with HelperArg it serves
// the real SDK clients, exactly as cmd/oceancode-model does.
func TestMain(m *testing.M) {
	if (len(os.Args) > 1 && os.Args[1] == HelperArg) || os.Getenv("OC_TEST_AS_COMPANION") == "1" {
		os.Exit(HelperMain(os.Args[1:], official.Open))
	}
	self, err := os.Executable()
	if err != nil {
		panic(err)
	}
	HelperPath = self
	os.Exit(m.Run())
}

func start(t testing.TB, cfg provider.Config) *Client {
	t.Helper()
	if cfg.APIKey == "" {
		cfg.APIKey = providertest.APIKey
	}
	if cfg.RetryBackoff == 0 {
		cfg.RetryBackoff = time.Millisecond
	}
	c := Start()
	t.Cleanup(func() { c.Close() })
	if err := c.Configure(cfg); err != nil {
		t.Fatal(err)
	}
	return c
}

// The conformance suite every in-process provider passes, run through the
// companion process for both wire formats: events, tool calls, retries,
// API errors (errors.As still finds *provider.APIError), cancellation,
// redaction.
func TestConformanceAnthropic(t *testing.T) {
	providertest.RunConformance(t, func(baseURL string, stream bool) provider.Provider {
		return start(t, provider.Config{Type: "anthropic", BaseURL: baseURL, Stream: stream})
	})
}

func TestConformanceOpenAI(t *testing.T) {
	providertest.RunConformance(t, func(baseURL string, stream bool) provider.Provider {
		return start(t, provider.Config{Type: "openai", BaseURL: baseURL + "/v1", Stream: stream})
	})
}

func ask(text string) provider.Request {
	return provider.Request{Model: "m", Messages: []message.Message{message.UserText(text)}}
}

// Several calls share one companion and each gets its own answer.
func TestConcurrentCalls(t *testing.T) {
	srv := providertest.NewScript(t, providertest.Script{Loop: true, Turns: []providertest.Turn{
		{Text: "same answer", Delay: providertest.Duration(20 * time.Millisecond)},
	}})
	c := start(t, provider.Config{Type: "openai", BaseURL: srv.OpenAIURL(), Stream: true})
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var deltas strings.Builder
			resp, err := c.Stream(context.Background(), ask("hi"), func(e provider.Event) {
				if e.Type == provider.TextDelta {
					deltas.WriteString(e.Text)
				}
			})
			switch {
			case err != nil:
				errs <- err
			case resp.Message.TextOf() != "same answer" || deltas.String() != "same answer":
				errs <- errors.New("answer " + resp.Message.TextOf() + " / deltas " + deltas.String())
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := len(srv.Requests()); n != 8 {
		t.Errorf("%d requests, want 8", n)
	}
}

// A companion killed mid-call (the OOM killer, a user's kill -9) ends the
// call with an error that names it, and every later call fails the same way.
func TestCompanionKilled(t *testing.T) {
	srv := providertest.New(t, providertest.Turn{Text: "slow", Delay: providertest.Duration(time.Minute)})
	c := start(t, provider.Config{Type: "anthropic", BaseURL: srv.URL(), Stream: true})
	errc := make(chan error, 1)
	go func() {
		_, err := c.Stream(context.Background(), ask("hi"), nil)
		errc <- err
	}()
	select {
	case <-srv.Stalled():
	case <-time.After(10 * time.Second):
		t.Fatal("the call never reached the server")
	}
	if err := c.proc.Kill(); err != nil {
		t.Fatal(err)
	}
	var err error
	select {
	case err = <-errc:
	case <-time.After(10 * time.Second):
		t.Fatal("the call did not end when the companion died")
	}
	if err == nil || !strings.Contains(err.Error(), "model client") || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("error %v, want one saying the model client was killed", err)
	}
	if _, err2 := c.Stream(context.Background(), ask("again"), nil); err2 == nil || err2.Error() != err.Error() {
		t.Errorf("later call: %v, want the same error", err2)
	}
}

// Cancelling returns ctx.Err() at once and the companion drops the HTTP
// request (the server sees the client go away).
func TestCancelStopsTheRequest(t *testing.T) {
	srv := providertest.New(t, providertest.Turn{Text: "slow", Delay: providertest.Duration(time.Minute)}, providertest.Text("next"))
	c := start(t, provider.Config{Type: "openai", BaseURL: srv.OpenAIURL(), Stream: false})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := c.Stream(ctx, ask("hi"), nil)
		errc <- err
	}()
	<-srv.Stalled()
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	// The companion is still good for the next call.
	resp, err := c.Stream(context.Background(), ask("again"), nil)
	if err != nil || resp.Message.TextOf() != "next" {
		t.Fatalf("next call: %q, %v", resp.Message.TextOf(), err)
	}
}

// Closing the pipe (the parent exiting) makes the companion exit cleanly.
func TestCloseEndsCompanion(t *testing.T) {
	srv := providertest.New(t, providertest.Text("ok"))
	c := start(t, provider.Config{Type: "openai", BaseURL: srv.OpenAIURL()})
	if _, err := c.Stream(context.Background(), ask("hi"), nil); err != nil {
		t.Fatal(err)
	}
	c.Close()
	// Exit status 0, not "killed": it left on its own when its input closed.
	if !c.state.Exited() || c.state.ExitCode() != 0 {
		t.Fatalf("companion ended %v, want a clean exit on EOF", c.state)
	}
	if _, err := c.Stream(context.Background(), ask("hi"), nil); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("call after close: %v", err)
	}
}

func TestUnknownTypeAnswersEveryCall(t *testing.T) {
	c := start(t, provider.Config{Type: "gemini"})
	_, err := c.Stream(context.Background(), ask("hi"), nil)
	if err == nil || !strings.Contains(err.Error(), `type "gemini"`) {
		t.Fatalf("error %v, want the unknown type named", err)
	}
}

func TestStreamBeforeConfigure(t *testing.T) {
	c := Start()
	defer c.Close()
	if _, err := c.Stream(context.Background(), ask("hi"), nil); err == nil || !strings.Contains(err.Error(), "not configured") {
		t.Fatalf("error %v", err)
	}
}

// A companion from another release is refused with what to do.
func TestProtocolMismatch(t *testing.T) {
	script := filepath.Join(t.TempDir(), "old-model")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nprintf '{\"id\":0,\"ready\":{\"version\":99}}\\n'\nexec cat >/dev/null\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	withHelper(t, script)
	c := Start()
	defer c.Close()
	if err := c.Configure(provider.Config{Type: "openai"}); err != nil {
		// The mismatch may already have been read; either way it is named.
		checkMismatch(t, err)
		return
	}
	_, err := c.Stream(context.Background(), ask("hi"), nil)
	checkMismatch(t, err)
}

func checkMismatch(t *testing.T, err error) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), "protocol 99") || !strings.Contains(err.Error(), "same release") {
		t.Fatalf("error %v, want the protocol mismatch and what to do", err)
	}
}

// A companion that dies at start says why, with its stderr.
func TestCompanionFailsAtStart(t *testing.T) {
	script := filepath.Join(t.TempDir(), "broken-model")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho 'cannot map memory' >&2\nexit 7\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	withHelper(t, script)
	c := Start()
	defer c.Close()
	err := c.Configure(provider.Config{Type: "openai"})
	if err == nil {
		_, err = c.Stream(context.Background(), ask("hi"), nil)
	}
	if err == nil || !strings.Contains(err.Error(), "exit status 7") || !strings.Contains(err.Error(), "cannot map memory") {
		t.Fatalf("error %v, want the exit status and stderr", err)
	}
}

func withHelper(t *testing.T, path string) {
	old := HelperPath
	HelperPath = path
	t.Cleanup(func() { HelperPath = old })
}

func TestLocate(t *testing.T) {
	old, oldExe := HelperPath, osExecutable
	t.Cleanup(func() { HelperPath, osExecutable = old, oldExe })
	HelperPath = ""
	dir := t.TempDir()
	osExecutable = func() (string, error) { return filepath.Join(dir, "oceancode"), nil }
	t.Setenv("PATH", t.TempDir())

	_, err := Locate()
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "make build") {
		t.Fatalf("missing companion: %v", err)
	}
	// On PATH.
	pathDir := t.TempDir()
	t.Setenv("PATH", pathDir)
	onPath := filepath.Join(pathDir, Binary)
	if err := os.WriteFile(onPath, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if p, err := Locate(); err != nil || p != onPath {
		t.Fatalf("on PATH: %q, %v", p, err)
	}
	// Beside the executable wins over PATH; a non-executable file does not count.
	beside := filepath.Join(dir, Binary)
	if err := os.WriteFile(beside, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if p, _ := Locate(); p != onPath {
		t.Fatalf("non-executable sibling chosen: %q", p)
	}
	if err := os.Chmod(beside, 0o755); err != nil {
		t.Fatal(err)
	}
	if p, err := Locate(); err != nil || p != beside {
		t.Fatalf("beside: %q, %v", p, err)
	}
	// Not found at all: Start fails in Configure with the same error.
	t.Setenv("PATH", t.TempDir())
	os.Remove(beside)
	c := Start()
	if err := c.Configure(provider.Config{Type: "openai"}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Configure: %v", err)
	}
}

// Run by hand, the companion says what it is and exits 2.
func TestHandRun(t *testing.T) {
	cmd := exec.Command(HelperPath, "serve")
	cmd.Env = append(os.Environ(), "OC_TEST_AS_COMPANION=1")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "not meant to be run by hand") {
		t.Fatalf("%v: %s", err, out)
	}
}

// Sent closes once the companion has written a request to the network —
// not before the first call — and also when the companion ends.
func TestSent(t *testing.T) {
	srv := providertest.New(t, providertest.Text("ok"))
	c := start(t, provider.Config{Type: "anthropic", BaseURL: srv.URL(), Stream: true})
	select {
	case <-c.Sent():
		t.Fatal("Sent closed before any call")
	case <-time.After(50 * time.Millisecond):
	}
	if _, err := c.Stream(context.Background(), ask("hi"), nil); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.Sent():
	case <-time.After(10 * time.Second):
		t.Fatal("Sent not closed after a call reached the server")
	}
	d := Start()
	d.Close() // never configured: killed
	select {
	case <-d.Sent():
	case <-time.After(10 * time.Second):
		t.Fatal("Sent not closed when the companion ended")
	}
}
