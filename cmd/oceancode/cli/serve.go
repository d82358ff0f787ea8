package cli

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/oceancode/oceancode/agent/runner"
	"github.com/oceancode/oceancode/agent/server"
	"github.com/oceancode/oceancode/agent/session"
	"github.com/oceancode/oceancode/internal/exitcode"
	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/sessionconfig"
	"github.com/oceancode/oceancode/sessionfactory"
)

// DefaultServeAddr is serve's address without --addr.
const DefaultServeAddr = "127.0.0.1:4096"

type serveOptions struct {
	addr         string
	allowRemote  bool
	maxSessions  int
	trustProject bool
}

func newServeCmd(app *App) *cobra.Command {
	var o serveOptions
	cmd := &cobra.Command{
		Use:   "serve [--addr 127.0.0.1:4096]",
		Short: "Serve the HTTP API: sessions, live mode switch, remote approvals",
		Long: `Serves OceanCode's HTTP API (docs/server.md): create sessions, send prompts,
stream their events (Server-Sent Events, replayable with Last-Event-ID), switch
the permission mode live and answer permission asks from another program.

The first line on stdout is "listening on http://HOST:PORT". Every route needs
the bearer token in $XDG_STATE_HOME/oceancode/server.token (created 0600 on the
first start; its path is printed on stderr). Requests from a browser (an Origin
header) or for a foreign Host are refused. Loopback only unless --allow-remote.

Exit status: 0 after SIGINT/SIGTERM (sessions closed, pending asks kept for the
next start), 1 error, 2 usage, 3 invalid configuration, 4 requirements refused.`,
		Example: `  oceancode serve
  oceancode serve --addr 127.0.0.1:0     # any free port; read it from the first line
  curl -H "Authorization: Bearer $(cat ~/.local/state/oceancode/server.token)" http://127.0.0.1:4096/api/openapi.json`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runServe(cmd.Context(), app, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.addr, "addr", DefaultServeAddr, "HOST:PORT to listen on (port 0: any free port)")
	f.BoolVar(&o.allowRemote, "allow-remote", false, "allow a non-loopback address: anyone who can reach it and holds the token can run commands as you")
	f.BoolVar(&o.trustProject, "trust-project", false, "trust this workspace's project config while serving (refused when the requirements' project_config forbids it; docs/trust.md)")
	f.IntVar(&o.maxSessions, "max-sessions", server.DefaultMaxSessions, "sessions open at once; more are refused 429")
	return cmd
}

// loopback reports whether host (of HOST:PORT) names only this machine.
func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func runServe(ctx context.Context, app *App, o serveOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	host, _, err := net.SplitHostPort(o.addr)
	if err != nil {
		return exitcode.With(exitcode.Usage, fmt.Errorf("--addr %q: want HOST:PORT, e.g. 127.0.0.1:4096", o.addr))
	}
	if !loopback(host) && !o.allowRemote {
		return exitcode.With(exitcode.Usage, fmt.Errorf("--addr %s is not a loopback address: anyone who reaches it with the token could run commands as you; pass --allow-remote to accept that, or use 127.0.0.1", o.addr))
	}
	res, err := loadConfigTrust(app, nil, layers.TrustOptions{Project: o.trustProject})
	if err != nil {
		return err
	}
	// Refused requirements or a broken config stop here, as for run.
	if err := sessionGate(res); err != nil {
		return err
	}
	tokenPath := filepath.Join(layers.StateDir(app.Getenv), "server.token")
	token, err := serverToken(tokenPath)
	if err != nil {
		return err
	}
	store, err := session.Open(ctx, sessionsDB(app))
	if err != nil {
		return err
	}
	defer store.Close()
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return fmt.Errorf("serve %s: %w", o.addr, err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	var hosts []string
	if !loopback(host) {
		hosts = interfaceHosts(ln.Addr())
		fmt.Fprintf(app.Stderr, "oceancode: warning: serving on %s beyond this machine (--allow-remote): whoever reaches it and holds the token can run commands, read and write files as you; the connection is not encrypted\n", addr)
	}
	fc, err := factoryConfig(app, pinTrust(o.trustProject, res))
	if err != nil {
		return err
	}
	clients := sessionfactory.NewPool(nil)
	defer clients.Close()
	fc.Store, fc.Clients, fc.Via, fc.Interactive, fc.SwitchError = store, clients, "api", true, httpError
	f := sessionfactory.New(fc)
	defer f.Close()
	srv, err := server.New(server.Config{
		Token: token, TokenHint: tokenPath, Addr: addr, Hosts: hosts,
		NewSession: func(ctx context.Context, r server.CreateRequest) (*runner.Session, error) {
			return serveSession(ctx, f, r)
		},
		Inspect:     func() ([]byte, error) { return inspectJSON(app) },
		Resumable:   func(ctx context.Context) ([]string, error) { return resumable(ctx, store, fc.WorkDir) },
		Sessions:    func(ctx context.Context) ([]session.Session, error) { return storedSessions(ctx, store, app) },
		MaxSessions: o.maxSessions,
	})
	if err != nil {
		return err
	}
	// Sessions left with pending asks are taken up before the first
	// request is served: GET …/permission/pending lists them at once.
	ids, err := srv.Recover(ctx)
	for _, id := range ids {
		fmt.Fprintf(app.Stderr, "oceancode: resumed session %s (it has pending asks)\n", id)
	}
	if err != nil {
		fmt.Fprintf(app.Stderr, "oceancode: warning: %v\n", err)
	}
	// The token's path goes to stderr before the first stdout line, so a
	// client that has read "listening on" can find it said.
	fmt.Fprintf(app.Stderr, "oceancode: the bearer token is in %s (send Authorization: Bearer TOKEN)\n", tokenPath)
	fmt.Fprintf(app.Stdout, "listening on http://%s\n", addr)
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err = <-served:
	case <-ctx.Done():
	}
	// Sessions close first (their streams end, pending asks stay stored),
	// then the connections.
	closeErr := srv.Close()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = hs.Shutdown(sctx)
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve %s: %w", addr, err)
	}
	if closeErr != nil {
		return fmt.Errorf("close sessions: %w", closeErr)
	}
	fmt.Fprintln(app.Stderr, "oceancode: server stopped")
	return nil
}

