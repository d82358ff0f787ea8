// Package providertest is a loopback model server for tests, benchmarks and
// demos. It speaks both wire formats for real — Anthropic Messages
// (POST …/messages) and OpenAI Chat Completions (POST …/chat/completions),
// each streaming (SSE) and non-streaming — and plays a scripted list of
// turns: text, tool calls, usage, or an injected failure (an HTTP error with
// Retry-After, a stall, a connection cut half-way). Every request is
// recorded (headers, raw body, and the conversation decoded back into
// agent/message) so a test can assert what the model was sent. Recorded
// headers keep the API key for assertions, but every printout of a Request
// (String, JSON) redacts it.
//
// New starts an httptest server on 127.0.0.1; Serve plays a Script on a
// listener the caller made (the CLI's hidden mock-model command); both
// refuse anything but loopback. RunConformance is the suite every provider
// must pass.
package providertest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/oceancode/oceancode/agent/message"
)

// APIKey is a key for tests to configure their providers with. Any key
// works; the server records whichever it is sent.
const APIKey = "sk-providertest-4f1c9e2b7a"

// RequestsPath is where a server lists its recorded requests as JSON (keys
// redacted), for harnesses that run it as a separate process.
const RequestsPath = "/_providertest/requests"

// Wire formats, as Request.Format reports them.
const (
	FormatAnthropic = "anthropic"
	FormatOpenAI    = "openai"
)

// Request is one recorded model request.
type Request struct {
	Method string
	Path   string
	// Header is as received, credentials included; print it with
	// RedactedHeader.
	Header http.Header
	Body   []byte
	// Format is FormatAnthropic or FormatOpenAI; "" for an unknown path.
	Format string
	Stream bool
	Model  string
	System string
	// Messages is the conversation decoded into the runtime's vocabulary.
	Messages []message.Message
	// Tools are the names of the tools offered.
	Tools []string
	// MaxTokens is max_tokens (or max_completion_tokens); 0 if absent.
	MaxTokens int
	// APIKey is the credential presented and AuthHeader the header that
	// carried it ("x-api-key", "Authorization", "api-key").
	APIKey     string
	AuthHeader string
	// Turn is the index of the turn played, -1 when none was left.
	Turn int
	// Interrupted is set when the client went away during a Delay.
	Interrupted bool
	// At is when the request arrived (benchmarks measure a process's time
	// to its first model request with it).
	At time.Time
}

var sensitive = []string{"Authorization", "X-Api-Key", "Api-Key", "Proxy-Authorization", "Cookie"}

// RedactedHeader returns a copy of the headers with credentials masked.
func (r Request) RedactedHeader() http.Header {
	h := r.Header.Clone()
	for _, k := range sensitive {
		if vs := h.Values(k); len(vs) > 0 {
			for i := range vs {
				vs[i] = "[redacted]"
			}
			h[http.CanonicalHeaderKey(k)] = vs
		}
	}
	return h
}

// String prints the request without its credentials.
func (r Request) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s (%s, stream=%t, %d bytes, %d messages, %d tools)\n", r.Method, r.Path, r.Format, r.Stream, len(r.Body), len(r.Messages), len(r.Tools))
	h := r.RedactedHeader()
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "%s: %s\n", k, strings.Join(h[k], ", "))
	}
	return b.String()
}

// MarshalJSON writes the request with credentials redacted and the body as
// JSON (or a string when it is not JSON).
func (r Request) MarshalJSON() ([]byte, error) {
	body := json.RawMessage(r.Body)
	if !json.Valid(body) {
		b, _ := json.Marshal(string(r.Body))
		body = b
	}
	return json.Marshal(struct {
		Method      string            `json:"method"`
		Path        string            `json:"path"`
		Header      http.Header       `json:"header"`
		Format      string            `json:"format"`
		Stream      bool              `json:"stream"`
		Model       string            `json:"model"`
		BodyBytes   int               `json:"body_bytes"`
		SystemBytes int               `json:"system_bytes"`
		Tools       []string          `json:"tools"`
		Messages    []message.Message `json:"messages"`
		Turn        int               `json:"turn"`
		Interrupted bool              `json:"interrupted,omitempty"`
		Body        json.RawMessage   `json:"body"`
	}{r.Method, r.Path, r.RedactedHeader(), r.Format, r.Stream, r.Model, len(r.Body), len(r.System),
		r.Tools, r.Messages, r.Turn, r.Interrupted, body})
}

