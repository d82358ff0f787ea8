// Package clitest runs end-to-end scripts (testscript .txtar files) against
// both binaries, oceancode and oceanadmin, as real subprocesses: stdout,
// stderr and exit codes are asserted exactly as users see them.
package clitest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/mcp/mcptest"
	"github.com/oceancode/oceancode/agent/provider/official"
	"github.com/oceancode/oceancode/agent/provider/providertest"
	"github.com/oceancode/oceancode/agent/provider/remote"
	"github.com/oceancode/oceancode/agent/session"
	"github.com/oceancode/oceancode/agent/shellguard"

	admincli "github.com/oceancode/oceancode/cmd/oceanadmin/cli"
	agentcli "github.com/oceancode/oceancode/cmd/oceancode/cli"
	"github.com/oceancode/oceancode/cmd/oceancode/cli/pagerui"
	"github.com/oceancode/oceancode/internal/hermetictest"
	"github.com/oceancode/oceancode/internal/telemetry/otlptest"
	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/signing"
)

// testManagedDir points the test binary (never a production build) at a
// managed dir inside the script's work dir, so scripts never read
// /etc/oceancode (docs/testing.md).
const testManagedDir = hermetictest.EnvManagedDir

// guard bounds every wait of these tests: it fires only when something is
// broken (a hang), never because a busy machine is slow.
const guard = 2 * time.Minute

func TestMain(m *testing.M) {
	if os.Getenv(mcptest.ServerEnv) == "1" {
		mcptest.Main() // a test MCP server (oc-mcp-server, or this binary by another name)
	}
	testscript.Main(m, map[string]func(){
		"oceancode": func() {
			// The suite's oceancode draws the pager itself, as the
			// oceancode-pager companion does (TestPagerCompanion runs the
			// two real binaries).
			opts := agentcli.Options{RunPager: pagerui.Run}
			app := agentcli.StdIO()
			if d := os.Getenv(testManagedDir); d != "" {
				// The script's managed dir, and not the host's OS-native
				// managed source either: only a plist the script names.
				app.ManagedDir, app.ManagedPreferences = d, os.Getenv(layers.EnvTestManagedPreferences)
			}
			// OC_TEST_PANIC_AT=tool_call makes the run panic at that event
			// (test binary only), to prove the crash report and orphan path.
			if at := os.Getenv("OC_TEST_PANIC_AT"); at != "" {
				opts.OnEvent = func(e agent.Event) {
					if string(e.Type) == at {
						panic("test panic at " + at)
					}
				}
			}
			// As cmd/oceancode's main: SIGINT and SIGTERM cancel the context.
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			code := agentcli.Main(ctx, os.Args[1:], app, opts)
			stop()
			os.Exit(code)
		},
		"oceanadmin": func() {
			os.Exit(admincli.Main(context.Background(), os.Args[1:], admincli.StdIO()))
		},
		// A real MCP server (agent/mcp/mcptest) for the mcp scripts.
		"oc-mcp-server": mcptest.Main,
		// The model-client companion, found on PATH by the oceancode above.
		remote.Binary: func() { os.Exit(remote.HelperMain(os.Args[1:], official.Open)) },
	})
}

// mockServers maps a running script to its mock model (scripts run in
// parallel, so the map is guarded).
var (
	mockMu      sync.Mutex
	mockServers = map[*testscript.TestScript]*providertest.Server{}
	// otlpReceivers maps a running script to its OTLP receiver.
	otlpReceivers = map[*testscript.TestScript]*otlptest.Receiver{}
)

