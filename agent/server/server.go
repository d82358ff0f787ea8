// Package server is the HTTP API of `oceancode serve`: JSON over HTTP and
// Server-Sent Events over the sessions of the engine (agent/runner). It is a
// plain http.Handler on the standard library's ServeMux; the front end (the
// CLI) hands it the hooks that need the configuration layers, which this
// package never imports: NewSession builds a session from a request,
// Inspect renders the `inspect --json` document, Resumable lists the stored
// sessions a restart must take up again.
//
// Every request passes two checks, in this order, before it reaches a
// route (docs/server.md):
//  1. a request carrying an Origin header (a browser's), or whose Host is
//     not the bound address or a loopback name with its port, is refused
//     403 — with or without a token, so a web page learns nothing;
//  2. the bearer token (Authorization: Bearer TOKEN), compared in constant
//     time, else 401 with WWW-Authenticate.
//
// That holds for every path, /api/openapi.json and unknown paths included.
package server

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/oceancode/oceancode/agent/mcp"
	"github.com/oceancode/oceancode/agent/runner"
	"github.com/oceancode/oceancode/agent/session"
)

// CreateRequest is the body of POST /api/session.
type CreateRequest struct {
	Agent          string `json:"agent,omitempty"`
	Model          string `json:"model,omitempty"`
	PermissionMode string `json:"permission_mode,omitempty"`
	// MCPServers are MCP servers the client passes for this session (an
	// IDE's own servers), in the shape of a config "mcp.servers" entry.
	// Their origin is client: they start without a trust prompt and their
	// calls run without asking where no mcp rule decides; the requirements'
	// allow-list applies as to every server. They are not stored: a session
	// taken up again after a restart runs without them.
	MCPServers map[string]mcp.Server `json:"mcp_servers,omitempty"`
	// Resume is set by the server itself (never by a client: it is not
	// read from the body) when it takes up a stored session on start.
	Resume string `json:"-"`
}

// Config is what a Server needs.
type Config struct {
	// Token is the bearer token every request must present (required).
	Token string
	// TokenHint says where the token is (the file), for the 401 message.
	TokenHint string
	// Addr is the address the listener is bound to (host:port, the real
	// port). Accepted Host headers: Addr itself, and localhost, 127.0.0.1
	// and [::1] with its port, plus Hosts.
	Addr string
	// Hosts are further accepted Host header values (host:port), e.g. the
	// machine's addresses for a non-loopback bind.
	Hosts []string
	// NewSession creates (or, with Resume, takes up) a session. Its error
	// may be an *Error to choose the status (400 for a bad request);
	// others answer 500.
	NewSession func(ctx context.Context, r CreateRequest) (*runner.Session, error)
	// Inspect returns the `oceancode inspect --json` document.
	Inspect func() ([]byte, error)
	// Resumable lists the stored sessions to take up on start (those with
	// pending asks); nil: none.
	Resumable func(ctx context.Context) ([]string, error)
	// Sessions lists the stored sessions (GET /api/session's "stored", the
	// pager's /sessions); nil: none.
	Sessions func(ctx context.Context) ([]session.Session, error)
	// MaxSessions is how many sessions may be open at once (0: 64); one
	// more is refused 429 with Retry-After.
	MaxSessions int
	// MaxStreams is how many event streams may be open at once over all
	// sessions (0: 256); one more is refused 503 with Retry-After.
	MaxStreams int
	// MaxQueued is how many prompts may wait in one session (0: 32).
	MaxQueued int
	// MaxBody is the largest request body in bytes (0: 1 MiB); larger is 413.
	MaxBody int64
	// Heartbeat is the interval of the SSE comment that keeps idle streams
	// alive through proxies (0: 15 s; never more than 15 s).
	Heartbeat time.Duration
}