// Server is a running loopback model server.
type Server struct {
	ts *httptest.Server
	h  *handler
}

// New starts a server on 127.0.0.1 that plays turns in order. With a non-nil
// t, the server is closed when the test ends, and a request it cannot answer
// (no turn left, a malformed body) fails the test.
func New(t testing.TB, turns ...Turn) *Server {
	return NewScript(t, Script{Turns: turns})
}

// NewScript is New for a whole Script (for Loop).
func NewScript(t testing.TB, s Script) *Server {
	h := newHandler(s, t)
	ts := httptest.NewUnstartedServer(h)
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		if t != nil {
			t.Fatalf("providertest: listen: %v", err)
		}
		panic(fmt.Sprintf("providertest: listen: %v", err))
	}
	ts.Listener = l
	ts.Start()
	srv := &Server{ts: ts, h: h}
	if t != nil {
		t.Cleanup(srv.Close)
	}
	return srv
}

// URL is the server's root, http://127.0.0.1:PORT. Requests are routed by
// path suffix, so any prefix works.
func (s *Server) URL() string { return s.ts.URL }

// AnthropicURL is the base URL for an Anthropic client (the SDK adds
// /v1/messages).
func (s *Server) AnthropicURL() string { return s.ts.URL }

// OpenAIURL is the base URL for an OpenAI client (the SDK adds
// /chat/completions).
func (s *Server) OpenAIURL() string { return s.ts.URL + "/v1" }

// Requests returns the requests recorded so far, in arrival order.
func (s *Server) Requests() []Request { return s.h.requests() }

// Add appends turns to the script.
func (s *Server) Add(turns ...Turn) {
	s.h.mu.Lock()
	s.h.script.Turns = append(s.h.script.Turns, turns...)
	s.h.mu.Unlock()
}

// Stalled receives once each time a turn's Delay starts (buffered), so a
// test can cancel a call while the server is holding it.
func (s *Server) Stalled() <-chan struct{} { return s.h.stalled }

// Close stops the server, ending any stall, and waits for its handlers.
func (s *Server) Close() {
	s.h.shutdown()
	s.ts.Close()
}

// Listen opens a listener on addr, which must be a loopback address
// ("127.0.0.1:0" picks a free port).
func Listen(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("providertest: listen %s: %w", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("providertest: listen %s: %w", addr, errNotLoopback)
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("providertest: %w", err)
	}
	return l, nil
}

var errNotLoopback = errors.New("not a loopback address")

// Serve plays s on l until ctx ends (then it returns nil) or the listener
// fails. l must be bound to a loopback address. Recorded requests are
// listed at RequestsPath.
func Serve(ctx context.Context, l net.Listener, s Script) error {
	if a, ok := l.Addr().(*net.TCPAddr); !ok || !a.IP.IsLoopback() {
		return fmt.Errorf("providertest: serve %s: %w", l.Addr(), errNotLoopback)
	}
	if err := s.Validate(); err != nil {
		return fmt.Errorf("providertest: serve: %w", err)
	}
	h := newHandler(s, nil)
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	stop := context.AfterFunc(ctx, func() {
		h.shutdown()
		srv.Close()
	})
	defer stop()
	err := srv.Serve(l)
	if ctx.Err() != nil {
		return nil
	}
	return fmt.Errorf("providertest: serve: %w", err)
}

type handler struct {
	t       testing.TB
	mu      sync.Mutex
	script  Script
	next    int
	reqs    []Request
	stalled chan struct{}
	done    chan struct{}
	once    sync.Once
}

func newHandler(s Script, t testing.TB) *handler {
	return &handler{t: t, script: s, stalled: make(chan struct{}, 64), done: make(chan struct{})}
}

func (h *handler) shutdown() { h.once.Do(func() { close(h.done) }) }

func (h *handler) requests() []Request {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Request(nil), h.reqs...)
}

