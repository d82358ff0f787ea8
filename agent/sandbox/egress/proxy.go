// Package egress is the sandbox's egress proxy: the only way out of a
// sandboxed command's network namespace when sandbox.network is allowlist.
//
// A [Proxy] runs in the agent for the whole session and listens on a unix
// socket in a private (0700) directory; the sandbox bind-mounts that socket
// into each command's namespace and a forwarder inside the namespace
// exposes it on 127.0.0.1 (package sandbox does that). The proxy speaks
// HTTP/1.1 proxy requests:
//
//   - CONNECT host:port — for HTTPS and anything else over TLS: after the
//     check it tunnels bytes and never looks inside;
//   - absolute-URI requests (GET http://host/path) — plain HTTP, one request
//     per client connection.
//
// Each request is checked against the allow-list ([ParseRule] documents the
// sandbox.allow_hosts syntax). A listed name is resolved here, never inside
// the sandbox; if any of its addresses is loopback, link-local, a metadata
// endpoint, unspecified, multicast or one of this host's own addresses
// ([AddrClass]) the request is refused, unless the request was for an IP
// literal that is itself listed. The proxy dials the exact address it
// checked (no second resolution, so no DNS rebinding). A refusal is a 403
// whose body names the rule that refused; every decision goes to
// [Config.OnDecision].
package egress

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/oceancode/oceancode/agent/sandbox/egress/tunnel"
)

// Decision is one allow or refuse decision of the proxy, for the runtime
// to surface (events, logs).
type Decision struct {
	Time time.Time
	// Method is CONNECT or the plain-HTTP method.
	Method string
	// Target is the requested host:port ("" when unparsable).
	Target string
	// Allowed reports whether the request was let through the check.
	Allowed bool
	// Rule is, when allowed, the allow_hosts entry that matched (canonical
	// form); when refused, the refusal rule (Refused* constants).
	Rule string
	// Addr is the address dialled (allowed requests that connected).
	Addr netip.AddrPort
	// Detail says why, in words (the 403 body says the same).
	Detail string
	// Err is the dial error of an allowed request that could not connect.
	Err string
}

func (d Decision) String() string {
	if d.Allowed {
		s := fmt.Sprintf("egress allowed %s %s (allow_hosts %s)", d.Method, d.Target, d.Rule)
		if d.Err != "" {
			s += ": " + d.Err
		}
		return s
	}
	return fmt.Sprintf("egress refused %s %s (rule %s): %s", d.Method, d.Target, d.Rule, d.Detail)
}

// Config configures a Proxy.
type Config struct {
	// Allow is sandbox.allow_hosts.
	Allow []string
	// OnDecision, when set, is called for every request (from the
	// connection's goroutine; it must not block for long).
	OnDecision func(Decision)
	// Resolve resolves a name (nil = the system resolver).
	Resolve func(ctx context.Context, name string) ([]netip.Addr, error)
	// Dial connects to a checked address (nil = net.Dialer).
	Dial func(ctx context.Context, addr netip.AddrPort) (net.Conn, error)
	// Dir is the parent of the proxy's private socket directory
	// ("" = os.TempDir()).
	Dir string
	// DialTimeout bounds resolving plus connecting (0 = 10 s).
	DialTimeout time.Duration
}

// Proxy is the per-session egress proxy. Create it with New, Start it
// once, hand it to every sandboxed command's policy, Close it when the
// session ends.
type Proxy struct {
	cfg   Config
	allow AllowList

	mu     sync.Mutex
	ln     net.Listener
	dir    string
	conns  map[io.Closer]struct{}
	closed bool
	wg     sync.WaitGroup

	localMu sync.Mutex
	local   map[netip.Addr]bool
	localAt time.Time
}

// New validates cfg.Allow and returns a proxy that is not listening yet.
func New(cfg Config) (*Proxy, error) {
	allow, err := ParseAllowList(cfg.Allow)
	if err != nil {
		return nil, err
	}
	if cfg.DialTimeout <= 0 {
		cfg.DialTimeout = 10 * time.Second
	}
	return &Proxy{cfg: cfg, allow: allow, conns: map[io.Closer]struct{}{}}, nil
}

// AllowList is the parsed allow-list the proxy enforces.
func (p *Proxy) AllowList() AllowList { return append(AllowList(nil), p.allow...) }

// SocketName is the file name of the proxy's socket in its directory.
const SocketName = "proxy.sock"

// Start creates the private socket directory and starts serving.
func (p *Proxy) Start() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return errors.New("egress: proxy closed")
	}
	if p.ln != nil {
		return errors.New("egress: proxy already started")
	}
	dir, err := os.MkdirTemp(p.cfg.Dir, "oceancode-egress-")
	if err != nil {
		return fmt.Errorf("egress: create socket directory: %w", err)
	}
	path := filepath.Join(dir, SocketName)
	if len(path) >= 108 {
		os.RemoveAll(dir)
		return fmt.Errorf("egress: socket path %s is too long for a unix socket (set a shorter TMPDIR)", path)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		os.RemoveAll(dir)
		return fmt.Errorf("egress: listen %s: %w", path, err)
	}
	p.ln, p.dir = ln, dir
	p.wg.Add(1)
	go p.acceptLoop(ln)
	return nil
}