// Defaults of Config's limits.
const (
	DefaultMaxSessions = 64
	DefaultMaxStreams  = 256
	DefaultMaxQueued   = 32
	DefaultMaxBody     = 1 << 20
	MaxHeartbeat       = 15 * time.Second
	// retryAfter is the Retry-After, in seconds, of an overload answer.
	retryAfter = 5
)

// Server serves the HTTP API over its sessions.
type Server struct {
	cfg     Config
	token   [32]byte
	hosts   map[string]bool
	mux     *http.ServeMux
	mu      sync.Mutex
	closed  bool
	byID    map[string]*runner.Session
	order   []string // creation order, for Close
	streams int
	// creating counts sessions being created (they hold a slot).
	creating int
}

// New checks cfg and returns a Server; Recover takes up stored sessions.
func New(cfg Config) (*Server, error) {
	if cfg.Token == "" {
		return nil, errors.New("new server: no token: every route requires one")
	}
	if cfg.NewSession == nil || cfg.Inspect == nil {
		return nil, errors.New("new server: NewSession and Inspect are required")
	}
	_, port, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("new server: address %q: %w", cfg.Addr, err)
	}
	if cfg.MaxSessions <= 0 {
		cfg.MaxSessions = DefaultMaxSessions
	}
	if cfg.MaxStreams <= 0 {
		cfg.MaxStreams = DefaultMaxStreams
	}
	if cfg.MaxQueued <= 0 {
		cfg.MaxQueued = DefaultMaxQueued
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	if cfg.Heartbeat <= 0 || cfg.Heartbeat > MaxHeartbeat {
		cfg.Heartbeat = MaxHeartbeat
	}
	s := &Server{cfg: cfg, token: sha256.Sum256([]byte(cfg.Token)), byID: map[string]*runner.Session{}, hosts: map[string]bool{}}
	for _, h := range append([]string{cfg.Addr, "localhost:" + port, "127.0.0.1:" + port, "[::1]:" + port}, cfg.Hosts...) {
		s.hosts[strings.ToLower(h)] = true
	}
	s.mux = http.NewServeMux()
	for _, rt := range s.routes() {
		s.mux.HandleFunc(rt.Method+" "+rt.Pattern, rt.handle)
	}
	s.mux.HandleFunc("/", s.notFound)
	return s, nil
}

// route is one entry of the route table: the mux and the OpenAPI test
// both walk it.
type route struct {
	Method, Pattern string
	handle          http.HandlerFunc
}

// Routes lists the served routes as "METHOD PATTERN" (ServeMux patterns).
func (s *Server) Routes() []string {
	var out []string
	for _, r := range s.routes() {
		out = append(out, r.Method+" "+r.Pattern)
	}
	return out
}

func (s *Server) routes() []route {
	return []route{
		{"POST", "/api/session", s.create},
		{"GET", "/api/session", s.list},
		{"GET", "/api/session/{id}", s.withSession(s.state)},
		{"POST", "/api/session/{id}/model", s.withSession(s.switcher("model"))},
		{"POST", "/api/session/{id}/agent", s.withSession(s.switcher("agent"))},
		{"GET", "/api/session/{id}/mcp", s.withSession(s.mcpList)},
		{"POST", "/api/session/{id}/mcp/{name}/trust", s.withSession(s.mcpTrust)},
		{"POST", "/api/session/{id}/message", s.withSession(s.message)},
		{"GET", "/api/session/{id}/events", s.withSession(s.events)},
		{"GET", "/api/session/{id}/permission/mode", s.withSession(s.getMode)},
		{"POST", "/api/session/{id}/permission/mode", s.withSession(s.setMode)},
		{"GET", "/api/session/{id}/permission/pending", s.withSession(s.pending)},
		{"POST", "/api/session/{id}/permission/{req}", s.withSession(s.answer)},
		{"POST", "/api/session/{id}/abort", s.withSession(s.abort)},
		{"POST", "/api/session/{id}/compact", s.withSession(s.compact)},
		{"GET", "/api/session/{id}/checkpoints", s.withSession(s.checkpoints)},
		{"POST", "/api/session/{id}/undo", s.withSession(s.undoer(false))},
		{"POST", "/api/session/{id}/redo", s.withSession(s.undoer(true))},
		{"GET", "/api/config/inspect", s.inspect},
		{"GET", "/api/openapi.json", s.openapi},
		{"POST", "/mcp", s.mcp},
	}
}

