//go:build linux && (amd64 || arm64)

package sandbox

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/oceancode/oceancode/agent/sandbox/egress"
)

// countedServer is an HTTP(S) server on a loopback address that counts
// the connections it accepts: the host-side oracle of the egress tests.
type countedServer struct {
	*httptest.Server
	conns atomic.Int64
	port  int
}

func newCountedServer(t *testing.T, addr string, tlsOn bool, body string) *countedServer {
	t.Helper()
	ln, err := net.Listen("tcp4", addr)
	if err != nil {
		t.Fatal(err)
	}
	s := &countedServer{}
	s.Server = &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s host=%s", body, r.Host)
	})}}
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.conns.Add(1)
		}
	}
	if tlsOn {
		s.StartTLS()
	} else {
		s.Start()
	}
	t.Cleanup(s.Close)
	s.port = ln.Addr().(*net.TCPAddr).Port
	return s
}

type decisionLog struct {
	mu sync.Mutex
	ds []egress.Decision
}

func (l *decisionLog) add(d egress.Decision) {
	l.mu.Lock()
	l.ds = append(l.ds, d)
	l.mu.Unlock()
}

func (l *decisionLog) last() egress.Decision {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.ds) == 0 {
		return egress.Decision{}
	}
	return l.ds[len(l.ds)-1]
}