func (h *handler) fail(format string, args ...any) {
	if h.t != nil {
		h.t.Errorf("providertest: "+format, args...)
	}
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && r.URL.Path == RequestsPath {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(h.requests())
		return
	}
	var format string
	switch {
	case strings.HasSuffix(r.URL.Path, "/messages"):
		format = FormatAnthropic
	case strings.HasSuffix(r.URL.Path, "/chat/completions"):
		format = FormatOpenAI
	default:
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodPost {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		http.Error(w, "read body", http.StatusBadRequest)
		return
	}
	rec := Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body, Format: format, Turn: -1, At: time.Now()}
	rec.APIKey, rec.AuthHeader = credential(r.Header)
	var decodeErr error
	if format == FormatAnthropic {
		decodeErr = decodeAnthropic(body, &rec)
	} else {
		decodeErr = decodeOpenAI(body, &rec)
	}

	h.mu.Lock()
	var turn Turn
	idx := -1
	if decodeErr == nil {
		if h.next >= len(h.script.Turns) && h.script.Loop && len(h.script.Turns) > 0 {
			h.next = 0
		}
		if h.next < len(h.script.Turns) {
			idx = h.next
			turn = h.script.Turns[idx]
			h.next++
		}
	}
	rec.Turn = idx
	n := len(h.reqs)
	h.reqs = append(h.reqs, rec)
	h.mu.Unlock()

	switch {
	case decodeErr != nil:
		h.fail("request %d (%s %s): %v", n, r.Method, r.URL.Path, decodeErr)
		writeError(w, format, http.StatusBadRequest, "providertest: "+decodeErr.Error(), 0, "")
		return
	case idx < 0:
		h.fail("request %d (%s %s): no scripted turn left", n, r.Method, r.URL.Path)
		writeError(w, format, http.StatusBadRequest, fmt.Sprintf("providertest: no scripted turn left for request %d", n), 0, "")
		return
	}
	if turn.Status >= 400 {
		msg := turn.Error
		if msg == "" {
			msg = fmt.Sprintf("providertest: scripted %d", turn.Status)
		}
		msg = strings.ReplaceAll(msg, "{{api_key}}", rec.APIKey)
		writeError(w, format, turn.Status, msg, time.Duration(turn.RetryAfter), turn.ErrorCode)
		return
	}
	p := &player{w: w, r: r, h: h, turn: turn, turnIdx: idx, reqIdx: n, rec: &rec}
	if format == FormatAnthropic {
		p.anthropic()
	} else {
		p.openai()
	}
}

// credential finds the API key a client presented.
func credential(h http.Header) (key, header string) {
	if v := h.Get("X-Api-Key"); v != "" {
		return v, "x-api-key"
	}
	if v := h.Get("Authorization"); v != "" {
		if k, ok := strings.CutPrefix(v, "Bearer "); ok {
			return k, "Authorization"
		}
		return v, "Authorization"
	}
	if v := h.Get("Api-Key"); v != "" {
		return v, "api-key"
	}
	return "", ""
}

// player renders one turn onto one response.
type player struct {
	w       http.ResponseWriter
	r       *http.Request
	h       *handler
	turn    Turn
	turnIdx int
	reqIdx  int
	rec     *Request
	events  [][]byte // streamed: the SSE frames, in order
}

// stall waits out the turn's Delay; false means the client (or the server)
// went away first.
func (p *player) stall() bool {
	if p.turn.Delay <= 0 {
		return true
	}
	select {
	case p.h.stalled <- struct{}{}:
	default:
	}
	t := time.NewTimer(time.Duration(p.turn.Delay))
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-p.r.Context().Done():
	case <-p.h.done:
	}
	p.h.mu.Lock()
	if p.reqIdx < len(p.h.reqs) {
		p.h.reqs[p.reqIdx].Interrupted = true
	}
	p.h.mu.Unlock()
	return false
}

// usage is the turn's usage or an estimate.
func (p *player) usage() message.Usage {
	if p.turn.Usage != nil {
		return *p.turn.Usage
	}
	out := len(p.turn.Text)
	for _, c := range p.turn.ToolCalls {
		out += len(c.Name) + len(c.Input)
	}
	return message.Usage{InputTokens: int64(len(p.rec.Body)/4 + 1), OutputTokens: int64(out/4 + 1)}
}