// SocketPath is the host path of the proxy's unix socket ("" before Start).
func (p *Proxy) SocketPath() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln == nil {
		return ""
	}
	return filepath.Join(p.dir, SocketName)
}

// Close stops the proxy, cuts every open tunnel and removes the socket.
func (p *Proxy) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	var err error
	if p.ln != nil {
		err = p.ln.Close()
	}
	for c := range p.conns {
		c.Close()
	}
	dir := p.dir
	p.mu.Unlock()
	p.wg.Wait()
	if dir != "" {
		os.RemoveAll(dir)
	}
	return err
}

// track registers c so Close cuts it; false when the proxy is closing.
func (p *Proxy) track(c io.Closer) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *Proxy) untrack(c io.Closer) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
	c.Close()
}

func (p *Proxy) acceptLoop(ln net.Listener) {
	defer p.wg.Done()
	for {
		c, err := tunnel.Accept(ln)
		if err != nil {
			return
		}
		if !p.track(c) {
			c.Close()
			return
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			defer p.untrack(c)
			p.serve(c)
		}()
	}
}

const headerTimeout = 30 * time.Second

func (p *Proxy) serve(c net.Conn) {
	br := bufio.NewReader(c)
	c.SetReadDeadline(time.Now().Add(headerTimeout))
	req, err := http.ReadRequest(br)
	if err != nil {
		if !errors.Is(err, io.EOF) {
			p.refuse(c, Decision{Rule: RefusedBadRequest, Detail: "unreadable request: " + err.Error()}, http.StatusBadRequest)
		}
		return
	}
	c.SetReadDeadline(time.Time{})
	if req.Method == http.MethodConnect {
		p.connect(c, br, req)
		return
	}
	p.forward(c, br, req)
}

// check decides a request and returns the addresses to dial.
func (p *Proxy) check(ctx context.Context, d *Decision, t Target) []netip.Addr {
	r, ok := p.allow.Match(t)
	if !ok {
		d.Rule = RefusedNotListed
		d.Detail = t.String() + " is not on sandbox.allow_hosts"
		if t.IP.IsValid() {
			d.Detail += " (an IP literal is allowed only by an entry with that IP)"
		}
		return nil
	}
	if t.IP.IsValid() {
		// A listed IP literal is allowed even when it is loopback or
		// link-local: the user named that address.
		d.Allowed, d.Rule = true, r.String()
		return []netip.Addr{t.IP}
	}
	addrs, err := p.resolve(ctx, t.Name)
	if err != nil || len(addrs) == 0 {
		d.Rule = RefusedResolve
		d.Detail = "cannot resolve " + t.Name
		if err != nil {
			d.Detail += ": " + err.Error()
		}
		return nil
	}
	for _, a := range addrs {
		if class := AddrClass(a, p.isLocal); class != "" {
			d.Rule = class
			d.Detail = fmt.Sprintf("%s resolves to %s, a %s address; names never reach such addresses (list the IP literal to allow it)", t.Name, a, class)
			return nil
		}
	}
	d.Allowed, d.Rule = true, r.String()
	return addrs
}

func (p *Proxy) resolve(ctx context.Context, name string) ([]netip.Addr, error) {
	if p.cfg.Resolve != nil {
		return p.cfg.Resolve(ctx, name)
	}
	return net.DefaultResolver.LookupNetIP(ctx, "ip", name)
}

func (p *Proxy) isLocal(a netip.Addr) bool {
	p.localMu.Lock()
	defer p.localMu.Unlock()
	if p.local == nil || time.Since(p.localAt) > 30*time.Second {
		p.local, p.localAt = interfaceAddrs(), time.Now()
	}
	return p.local[a]
}