func TestScripts(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir: filepath.Join("testdata", "script"),
		Setup: func(e *testscript.Env) error {
			home := filepath.Join(e.WorkDir, "home")
			e.Setenv("HOME", home)
			e.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
			e.Setenv("XDG_STATE_HOME", filepath.Join(home, ".local", "state"))
			e.Setenv(testManagedDir, filepath.Join(e.WorkDir, "etc", "oceancode"))
			return os.MkdirAll(filepath.Join(e.WorkDir, "etc", "oceancode"), 0o755)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// tamper FILE OFFSET: flip the low bit of one byte of FILE.
			// runtable FILE PAYLOAD: write one command per line that carries
			// PAYLOAD through each row of the shell guard's table of options
			// and operands a program runs as a command.
			"runtable": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 2 {
					ts.Fatalf("usage: runtable FILE PAYLOAD")
				}
				var b strings.Builder
				for _, o := range shellguard.ExecOptions() {
					for _, c := range o.Examples(args[1]) {
						b.WriteString(c + "\n")
					}
				}
				ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(b.String()), 0o644))
			},
			"tamper": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 2 {
					ts.Fatalf("usage: tamper FILE OFFSET")
				}
				p := ts.MkAbs(args[0])
				data, err := os.ReadFile(p)
				ts.Check(err)
				off, err := strconv.Atoi(args[1])
				ts.Check(err)
				data[off] ^= 1
				ts.Check(os.WriteFile(p, data, 0o644))
			},
			// exits N PROG ARGS...: run PROG and require exit status N
			// (stdout and stderr are kept for the following assertions).
			"exits": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) < 2 {
					ts.Fatalf("usage: exits N PROG [ARGS...]")
				}
				want, err := strconv.Atoi(args[0])
				ts.Check(err)
				got := 0
				if err := ts.Exec(args[1], args[2:]...); err != nil {
					var ee *exec.ExitError
					if !errors.As(err, &ee) {
						ts.Fatalf("run %s: %v", args[1], err)
					}
					got = ee.ExitCode()
				}
				if got != want {
					ts.Fatalf("%s exited %d, want %d", args[1], got, want)
				}
			},
			// mockmodel SCRIPT: start a scripted loopback model (both wire
			// formats) for the rest of the script; $MOCK_URL is its base URL
			// and $MOCK_REQUESTS the file its requests are saved to.
			"mockmodel": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 1 {
					ts.Fatalf("usage: mockmodel SCRIPT.json")
				}
				s, err := providertest.LoadScript(ts.MkAbs(args[0]))
				ts.Check(err)
				srv := providertest.NewScript(nil, s)
				ts.Setenv("MOCK_URL", srv.URL())
				reqFile := ts.MkAbs("mock-requests.json")
				ts.Setenv("MOCK_REQUESTS", reqFile)
				ts.Defer(srv.Close)
				mockMu.Lock()
				mockServers[ts] = srv
				mockMu.Unlock()
			},
			// otlpreceiver: start a loopback OTLP/HTTP receiver for the rest
			// of the script and point OTEL_EXPORTER_OTLP_ENDPOINT at it;
			// otlpdump writes what it received to $OTLP_DUMP for grep.
			"otlpreceiver": func(ts *testscript.TestScript, neg bool, args []string) {
				r := otlptest.New()
				ts.Defer(r.Close)
				ts.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", r.URL())
				ts.Setenv("OTLP_DUMP", ts.MkAbs("otlp-received.txt"))
				mockMu.Lock()
				otlpReceivers[ts] = r
				mockMu.Unlock()
			},
			"otlpdump": func(ts *testscript.TestScript, neg bool, args []string) {
				mockMu.Lock()
				r := otlpReceivers[ts]
				mockMu.Unlock()
				if r == nil {
					ts.Fatalf("otlpdump: no otlpreceiver started")
				}
				var b strings.Builder
				r.Dump(&b)
				ts.Check(os.WriteFile(ts.Getenv("OTLP_DUMP"), []byte(b.String()), 0o644))
			},
			// mockrequests: write the mock model's recorded requests to
			// $MOCK_REQUESTS (bodies included) for grep.
			"mockrequests": func(ts *testscript.TestScript, neg bool, args []string) {
				mockMu.Lock()
				srv := mockServers[ts]
				mockMu.Unlock()
				if srv == nil {
					ts.Fatalf("mockrequests: no mockmodel started")
				}
				reqs := srv.Requests()
				var b strings.Builder
				fmt.Fprintf(&b, "count %d\n", len(reqs))
				for _, r := range reqs {
					fmt.Fprintf(&b, "%s %s format=%s stream=%v tools=%s\n%s\n", r.Method, r.Path, r.Format, r.Stream, strings.Join(r.Tools, ","), r.Body)
				}
				ts.Check(os.WriteFile(ts.Getenv("MOCK_REQUESTS"), []byte(b.String()), 0o644))
			},
			// mockstalled: wait (at most 20 s) until the mock model is
			// stalling a delayed turn, i.e. the run is mid-request.
			"mockstalled": func(ts *testscript.TestScript, neg bool, args []string) {
				mockMu.Lock()
				srv := mockServers[ts]
				mockMu.Unlock()
				if srv == nil {
					ts.Fatalf("mockstalled: no mockmodel started")
				}
				select {
				case <-srv.Stalled():
				case <-time.After(guard):
					ts.Fatalf("mockstalled: the model was not reached within %v", guard)
				}
			},
			// lastsession: set $SESSION to the newest stored session's ID.
			"lastsession": func(ts *testscript.TestScript, neg bool, args []string) {
				ctx := context.Background()
				st, err := session.Open(ctx, filepath.Join(ts.Getenv("XDG_STATE_HOME"), "oceancode", "sessions.db"))
				ts.Check(err)
				defer st.Close()
				list, err := st.List(ctx, session.ListOptions{Limit: 1})
				ts.Check(err)
				if len(list) == 0 {
					ts.Fatalf("lastsession: no session stored")
				}
				ts.Setenv("SESSION", list[0].ID)
			},
			// waitrecorded: wait (up to the hang guard) until the newest session has
			// its first message on disk. A new session is created while the
			// first model request runs, so a script that kills a run must
			// wait for it before asserting what was recorded.
			"waitrecorded": func(ts *testscript.TestScript, neg bool, args []string) {
				ctx := context.Background()
				path := filepath.Join(ts.Getenv("XDG_STATE_HOME"), "oceancode", "sessions.db")
				for deadline := time.Now().Add(guard); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
					st, err := session.Open(ctx, path)
					if err != nil {
						continue
					}
					list, err := st.List(ctx, session.ListOptions{Limit: 1})
					if err == nil && len(list) > 0 && list[0].Status == session.Running {
						if msgs, err := st.Messages(ctx, list[0].ID); err == nil && len(msgs) > 0 {
							st.Close()
							return
						}
					}
					st.Close()
				}
				ts.Fatalf("waitrecorded: no running session with a message after %v", guard)
			},
			// signunchecked KEYFILE POLICY OUT: sign POLICY (serial 1, valid
			// from an hour ago for a day) without oceanadmin sign's checks, to
			// deploy a policy sign refuses and see the agent refuse it too.
			"signunchecked": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 3 {
					ts.Fatalf("usage: signunchecked KEYFILE POLICY OUT")
				}
				data, err := os.ReadFile(ts.MkAbs(args[0]))
				ts.Check(err)
				key, err := signing.ParsePrivateKey(data, func() ([]byte, error) { return []byte(ts.Getenv("OCEANADMIN_PASSPHRASE")), nil })
				ts.Check(err)
				policy, err := os.ReadFile(ts.MkAbs(args[1]))
				ts.Check(err)
				ts.Check(os.WriteFile(ts.MkAbs(args[2]), signPolicyUnchecked(key, policy), 0o644))
			},
			// chmod MODE FILE
			"chmod": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 2 {
					ts.Fatalf("usage: chmod MODE FILE")
				}
				mode, err := strconv.ParseUint(args[0], 8, 32)
				ts.Check(err)
				ts.Check(os.Chmod(ts.MkAbs(args[1]), os.FileMode(mode)))
			},
		},
	})
}