func (p *player) stopReason() string {
	if p.turn.StopReason != "" {
		return p.turn.StopReason
	}
	if len(p.turn.ToolCalls) > 0 {
		return "tool_use"
	}
	return "end_turn"
}

func (p *player) input(c ToolCall) []byte {
	if len(c.Input) == 0 {
		return []byte("{}")
	}
	var b bytes.Buffer
	if err := json.Compact(&b, c.Input); err != nil {
		return c.Input
	}
	return b.Bytes()
}

// stream writes the SSE frames; firstAfter is how many frames go out before
// a Delay stall. A Cut turn aborts the connection after half of them; a
// Truncate turn ends the response there.
func (p *player) stream(firstAfter int) {
	w := p.w
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	cut := len(p.events)
	if p.turn.Cut || p.turn.Truncate {
		cut = len(p.events) / 2
	}
	for i, ev := range p.events {
		if i == cut {
			if fl != nil {
				fl.Flush()
			}
			if p.turn.Truncate {
				return
			}
			panic(http.ErrAbortHandler)
		}
		if i == firstAfter {
			if fl != nil {
				fl.Flush()
			}
			if !p.stall() {
				return
			}
		}
		if _, err := w.Write(ev); err != nil {
			return
		}
	}
	if fl != nil {
		fl.Flush()
	}
}

// whole writes a non-streamed JSON body, after a Delay; a Cut turn sends a
// Content-Length for all of it and then aborts half-way, a Truncate turn
// sends half of it as a complete response.
func (p *player) whole(body []byte) {
	if !p.stall() {
		return
	}
	w := p.w
	w.Header().Set("Content-Type", "application/json")
	if p.turn.Cut {
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body[:len(body)/2])
		if fl, ok := w.(http.Flusher); ok {
			fl.Flush()
		}
		panic(http.ErrAbortHandler)
	}
	w.WriteHeader(http.StatusOK)
	if p.turn.Truncate {
		body = body[:len(body)/2]
	}
	_, _ = w.Write(body)
}

func writeError(w http.ResponseWriter, format string, status int, msg string, retryAfter time.Duration, code string) {
	if retryAfter > 0 || status == http.StatusTooManyRequests {
		secs := int64((retryAfter + time.Second - 1) / time.Second)
		w.Header().Set("Retry-After", fmt.Sprint(secs))
		w.Header().Set("Retry-After-Ms", fmt.Sprint(retryAfter.Milliseconds()))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	var body any
	if format == FormatAnthropic {
		body = map[string]any{"type": "error", "error": map[string]any{"type": anthropicErrorType(status), "message": msg}}
	} else {
		var c any
		if code != "" {
			c = code
		}
		body = map[string]any{"error": map[string]any{"message": msg, "type": openAIErrorType(status), "param": nil, "code": c}}
	}
	_ = json.NewEncoder(w).Encode(body)
}

func anthropicErrorType(status int) string {
	switch {
	case status == 401:
		return "authentication_error"
	case status == 403:
		return "permission_error"
	case status == 404:
		return "not_found_error"
	case status == 429:
		return "rate_limit_error"
	case status == 529:
		return "overloaded_error"
	case status >= 500:
		return "api_error"
	}
	return "invalid_request_error"
}

func openAIErrorType(status int) string {
	switch {
	case status == 401:
		return "invalid_api_key"
	case status == 429:
		return "rate_limit_exceeded"
	case status >= 500:
		return "server_error"
	}
	return "invalid_request_error"
}

// words splits text into stream deltas: each word with the space after it.
func words(s string) []string {
	var out []string
	for len(s) > 0 {
		i := strings.IndexByte(s, ' ')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// fragments splits b into up to three pieces, as servers split tool input.
func fragments(b []byte) []string {
	s := string(b)
	if len(s) < 6 {
		return []string{s}
	}
	a, c := len(s)/3, 2*len(s)/3
	for a < len(s) && !utf8.RuneStart(s[a]) {
		a++
	}
	for c < len(s) && !utf8.RuneStart(s[c]) {
		c++
	}
	return []string{s[:a], s[a:c], s[c:]}
}