// TestEgressAllowlist runs clients inside the real sandbox with network
// allowlist and judges on the host side which loopback listeners were
// reached. The "remote" hosts are loopback listeners allowed as IP
// literals (names resolving to loopback are refused by design).
func TestEgressAllowlist(t *testing.T) {
	requireSandbox(t)
	f := newFixture(t)
	plain := newCountedServer(t, "127.0.0.1:0", false, "plain-ok")
	secure := newCountedServer(t, "127.0.0.2:0", true, "tls-ok")
	unlisted := newCountedServer(t, "127.0.0.1:0", false, "unlisted")
	byName := newCountedServer(t, "127.0.0.1:0", false, "by-name")
	l := newListeners(t, f)

	allow := []string{
		"127.0.0.1:" + strconv.Itoa(plain.port),
		"127.0.0.2:" + strconv.Itoa(secure.port),
		"localhost:" + strconv.Itoa(byName.port),
	}
	var log decisionLog
	proxy, err := egress.New(egress.Config{Allow: allow, OnDecision: log.add})
	if err != nil {
		t.Fatal(err)
	}
	if err := proxy.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proxy.Close() })
	p := f.policy(ModeWorkspaceWrite)
	p.Network, p.AllowHosts, p.Egress = NetworkAllowlist, allow, proxy

	attack := func(t *testing.T, args ...string) result {
		t.Helper()
		return runArgv(t, p, append([]string{f.attack, "__attack"}, args...))
	}
	hosts := func(s ...*countedServer) []int64 {
		var out []int64
		for _, x := range s {
			out = append(out, x.conns.Load())
		}
		return out
	}

	t.Run("proxy variables", func(t *testing.T) {
		r := run(t, p, `echo "$HTTP_PROXY|$HTTPS_PROXY|$ALL_PROXY|$http_proxy|$https_proxy|$NO_PROXY"`)
		v := strings.Split(strings.TrimSpace(r.out), "|")
		if len(v) != 6 || !strings.HasPrefix(v[0], "http://127.0.0.1:") || v[1] != v[0] || v[2] != v[0] || v[3] != v[0] || v[4] != v[0] || v[5] != "localhost,127.0.0.1,::1" {
			t.Errorf("proxy environment = %q (%s)", r.out, r.errOut)
		}
	})
	t.Run("plain HTTP to an allowed host", func(t *testing.T) {
		before := plain.conns.Load()
		r := attack(t, "proxy-get", fmt.Sprintf("http://127.0.0.1:%d/x", plain.port))
		if r.code != 0 || !strings.Contains(r.out, fmt.Sprintf("plain-ok host=127.0.0.1:%d", plain.port)) {
			t.Errorf("exit %d: %q %q", r.code, r.out, r.errOut)
		}
		if plain.conns.Load() == before {
			t.Error("the allowed listener saw no connection")
		}
		if d := log.last(); !d.Allowed || d.Method != "GET" || d.Rule != allow[0] {
			t.Errorf("decision = %+v", d)
		}
	})
	t.Run("HTTPS through CONNECT to an allowed host", func(t *testing.T) {
		before := secure.conns.Load()
		r := attack(t, "proxy-get", fmt.Sprintf("https://127.0.0.2:%d/y", secure.port))
		if r.code != 0 || !strings.Contains(r.out, "tls-ok") {
			t.Errorf("exit %d: %q %q", r.code, r.out, r.errOut)
		}
		if secure.conns.Load() == before {
			t.Error("the allowed TLS listener saw no connection")
		}
		if d := log.last(); !d.Allowed || d.Method != "CONNECT" || d.Addr.String() != fmt.Sprintf("127.0.0.2:%d", secure.port) {
			t.Errorf("decision = %+v", d)
		}
	})
	t.Run("unlisted host gets 403 and no connection", func(t *testing.T) {
		before := hosts(unlisted, plain, secure)
		for _, method := range []string{"CONNECT", "GET"} {
			target := fmt.Sprintf("127.0.0.1:%d", unlisted.port)
			r := attack(t, "proxy-raw", method, target)
			if !strings.Contains(r.out, "STATUS 403") || !strings.Contains(r.out, "rule not-listed") {
				t.Errorf("%s %s: %q %q", method, target, r.out, r.errOut)
			}
			if d := log.last(); d.Allowed || d.Rule != egress.RefusedNotListed {
				t.Errorf("decision = %+v", d)
			}
		}
		// A listed IP on another port is not listed either.
		r := attack(t, "proxy-raw", "CONNECT", fmt.Sprintf("127.0.0.1:%d", secure.port))
		if !strings.Contains(r.out, "STATUS 403") {
			t.Errorf("listed IP, other port: %q", r.out)
		}
		if got := hosts(unlisted, plain, secure); fmt.Sprint(got) != fmt.Sprint(before) {
			t.Errorf("listener connections %v -> %v: a refused request reached a host", before, got)
		}
	})
	t.Run("name resolving to loopback is refused even when listed", func(t *testing.T) {
		before := byName.conns.Load()
		for _, method := range []string{"CONNECT", "GET"} {
			r := attack(t, "proxy-raw", method, fmt.Sprintf("localhost:%d", byName.port))
			if !strings.Contains(r.out, "STATUS 403") || !strings.Contains(r.out, "rule loopback") {
				t.Errorf("%s: %q %q", method, r.out, r.errOut)
			}
			if d := log.last(); d.Allowed || d.Rule != egress.RefusedLoopback {
				t.Errorf("decision = %+v", d)
			}
		}
		if byName.conns.Load() != before {
			t.Error("a name resolving to loopback reached the listener")
		}
	})
	t.Run("no direct route, no UDP, no DNS, no unix socket to the proxy", func(t *testing.T) {
		before := hosts(plain, secure, unlisted, byName)
		l.hits.Store(0)
		socket := egressSocketInside
		script := fmt.Sprintf(`
			"$ATTACK" __attack tcp 127.0.0.1:%d
			"$ATTACK" __attack tcp 127.0.0.2:%d
			"$ATTACK" __attack tcp %s
			"$ATTACK" __attack udp %s
			"$ATTACK" __attack dns %s
			"$ATTACK" __attack unix %s
			"$ATTACK" __attack unix %s
			"$ATTACK" __attack unix %s
			exit 0`, plain.port, secure.port, l.tcp, l.udp, l.dns, l.unixWS, l.unixOut, socket)
		r := run(t, p, script, f.env()...)
		time.Sleep(100 * time.Millisecond)
		// A UDP send "succeeds" into the namespace's own loopback (nothing
		// listens there); the host-side counters below are the oracle.
		if n := strings.Count(r.out, "DENIED"); n != 7 {
			t.Errorf("%d of 7 connection attempts reported DENIED:\n%s%s", n, r.out, r.errOut)
		}
		if got := hosts(plain, secure, unlisted, byName); fmt.Sprint(got) != fmt.Sprint(before) {
			t.Errorf("listener connections %v -> %v: direct traffic bypassed the proxy", before, got)
		}
		if h := l.hits.Load(); h != 0 {
			t.Errorf("%d connections/datagrams reached host loopback listeners", h)
		}
	})
	t.Run("the forwarding helper cannot be traced or read", func(t *testing.T) {
		// The shell is the helper's child; the helper is non-dumpable.
		r := run(t, p, `
			"$ATTACK" __attack ptrace $PPID
			head -c 1 /proc/$PPID/mem >/dev/null 2>&1 && echo MEM-READ
			readlink /proc/$PPID/fd/0 >/dev/null 2>&1 && echo PROC-READ
			cat /proc/$PPID/environ >/dev/null 2>&1 && echo PROC-READ
			exit 0`, f.env()...)
		if !strings.Contains(r.out, "DENIED") || strings.Contains(r.out, "ALLOWED") || strings.Contains(r.out, "MEM-READ") || strings.Contains(r.out, "PROC-READ") {
			t.Errorf("the helper is reachable from the command:\n%s%s", r.out, r.errOut)
		}
	})
	t.Run("exit status and signals pass through the helper", func(t *testing.T) {
		if r := run(t, p, "exit 7"); r.code != 7 {
			t.Errorf("exit %d, want 7", r.code)
		}
		if r := run(t, p, "kill -TERM $$"); r.code != 128+15 {
			t.Errorf("exit %d, want 143", r.code)
		}
		r := run(t, p, "echo in; cat", "X=1")
		if r.code != 0 || r.out != "in\n" {
			t.Errorf("exit %d: %q %q", r.code, r.out, r.errOut)
		}
	})
}

func TestEgressNeedsProxy(t *testing.T) {
	requireSandbox(t)
	f := newFixture(t)
	p := f.policy(ModeWorkspaceWrite)
	p.Network, p.AllowHosts = NetworkAllowlist, []string{"example.com"}
	if _, err := Command(t.Context(), p, []string{"true"}, nil); !errors.Is(err, ErrNoEgressProxy) {
		t.Errorf("no proxy: err = %v, want ErrNoEgressProxy", err)
	}
	other, err := egress.New(egress.Config{Allow: []string{"example.org"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	p.Egress = other
	if _, err := Command(t.Context(), p, []string{"true"}, nil); !errors.Is(err, ErrNoEgressProxy) {
		t.Errorf("mismatched proxy: err = %v, want ErrNoEgressProxy", err)
	}
	unstarted, _ := egress.New(egress.Config{Allow: []string{"example.com"}})
	p.Egress = unstarted
	if _, err := Command(t.Context(), p, []string{"true"}, nil); !errors.Is(err, ErrNoEgressProxy) {
		t.Errorf("unstarted proxy: err = %v, want ErrNoEgressProxy", err)
	}
}
