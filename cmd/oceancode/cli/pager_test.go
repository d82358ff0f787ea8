package cli

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/agent/server/servertest"
	"github.com/oceancode/oceancode/agent/session"
	"github.com/oceancode/oceancode/layers/layerstest"
)

const noTerminal = "oceancode: no terminal on stdin/stdout: use `oceancode run PROMPT` for a headless run\n"

// TestPagerNeedsTerminal: oceancode with no command and no terminal says to
// use run, exit 2, before reading any configuration; arguments that are no
// command are a usage error, not the pager.
func TestPagerNeedsTerminal(t *testing.T) {
	for _, argv := range [][]string{{}, {"--continue"}, {"--session", "ses_x"}, {"--model", "openai/gpt-5"}} {
		m := layerstest.New(t)
		m.UserConfig(`{"model": 5}`) // broken: not read before the terminal check
		app, out, errb := machineApp(t, m)
		if code := Main(context.Background(), argv, app, Options{}); code != 2 || errb.String() != noTerminal || out.Len() != 0 {
			t.Errorf("oceancode %v: exit %d, stderr %q, stdout %q", argv, code, errb, out)
		}
	}
	m := layerstest.New(t)
	app, _, errb := machineApp(t, m)
	if code := Main(context.Background(), []string{"frobnicate"}, app, Options{}); code != 2 || !strings.Contains(errb.String(), `unknown command "frobnicate"`) {
		t.Errorf("oceancode frobnicate: exit %d, %q", code, errb)
	}
	app, _, errb = machineApp(t, m)
	if code := Main(context.Background(), []string{"--session", "a", "--continue"}, app, Options{}); code != 2 || !strings.Contains(errb.String(), "--session and --continue: give one") {
		t.Errorf("--session with --continue: exit %d, %q", code, errb)
	}
}

// TestAttachErrors: attach checks the address, the token and the session
// against the real server before it needs a terminal, and says which one
// failed.
func TestAttachErrors(t *testing.T) {
	l := servertest.NewLive(t, servertest.LiveOptions{})
	m := layerstest.New(t)
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good"), filepath.Join(dir, "bad")
	os.WriteFile(good, []byte(l.Token+"\n"), 0o600)
	os.WriteFile(bad, []byte("not-the-token\n"), 0o600)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()
	_, port, _ := net.SplitHostPort(l.TS.Listener.Addr().String())
	cases := []struct {
		name string
		argv []string
		env  map[string]string
		code int
		want string
	}{
		{"not a URL", []string{"attach", "127.0.0.1:4096"}, nil, 2, "attach 127.0.0.1:4096: want the server's address, http://HOST:PORT"},
		{"a refused token", []string{"attach", l.URL, "--token-file", bad}, nil, 1, "the server refused the token from " + bad},
		{"a refused token from the environment", []string{"attach", l.URL}, map[string]string{"OCEANCODE_TOKEN": "nope"}, 1, "the server refused the token from $OCEANCODE_TOKEN"},
		{"no token file", []string{"attach", l.URL}, nil, 1, "server.token: no such file or directory (pass --token-file or set OCEANCODE_TOKEN)"},
		{"a refused host", []string{"attach", "http://[::ffff:127.0.0.1]:" + port, "--token-file", good}, nil, 1, "the server refused this request's address"},
		{"nobody listening", []string{"attach", closed, "--token-file", good}, nil, 1, "connection refused"},
		{"an unknown session", []string{"attach", l.URL, "--token-file", good, "--session", "ses_none"}, nil, 1, "session ses_none: GET /api/session/ses_none: 404 no_session"},
		{"all good but no terminal", []string{"attach", l.URL, "--token-file", good}, nil, 2, noTerminal},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			app, _, errb := machineApp(t, m)
			getenv := app.Getenv
			app.Getenv = func(k string) string {
				if v, ok := c.env[k]; ok {
					return v
				}
				return getenv(k)
			}
			if code := Main(context.Background(), c.argv, app, Options{}); code != c.code || !strings.Contains(errb.String(), c.want) {
				t.Errorf("exit %d, stderr %q; want %d with %q", code, errb, c.code, c.want)
			}
		})
	}
	// Nothing was created on the server by the failed attaches.
	if n := l.Srv.Sessions(); n != 0 {
		t.Errorf("%d sessions on the server", n)
	}
}

// TestStoredSessions: the pager's /sessions and --continue see the stored
// sessions of this directory only, newest first.
func TestStoredSessions(t *testing.T) {
	m := layerstest.New(t)
	app, _, _ := machineApp(t, m)
	ctx := context.Background()
	st, err := openStore(ctx, app)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := latestSession(ctx, st, app); err == nil || !strings.Contains(err.Error(), "--continue: no session of "+m.Project) {
		t.Errorf("--continue without a session: %v", err)
	}
	var ids []string
	for _, cwd := range []string{m.Project, "/elsewhere", m.Project} {
		s, err := st.Create(ctx, session.Meta{Agent: "build", Model: "m", Mode: "default", Cwd: cwd})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.ID)
	}
	list, err := storedSessions(ctx, st, app)
	if err != nil || len(list) != 2 || list[0].ID != ids[2] || list[1].ID != ids[0] {
		t.Fatalf("stored sessions = %+v, %v", list, err)
	}
	if id, err := latestSession(ctx, st, app); err != nil || id != ids[2] {
		t.Errorf("--continue = %s, %v", id, err)
	}
}
