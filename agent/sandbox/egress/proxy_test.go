package egress

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// harness runs a proxy whose resolver is a table and whose dialer records
// the address it was asked for and connects to a loopback origin instead,
// so addresses that are not this machine's can be "dialled" safely.
type harness struct {
	proxy   *Proxy
	origin  net.Listener
	mu      sync.Mutex
	dialled []netip.AddrPort
	lookups map[string]int
	ds      []Decision
	headers chan http.Header
}

func newHarness(t *testing.T, allow []string, table map[string][]string) *harness {
	t.Helper()
	h := &harness{lookups: map[string]int{}, headers: make(chan http.Header, 10)}
	origin, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h.origin = origin
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.headers <- r.Header.Clone()
		b, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "origin host=%s uri=%s body=%s", r.Host, r.RequestURI, b)
	})}
	go srv.Serve(origin)
	t.Cleanup(func() { srv.Close() })
	h.proxy, err = New(Config{
		Allow: allow,
		Resolve: func(_ context.Context, name string) ([]netip.Addr, error) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.lookups[name]++
			var out []netip.Addr
			for _, a := range table[name] {
				out = append(out, netip.MustParseAddr(a))
			}
			if len(out) == 0 {
				return nil, fmt.Errorf("no such host %s", name)
			}
			if name == "rebind.test" && h.lookups[name] > 1 {
				return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
			}
			return out, nil
		},
		Dial: func(ctx context.Context, ap netip.AddrPort) (net.Conn, error) {
			h.mu.Lock()
			h.dialled = append(h.dialled, ap)
			h.mu.Unlock()
			return (&net.Dialer{}).DialContext(ctx, "tcp", origin.Addr().String())
		},
		OnDecision: func(d Decision) {
			h.mu.Lock()
			h.ds = append(h.ds, d)
			h.mu.Unlock()
		},
		Dir: t.TempDir(),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.proxy.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.proxy.Close() })
	return h
}

// roundTrip sends a raw request through the proxy socket and returns the
// response (the status line, headers and body as text).
func (h *harness) roundTrip(t *testing.T, raw string) string {
	t.Helper()
	c, err := net.Dial("unix", h.proxy.SocketPath())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(c)
	return string(b)
}

func (h *harness) lastDecision() Decision {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.ds) == 0 {
		return Decision{}
	}
	return h.ds[len(h.ds)-1]
}

func TestProxyDecisions(t *testing.T) {
	h := newHarness(t, []string{"public.test", "rebind.test", "mixed.test", "meta.test", "private.test", "*.wild.test", "10.9.9.9:8080"},
		map[string][]string{
			"public.test":  {"203.0.113.9", "2001:db8::9"},
			"rebind.test":  {"203.0.113.10"},
			"mixed.test":   {"203.0.113.11", "127.0.0.1"},
			"meta.test":    {"169.254.169.254"},
			"private.test": {"10.0.0.5"},
			"a.wild.test":  {"198.51.100.1"},
		})
	cases := []struct {
		name, req  string
		status     string
		rule       string
		dialled    string // "" = nothing dialled
		bodySubstr string
	}{
		{"GET allowed", "GET http://public.test/p?q=1 HTTP/1.1\r\nHost: evil.test\r\nProxy-Authorization: x\r\n\r\n",
			"200", "public.test", "203.0.113.9:80", "origin host=public.test uri=/p?q=1"},
		{"GET port not listed", "GET http://public.test:8080/ HTTP/1.1\r\nHost: public.test:8080\r\n\r\n",
			"403", RefusedNotListed, "", "rule not-listed"},
		{"rebinding: the checked address is dialled", "GET http://rebind.test/ HTTP/1.1\r\nHost: rebind.test\r\n\r\n",
			"200", "rebind.test", "203.0.113.10:80", "origin"},
		{"one loopback address refuses the name", "CONNECT mixed.test:443 HTTP/1.1\r\nHost: mixed.test:443\r\n\r\n",
			"403", RefusedLoopback, "", "mixed.test resolves to 127.0.0.1, a loopback address"},
		{"metadata", "GET http://meta.test/latest/meta-data/ HTTP/1.1\r\nHost: meta.test\r\n\r\n",
			"403", RefusedMetadata, "", "rule metadata"},
		{"metadata IP literal not listed", "GET http://169.254.169.254/ HTTP/1.1\r\nHost: 169.254.169.254\r\n\r\n",
			"403", RefusedNotListed, "", "rule not-listed"},
		{"private address of a listed name", "GET http://private.test/ HTTP/1.1\r\nHost: private.test\r\n\r\n",
			"200", "private.test", "10.0.0.5:80", "origin"},
		{"wildcard", "GET http://a.wild.test/ HTTP/1.1\r\nHost: a.wild.test\r\n\r\n",
			"200", "*.wild.test", "198.51.100.1:80", "origin"},
		{"wildcard apex", "CONNECT wild.test:443 HTTP/1.1\r\n\r\n",
			"403", RefusedNotListed, "", "not on sandbox.allow_hosts"},
		{"listed IP literal", "GET http://10.9.9.9:8080/ HTTP/1.1\r\nHost: 10.9.9.9:8080\r\n\r\n",
			"200", "10.9.9.9:8080", "10.9.9.9:8080", "origin"},
		{"unlisted look-alike", "CONNECT a.wild.test.invalid:443 HTTP/1.1\r\n\r\n",
			"403", RefusedNotListed, "", ""},
		{"unresolvable listed name", "CONNECT nx.wild.test:443 HTTP/1.1\r\n\r\n",
			"403", RefusedResolve, "", "cannot resolve nx.wild.test"},
		{"origin-form request", "GET /x HTTP/1.1\r\nHost: public.test\r\n\r\n",
			"400", RefusedBadRequest, "", "this is a proxy"},
		{"https absolute URI", "GET https://public.test/ HTTP/1.1\r\nHost: public.test\r\n\r\n",
			"400", RefusedBadRequest, "", "use CONNECT"},
		{"CONNECT without port", "CONNECT public.test HTTP/1.1\r\n\r\n",
			"400", RefusedBadRequest, "", "missing port"},
		{"garbage", "HELLO\r\n\r\n", "400", RefusedBadRequest, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h.mu.Lock()
			n := len(h.dialled)
			h.mu.Unlock()
			resp := h.roundTrip(t, c.req)
			if !strings.HasPrefix(resp, "HTTP/1.1 "+c.status) || !strings.Contains(resp, c.bodySubstr) {
				t.Errorf("response:\n%s", resp)
			}
			d := h.lastDecision()
			if d.Rule != c.rule || d.Allowed != (c.status == "200") {
				t.Errorf("decision = %+v, want rule %q", d, c.rule)
			}
			h.mu.Lock()
			var got string
			if len(h.dialled) > n {
				got = h.dialled[len(h.dialled)-1].String()
			}
			h.mu.Unlock()
			if got != c.dialled {
				t.Errorf("dialled %q, want %q", got, c.dialled)
			}
		})
	}
	if h.lookups["rebind.test"] != 1 {
		t.Errorf("rebind.test resolved %d times, want once", h.lookups["rebind.test"])
	}
}