// interfaceHosts are the Host values a non-loopback bind accepts: the
// machine's interface addresses with the port (names are never accepted,
// against DNS rebinding).
func interfaceHosts(a net.Addr) []string {
	ta, ok := a.(*net.TCPAddr)
	if !ok {
		return nil
	}
	port := fmt.Sprint(ta.Port)
	if !ta.IP.IsUnspecified() {
		return []string{net.JoinHostPort(ta.IP.String(), port)}
	}
	addrs, _ := net.InterfaceAddrs()
	var out []string
	for _, x := range addrs {
		if n, ok := x.(*net.IPNet); ok {
			out = append(out, net.JoinHostPort(n.IP.String(), port))
		}
	}
	return out
}

// serverToken reads the token at path, or creates it (32 random bytes,
// base64url) if there is none. A token file must be a regular file of this
// user with mode 0600: anything else is refused, never used or rewritten.
func serverToken(path string) (string, error) {
	if path == "" || !filepath.IsAbs(path) {
		return "", errors.New("server token: no state directory: set HOME or XDG_STATE_HOME")
	}
	for range 2 {
		tok, err := readToken(path)
		if !errors.Is(err, os.ErrNotExist) {
			return tok, err
		}
		if err := createToken(path); err != nil && !errors.Is(err, os.ErrExist) {
			return "", err
		}
	}
	return "", fmt.Errorf("server token %s: it disappeared while being created", path)
}

func readToken(path string) (string, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", err
		}
		return "", fmt.Errorf("server token %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("server token %s: not a regular file (%s): remove it, a new token is made on the next start", path, fi.Mode().Type())
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		return "", fmt.Errorf("server token %s: mode %04o, want 0600 (others could read it): run chmod 600 %s, or remove it to make a new token", path, perm, path)
	}
	if uid, ok := fileUID(fi); ok && uid != os.Geteuid() {
		return "", fmt.Errorf("server token %s: owned by uid %d, not by you (uid %d): remove it, a new token is made on the next start", path, uid, os.Geteuid())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("server token %s: %w", path, err)
	}
	tok := string(bytes.TrimSpace(b))
	if len(tok) < 32 || strings.ContainsFunc(tok, func(r rune) bool { return r <= ' ' || r > '~' }) {
		return "", fmt.Errorf("server token %s: not a token (want 32 or more printable characters): remove it, a new token is made on the next start", path)
	}
	return tok, nil
}

// createToken writes a new token atomically and exclusively: a complete
// temporary file is linked into place, so a reader never sees half a token
// and two servers starting at once agree on one.
func createToken(path string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("server token %s: %w", path, err)
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return fmt.Errorf("server token %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(dir, ".server.token-*")
	if err != nil {
		return fmt.Errorf("server token %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.WriteString(base64.RawURLEncoding.EncodeToString(raw) + "\n")
	if err == nil {
		err = tmp.Chmod(0o600)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("server token %s: %w", path, err)
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, os.ErrExist) {
			return err
		}
		return fmt.Errorf("server token %s: %w", path, err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// serveSession opens a session of the API (POST /api/session, or a stored
// session the server takes up on start) through the session factory; the
// server's sessions live as long as the server, not a request.
func serveSession(ctx context.Context, f *sessionfactory.Factory, r server.CreateRequest) (*runner.Session, error) {
	req := sessionfactory.Request{Resume: r.Resume, Request: sessionconfig.Request{
		Agent: r.Agent, Model: r.Model, PermissionMode: r.PermissionMode, MCPServers: r.MCPServers}}
	sess, err := f.Open(context.WithoutCancel(ctx), req)
	if err != nil {
		return nil, httpError(err)
	}
	return sess, nil
}

// serveStatuses is serve's one map from the session factory's errors to
// HTTP statuses and error codes (docs/server.md).
var serveStatuses = []struct {
	kind   error
	status int
	code   string
}{
	{sessionfactory.ErrRefused, http.StatusForbidden, "refused"},
	{sessionfactory.ErrNotFound, http.StatusNotFound, "no_session"},
	{sessionfactory.ErrLocked, http.StatusConflict, "session_held"},
	{sessionfactory.ErrBadRequest, http.StatusBadRequest, "bad_request"},
	{sessionfactory.ErrInvalid, http.StatusInternalServerError, "invalid_config"},
}

// httpError gives an error of the session factory (or of a live switch,
// which goes through the same checks) its HTTP status.
func httpError(err error) error {
	for _, e := range serveStatuses {
		if errors.Is(err, e.kind) {
			return server.Errorf(e.status, e.code, err)
		}
	}
	return err
}

// resumable lists the stored sessions of this directory with pending
// asks (one a live process holds fails to resume, said on stderr).
func resumable(ctx context.Context, store *session.Store, cwd string) ([]string, error) {
	pending, err := store.PendingAskSessions(ctx)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, id := range pending {
		s, err := store.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		if s.Cwd == cwd {
			ids = append(ids, id)
		}
	}
	return ids, nil
}
