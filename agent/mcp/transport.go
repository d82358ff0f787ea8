package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/oceancode/oceancode/agent/sandbox"
	"github.com/oceancode/oceancode/internal/procgroup"
)

// terminateWait is how long a closing stdio server has, once its stdin is
// closed, before it is signalled.
const terminateWait = 2 * time.Second

// serverEnv is the environment of a stdio server: the composed child
// environment (secret-named variables already stripped) plus the server's
// own env, whose values may name the agent's variables as ${NAME} — the one
// way a secret-named variable reaches a server: where its config names it.
func serverEnv(child []string, s Server, getenv func(string) string) []string {
	env := append([]string{}, child...)
	for _, k := range sortedKeys(s.Env) {
		env = append(env, k+"="+expand(s.Env[k], getenv))
	}
	return env
}

// expand replaces ${NAME} with the agent's variable NAME ("" when unset).
func expand(v string, getenv func(string) string) string {
	if getenv == nil || !strings.Contains(v, "${") {
		return v
	}
	return os.Expand(v, func(k string) string {
		if strings.HasPrefix(k, "{") {
			return ""
		}
		return getenv(k)
	})
}

// tail keeps the last bytes a server wrote to stderr, for error messages.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailMax = 2048

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailMax {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-tailMax:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	// The server's own text: it reaches the model and the terminal.
	return neutralize(strings.TrimSpace(string(t.buf)))
}

// stdioTransport runs the server's resolved, hashed executable (never a
// second PATH lookup): through the SDK's CommandTransport when the sandbox
// is off, under the sandbox (bubblewrap, the same Policy bash runs under)
// when it is on.
func stdioTransport(fp Fingerprint, s Server, env []string, p sandbox.Policy, stderr io.Writer) (sdk.Transport, error) {
	argv := append([]string{fp.Executable}, s.Args...)
	if !p.Confined() {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Args[0] = s.Command // argv[0] as declared, as a shell would pass it
		cmd.Env = env
		cmd.Dir = p.Dir
		cmd.Stderr = stderr
		procgroup.Own(cmd)
		return &sdk.CommandTransport{Command: cmd, TerminateDuration: terminateWait}, nil
	}
	c, err := sandbox.Command(context.Background(), p, argv, env)
	if err != nil {
		return nil, fmt.Errorf("the sandbox is on and cannot confine the server: %w", err)
	}
	c.Stderr = stderr
	return &confinedTransport{cmd: c}, nil
}

// confinedTransport is CommandTransport for a sandbox.Cmd, whose Start and
// Wait set up and tear down the confinement.
type confinedTransport struct{ cmd *sandbox.Cmd }

func (t *confinedTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	out, err := t.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	in, err := t.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := t.cmd.Start(); err != nil {
		return nil, err
	}
	conn, err := (&sdk.IOTransport{Reader: io.NopCloser(out), Writer: in}).Connect(ctx)
	if err != nil {
		_ = t.cmd.Process.Kill()
		_ = t.cmd.Wait()
		return nil, err
	}
	done := make(chan error, 1)
	go func() { done <- t.cmd.Wait() }()
	return &confinedConn{Connection: conn, done: done, cmd: t.cmd}, nil
}

type confinedConn struct {
	sdk.Connection
	done chan error
	cmd  *sandbox.Cmd
	once sync.Once
}

// Close closes the server's stdin, gives it terminateWait to exit, then
// kills it; the sandbox's Wait ends the whole namespace.
func (c *confinedConn) Close() error {
	var err error
	c.once.Do(func() {
		err = c.Connection.Close()
		select {
		case <-c.done:
		case <-time.After(terminateWait):
			_ = c.cmd.Process.Kill()
			<-c.done
		}
	})
	return err
}

// httpTransport is the streamable-HTTP transport with the server's headers
// (values may name the agent's variables as ${NAME}).
func httpTransport(s Server, base *http.Client, getenv func(string) string) sdk.Transport {
	hc := &http.Client{}
	if base != nil {
		*hc = *base
	}
	rt := hc.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	h := http.Header{}
	for k, v := range s.Headers {
		h.Set(k, expand(v, getenv))
	}
	hc.Transport = headerTransport{rt: rt, h: h}
	return &sdk.StreamableClientTransport{Endpoint: s.URL, HTTPClient: hc, MaxRetries: 2, DisableStandaloneSSE: true}
}

type headerTransport struct {
	rt http.RoundTripper
	h  http.Header
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(t.h) == 0 {
		return t.rt.RoundTrip(r)
	}
	r = r.Clone(r.Context())
	for k, v := range t.h {
		r.Header[k] = v
	}
	return t.rt.RoundTrip(r)
}

// closed reports whether err says the connection is gone (the server
// exited or hung up): the next call reconnects.
func closed(err error) bool {
	return errors.Is(err, sdk.ErrConnectionClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe)
}