func TestProxyForwardsHeadersAndBody(t *testing.T) {
	h := newHarness(t, []string{"public.test"}, map[string][]string{"public.test": {"203.0.113.9"}})
	resp := h.roundTrip(t, "POST http://public.test/up HTTP/1.1\r\nHost: public.test\r\nProxy-Connection: keep-alive\r\n"+
		"Proxy-Authorization: Basic eDp5\r\nConnection: X-Secret\r\nX-Secret: 1\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\nhello")
	if !strings.HasPrefix(resp, "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200") || !strings.Contains(resp, "body=hello") || !strings.Contains(resp, "Connection: close") {
		t.Errorf("response:\n%s", resp)
	}
	hdr := <-h.headers
	for _, k := range []string{"Proxy-Connection", "Proxy-Authorization", "X-Secret", "Expect"} {
		if hdr.Get(k) != "" {
			t.Errorf("header %s reached the origin", k)
		}
	}
}

func TestProxyConnectTunnels(t *testing.T) {
	h := newHarness(t, []string{"public.test:8443"}, map[string][]string{"public.test": {"203.0.113.9"}})
	c, err := net.Dial("unix", h.proxy.SocketPath())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	// The tunnelled request is pipelined after CONNECT: bytes the proxy
	// has buffered must reach the origin too.
	io.WriteString(c, "CONNECT public.test:8443 HTTP/1.1\r\nHost: public.test:8443\r\n\r\nGET /inside HTTP/1.1\r\nHost: inner.test\r\nConnection: close\r\n\r\n")
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("CONNECT: %v %v", resp, err)
	}
	inner, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(inner.Body)
	if !strings.Contains(string(b), "origin host=inner.test uri=/inside") {
		t.Errorf("tunnelled response %q", b)
	}
	if d := h.lastDecision(); !d.Allowed || d.Addr.String() != "203.0.113.9:8443" {
		t.Errorf("decision %+v", d)
	}
}

func TestProxyCloseCutsTunnelsAndRemovesSocket(t *testing.T) {
	h := newHarness(t, []string{"public.test"}, map[string][]string{"public.test": {"203.0.113.9"}})
	sock := h.proxy.SocketPath()
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "CONNECT public.test:443 HTTP/1.1\r\n\r\n")
	br := bufio.NewReader(c)
	if resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect}); err != nil || resp.StatusCode != 200 {
		t.Fatalf("CONNECT: %v %v", resp, err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := br.ReadByte()
		done <- err
	}()
	if err := h.proxy.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the tunnel survived Close")
	}
	if _, err := os.Stat(filepath.Dir(sock)); !os.IsNotExist(err) {
		t.Errorf("socket directory left behind: %v", err)
	}
	if err := h.proxy.Start(); err == nil {
		t.Error("Start after Close succeeded")
	}
}

func TestProxySocketIsPrivate(t *testing.T) {
	h := newHarness(t, nil, nil)
	fi, err := os.Stat(filepath.Dir(h.proxy.SocketPath()))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("socket directory mode %v, want 0700", fi.Mode().Perm())
	}
	if _, err := New(Config{Allow: []string{"*"}}); err == nil {
		t.Error(`New accepted "*"`)
	}
}