// ServeHTTP checks Origin and Host, then the token, then routes.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if o := r.Header.Get("Origin"); o != "" {
		writeError(w, http.StatusForbidden, "origin_refused", fmt.Sprintf("requests from a browser (Origin %s) are refused: this API is for local programs; call it without an Origin header", o))
		return
	}
	if !s.hosts[strings.ToLower(r.Host)] {
		writeError(w, http.StatusForbidden, "host_refused", fmt.Sprintf("Host %q is not this server's address: use http://%s/ (a foreign Host is refused against DNS rebinding)", r.Host, s.cfg.Addr))
		return
	}
	if !s.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="oceancode"`)
		msg := "missing or wrong bearer token: send Authorization: Bearer TOKEN"
		if s.cfg.TokenHint != "" {
			msg += " (the token is in " + s.cfg.TokenHint + ")"
		}
		writeError(w, http.StatusUnauthorized, "unauthorized", msg)
		return
	}
	s.mux.ServeHTTP(w, r)
}

func (s *Server) authorized(r *http.Request) bool {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	got := sha256.Sum256([]byte(strings.TrimSpace(tok)))
	return subtle.ConstantTimeCompare(got[:], s.token[:]) == 1
}

// notFound answers paths no route serves: 405 with Allow when the path
// exists under another method, else 404; both as JSON errors.
func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	var allow []string
	for _, m := range []string{"GET", "POST"} {
		if m == r.Method {
			continue
		}
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pat := s.mux.Handler(probe); pat != "/" && pat != "" {
			allow = append(allow, m)
		}
	}
	if len(allow) > 0 {
		w.Header().Set("Allow", strings.Join(allow, ", "))
		writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", fmt.Sprintf("%s %s: use %s (routes: GET /api/openapi.json)", r.Method, r.URL.Path, strings.Join(allow, " or ")))
		return
	}
	writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("no route %s %s (routes: GET /api/openapi.json)", r.Method, r.URL.Path))
}

// Error is an error with the HTTP status and code it answers with.
type Error struct {
	Status int
	Code   string
	Err    error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Errorf wraps err to answer with status and code.
func Errorf(status int, code string, err error) error {
	return &Error{Status: status, Code: code, Err: err}
}

// errorBody is every error's JSON.
type errorBody struct {
	Error string `json:"error"`
	Code  string `json:"code"`
	// First is the answer that settled an ask first (409 already_answered).
	First *answerBody `json:"first,omitempty"`
	// Files are the files changed since (409 changed_since of undo, redo).
	Files []string `json:"files,omitempty"`
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, errorBody{Error: msg, Code: code})
}

// overloaded answers 429 or 503 with Retry-After.
func overloaded(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Retry-After", strconv.Itoa(retryAfter))
	writeError(w, status, code, msg)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b, _ = json.Marshal(errorBody{Error: "encode the answer: " + err.Error(), Code: "internal"})
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// decode reads a JSON body strictly: unknown fields and trailing data are
// 400, a body over the limit 413. It answers the error itself.
func (s *Server) decode(w http.ResponseWriter, r *http.Request, v any) bool {
	return s.decodeBody(w, r, v, false)
}

// decodeBody is decode; with emptyOK an empty body is the empty object.
func (s *Server) decodeBody(w http.ResponseWriter, r *http.Request, v any, emptyOK bool) bool {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, s.cfg.MaxBody))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if errors.Is(err, io.EOF) {
		if emptyOK {
			return true
		}
		err = errors.New("empty: send a JSON object")
	}
	if err == nil && dec.More() {
		err = errors.New("more than one JSON value")
	}
	if err == nil {
		return true
	}
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		writeError(w, http.StatusRequestEntityTooLarge, "body_too_large", fmt.Sprintf("request body over %d bytes: send less", s.cfg.MaxBody))
		return false
	}
	writeError(w, http.StatusBadRequest, "bad_body", fmt.Sprintf("request body: %v (the body schemas are in GET /api/openapi.json)", err))
	return false
}

// withSession resolves {id} to an open session, else 404.
func (s *Server) withSession(h func(http.ResponseWriter, *http.Request, string, *runner.Session)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		s.mu.Lock()
		sess := s.byID[id]
		s.mu.Unlock()
		if sess == nil {
			writeError(w, http.StatusNotFound, "no_session", fmt.Sprintf("no session %q on this server: create one with POST /api/session", id))
			return
		}
		h(w, r, id, sess)
	}
}

// reserve takes a session slot, false when none is free.
func (s *Server) reserve() (bool, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return false, "the server is shutting down"
	case len(s.byID)+s.creating >= s.cfg.MaxSessions:
		return false, fmt.Sprintf("too many sessions open (%d): retry later", s.cfg.MaxSessions)
	}
	s.creating++
	return true, ""
}

// add registers a created session in its reserved slot; false (and the
// session closed) when the server closed meanwhile.
func (s *Server) add(sess *runner.Session) (string, error) {
	id := sess.ID()
	if id == "" {
		if err := sess.Err(); err != nil {
			s.unreserve()
			sess.Close()
			return "", fmt.Errorf("the session could not be recorded: %w", err)
		}
		// Not recorded (no store): the server names it.
		id = newMemID()
	}
	s.mu.Lock()
	s.creating--
	closed := s.closed
	if !closed {
		s.byID[id] = sess
		s.order = append(s.order, id)
	}
	s.mu.Unlock()
	if closed {
		sess.Close()
		return "", errShutdown
	}
	return id, nil
}

var errShutdown = errors.New("the server is shutting down")

// newMemID names a session that has no record.
func newMemID() string {
	b := make([]byte, 12)
	rand.Read(b)
	return "mem_" + hex.EncodeToString(b)
}

func (s *Server) unreserve() {
	s.mu.Lock()
	s.creating--
	s.mu.Unlock()
}

// Recover takes up the stored sessions Resumable lists (pending asks
// survive a restart: they are offered again). It returns the ids taken up
// and the errors of those that could not be, joined.
func (s *Server) Recover(ctx context.Context) ([]string, error) {
	if s.cfg.Resumable == nil {
		return nil, nil
	}
	ids, err := s.cfg.Resumable(ctx)
	if err != nil {
		return nil, fmt.Errorf("recover sessions: %w", err)
	}
	sort.Strings(ids)
	var got []string
	var errs []error
	for _, id := range ids {
		if ok, why := s.reserve(); !ok {
			errs = append(errs, fmt.Errorf("resume session %s: %s", id, why))
			continue
		}
		sess, err := s.cfg.NewSession(ctx, CreateRequest{Resume: id})
		if err != nil {
			s.unreserve()
			errs = append(errs, fmt.Errorf("resume session %s: %w", id, err))
			continue
		}
		rid, err := s.add(sess)
		if err != nil {
			errs = append(errs, fmt.Errorf("resume session %s: %w", id, err))
			continue
		}
		got = append(got, rid)
	}
	return got, errors.Join(errs...)
}

// Close closes every session (their pending asks stay stored) and refuses
// new ones; open event streams end. It returns the sessions' errors.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	var all []*runner.Session
	for _, id := range s.order {
		if sess := s.byID[id]; sess != nil {
			all = append(all, sess)
		}
	}
	s.byID = map[string]*runner.Session{}
	s.order = nil
	s.mu.Unlock()
	var errs []error
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, sess := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := sess.Close(); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Sessions is how many sessions are open.
func (s *Server) Sessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.byID)
}