// dial connects to the first checked address that answers.
func (p *Proxy) dial(ctx context.Context, d *Decision, addrs []netip.Addr, port uint16) (net.Conn, error) {
	var firstErr error
	for _, a := range addrs {
		ap := netip.AddrPortFrom(a, port)
		var c net.Conn
		var err error
		if p.cfg.Dial != nil {
			c, err = p.cfg.Dial(ctx, ap)
		} else {
			c, err = (&net.Dialer{}).DialContext(ctx, "tcp", ap.String())
		}
		if err == nil {
			d.Addr = ap
			return c, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	d.Err = firstErr.Error()
	return nil, firstErr
}

func (p *Proxy) emit(d Decision) {
	if p.cfg.OnDecision != nil {
		d.Time = time.Now()
		p.cfg.OnDecision(d)
	}
}

// refuse answers a refusal and reports it.
func (p *Proxy) refuse(c net.Conn, d Decision, status int) {
	d.Allowed = false
	p.emit(d)
	what := strings.TrimSpace(d.Method + " " + d.Target)
	if what == "" {
		what = "request"
	}
	body := fmt.Sprintf("oceancode sandbox egress proxy: refused %s: rule %s: %s\n", what, d.Rule, d.Detail)
	fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nX-Oceancode-Egress: refused; rule=%s\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s",
		status, http.StatusText(status), d.Rule, len(body), body)
}

func (p *Proxy) badGateway(c net.Conn, d Decision, err error) {
	p.emit(d)
	body := fmt.Sprintf("oceancode sandbox egress proxy: %s %s: allowed, but the connection failed: %v\n", d.Method, d.Target, err)
	fmt.Fprintf(c, "HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
}

func (p *Proxy) connect(c net.Conn, br *bufio.Reader, req *http.Request) {
	d := Decision{Method: http.MethodConnect, Target: req.RequestURI}
	t, err := ParseTarget(req.RequestURI, 0)
	if err != nil {
		d.Rule, d.Detail = RefusedBadRequest, err.Error()
		p.refuse(c, d, http.StatusBadRequest)
		return
	}
	d.Target = t.String()
	ctx, cancel := context.WithTimeout(context.Background(), p.cfg.DialTimeout)
	defer cancel()
	addrs := p.check(ctx, &d, t)
	if !d.Allowed {
		p.refuse(c, d, http.StatusForbidden)
		return
	}
	up, err := p.dial(ctx, &d, addrs, t.Port)
	if err != nil {
		p.badGateway(c, d, err)
		return
	}
	if !p.track(up) {
		up.Close()
		return
	}
	defer p.untrack(up)
	p.emit(d)
	if _, err := io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		return
	}
	if n := br.Buffered(); n > 0 {
		b, _ := br.Peek(n)
		if _, err := up.Write(b); err != nil {
			return
		}
	}
	tunnel.Pipe(c, up)
}

// hopHeaders are removed from forwarded plain-HTTP requests and responses.
var hopHeaders = []string{
	"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization",
	"Te", "Trailer", "Upgrade",
}

func removeHopHeaders(h http.Header) {
	for _, f := range h.Values("Connection") {
		for _, name := range strings.Split(f, ",") {
			if name = strings.TrimSpace(name); name != "" {
				h.Del(name)
			}
		}
	}
	for _, k := range hopHeaders {
		h.Del(k)
	}
}

func (p *Proxy) forward(c net.Conn, br *bufio.Reader, req *http.Request) {
	d := Decision{Method: req.Method, Target: req.URL.Host}
	switch {
	case req.URL.Scheme == "https":
		d.Rule, d.Detail = RefusedBadRequest, "use CONNECT for https URLs"
		p.refuse(c, d, http.StatusBadRequest)
		return
	case req.URL.Scheme != "http" || req.URL.Host == "":
		d.Rule, d.Detail = RefusedBadRequest, "want CONNECT host:port or an absolute http:// URL (this is a proxy)"
		p.refuse(c, d, http.StatusBadRequest)
		return
	}
	t, err := ParseTarget(req.URL.Host, 80)
	if err != nil {
		d.Rule, d.Detail = RefusedBadRequest, err.Error()
		p.refuse(c, d, http.StatusBadRequest)
		return
	}
	d.Target = t.String()
	ctx, cancel := context.WithTimeout(context.Background(), p.cfg.DialTimeout)
	addrs := p.check(ctx, &d, t)
	if !d.Allowed {
		cancel()
		p.refuse(c, d, http.StatusForbidden)
		return
	}
	up, err := p.dial(ctx, &d, addrs, t.Port)
	cancel()
	if err != nil {
		p.badGateway(c, d, err)
		return
	}
	if !p.track(up) {
		up.Close()
		return
	}
	defer p.untrack(up)
	p.emit(d)

	// The origin sees the host that was checked, in origin form, and this
	// connection carries one request.
	removeHopHeaders(req.Header)
	if strings.EqualFold(req.Header.Get("Expect"), "100-continue") {
		req.Header.Del("Expect")
		io.WriteString(c, "HTTP/1.1 100 Continue\r\n\r\n")
	}
	req.Host = req.URL.Host
	req.RequestURI = ""
	req.Close = true
	if err := req.Write(up); err != nil {
		return
	}
	ubr := bufio.NewReader(up)
	for {
		resp, err := http.ReadResponse(ubr, req)
		if err != nil {
			body := "oceancode sandbox egress proxy: bad response from " + d.Target + ": " + err.Error() + "\n"
			fmt.Fprintf(c, "HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
			return
		}
		if resp.StatusCode >= 100 && resp.StatusCode < 200 {
			resp.Body.Close()
			continue // informational responses are not relayed
		}
		removeHopHeaders(resp.Header)
		resp.Close = true
		resp.Write(c)
		resp.Body.Close()
		return
	}
}
