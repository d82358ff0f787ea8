// Package client is the Go client of the HTTP API of `oceancode serve`
// (docs/server.md): a typed method for every route, and an event stream
// that reads the SSE, resumes with Last-Event-ID after a dropped
// connection and surfaces what replay cannot fill (resync, lagged). Errors
// map back to the engine's own (a 409 already_answered is a
// *engineapi.AnsweredError, a 404 no_ask wraps engineapi.ErrNoAsk, …), so a
// client of this package handles them as it would in process. The pager's
// Remote engine (agent/pager) is built on it.
//
// It speaks the engine's vocabulary (agent/engineapi), not the engine: a
// client links none of the runner, the tools, the gate, the sandbox or the
// shell guard (deps_test.go at the module root holds it to that).
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/oceancode/oceancode/agent/engineapi"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/session"
)

// Client talks to one server. Its methods are safe for concurrent use.
type Client struct {
	base  *url.URL
	token string
	// HTTP is the transport (http.DefaultClient's settings, without a
	// timeout: event streams are long).
	HTTP *http.Client
	// Label names this client in the answers it gives (the resolved
	// event's "by" is "http:LABEL").
	Label string
	// Retry is how long a dropped event stream keeps trying to reconnect
	// (0: 30 s).
	Retry time.Duration
}

// New returns a client of the server at base (http://127.0.0.1:4096) with
// the bearer token.
func New(base, token string) (*Client, error) {
	u, err := url.Parse(strings.TrimSuffix(base, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("client: server address %q: want http://HOST:PORT", base)
	}
	if token == "" {
		return nil, errors.New("client: no token: the server requires one (serve prints where its token file is)")
	}
	return &Client{base: u, token: token, HTTP: &http.Client{}}, nil
}

// Errors of the server's checks.
var (
	// ErrUnauthorized: the token was refused (401).
	ErrUnauthorized = errors.New("the server refused the token")
	// ErrForbidden: the request's Origin or Host was refused (403
	// origin_refused, host_refused).
	ErrForbidden = errors.New("the server refused the request's origin or host")
)

// Error is an error answer of the server. Unwrap gives the engine's error
// it stands for, where there is one (engineapi.ErrNoAsk, ErrDigest,
// ErrAnswer, ErrClosed, ErrUnsupported) or ErrUnauthorized / ErrForbidden.
type Error struct {
	Op      string // "POST /api/session/ID/message"
	Status  int
	Code    string
	Message string
	wrapped error
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: %d %s: %s", e.Op, e.Status, e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.wrapped }

// errorBody is the server's error JSON.
type errorBody struct {
	Error string      `json:"error"`
	Code  string      `json:"code"`
	First *answerBody `json:"first"`
	Files []string    `json:"files"` // changed_since (checkpoint.go)
}

type answerBody struct {
	ID       string    `json:"id"`
	Answer   string    `json:"answer"`
	Feedback string    `json:"feedback"`
	By       string    `json:"by"`
	At       time.Time `json:"at"`
}

// sentinels maps error codes to the engine's errors.
var sentinels = map[string]error{
	"no_ask":          engineapi.ErrNoAsk,
	"digest_mismatch": engineapi.ErrDigest,
	"bad_answer":      engineapi.ErrAnswer,
	"session_closed":  engineapi.ErrClosed,
	"unsupported":     engineapi.ErrUnsupported,
	"unauthorized":    ErrUnauthorized,
	"origin_refused":  ErrForbidden,
	"host_refused":    ErrForbidden,
}

// errorOf turns an error answer into an error.
func errorOf(op string, resp *http.Response) error {
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var b errorBody
	if json.Unmarshal(data, &b) != nil || b.Code == "" {
		b.Code, b.Error = "unknown", strings.TrimSpace(string(data))
	}
	if b.Code == "already_answered" && b.First != nil {
		return &engineapi.AnsweredError{First: engineapi.Reply{Answer: engineapi.Answer(b.First.Answer), Feedback: b.First.Feedback, By: b.First.By}, At: b.First.At}
	}
	if b.Code == "changed_since" {
		return &engineapi.ConflictError{Op: op[strings.LastIndexByte(op, '/')+1:], Files: b.Files}
	}
	return &Error{Op: op, Status: resp.StatusCode, Code: b.Code, Message: b.Error, wrapped: sentinels[b.Code]}
}

// request builds an authorised request for path (under the base).
func (c *Client) request(ctx context.Context, method, path string, body any) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("%s %s: encode the body: %w", method, path, err)
		}
		rd = bytes.NewReader(b)
	}
	u := *c.base
	u.Path += path
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.Label != "" {
		req.Header.Set("X-OceanCode-Client", c.Label)
	}
	return req, nil
}

// do sends a request and decodes a 2xx answer into out (nil: dropped).
func (c *Client) do(ctx context.Context, method, path string, body, out any) error {
	op := method + " " + path
	req, err := c.request(ctx, method, path, body)
	if err != nil {
		return err
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return errorOf(op, resp)
	}
	if out == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil
	}
	if raw, ok := out.(*json.RawMessage); ok {
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return fmt.Errorf("%s: read the answer: %w", op, err)
		}
		*raw = b
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("%s: decode the answer: %w", op, err)
	}
	return nil
}

func sessionPath(id string, rest ...string) string {
	return "/api/session/" + url.PathEscape(id) + strings.Join(rest, "")
}

// CreateRequest is POST /api/session's body.
type CreateRequest struct {
	Agent          string                         `json:"agent,omitempty"`
	Model          string                         `json:"model,omitempty"`
	PermissionMode string                         `json:"permission_mode,omitempty"`
	MCPServers     map[string]engineapi.MCPServer `json:"mcp_servers,omitempty"`
}

// Create creates a session and returns its state (State.ID is its id).
func (c *Client) Create(ctx context.Context, r CreateRequest) (engineapi.State, error) {
	var b engineapi.StateBody
	err := c.do(ctx, "POST", "/api/session", r, &b)
	return b.State(), err
}

// State is GET /api/session/{id}.
func (c *Client) State(ctx context.Context, id string) (engineapi.State, error) {
	var b engineapi.StateBody
	err := c.do(ctx, "GET", sessionPath(id), nil, &b)
	return b.State(), err
}

// Send queues a prompt (POST …/message); it returns the newest event's id
// when the prompt was queued.
func (c *Client) Send(ctx context.Context, id, text string) (int64, error) {
	var b struct {
		LastSeq int64 `json:"last_seq"`
	}
	err := c.do(ctx, "POST", sessionPath(id, "/message"), map[string]string{"text": text}, &b)
	return b.LastSeq, err
}

// Mode is GET …/permission/mode.
func (c *Client) Mode(ctx context.Context, id string) (engineapi.ModeResult, error) {
	var b engineapi.ModeBody
	err := c.do(ctx, "GET", sessionPath(id, "/permission/mode"), nil, &b)
	return b.Result(), err
}

// SetMode is POST …/permission/mode.
func (c *Client) SetMode(ctx context.Context, id string, m permission.Mode) (engineapi.ModeResult, error) {
	var b engineapi.ModeBody
	err := c.do(ctx, "POST", sessionPath(id, "/permission/mode"), map[string]string{"mode": string(m)}, &b)
	return b.Result(), err
}

// SetModel is POST …/model.
func (c *Client) SetModel(ctx context.Context, id, model string) (engineapi.State, error) {
	var b engineapi.StateBody
	err := c.do(ctx, "POST", sessionPath(id, "/model"), map[string]string{"model": model}, &b)
	return b.State(), err
}

// SetAgent is POST …/agent.
func (c *Client) SetAgent(ctx context.Context, id, name string) (engineapi.State, error) {
	var b engineapi.StateBody
	err := c.do(ctx, "POST", sessionPath(id, "/agent"), map[string]string{"agent": name}, &b)
	return b.State(), err
}

// Pending is GET …/permission/pending.
func (c *Client) Pending(ctx context.Context, id string) ([]engineapi.PendingAsk, error) {
	var b struct {
		Pending []engineapi.PendingAsk `json:"pending"`
	}
	err := c.do(ctx, "GET", sessionPath(id, "/permission/pending"), nil, &b)
	return b.Pending, err
}

// Answer is POST …/permission/{ask}: nil when this answer settled the ask;
// *engineapi.AnsweredError when another came first; errors wrapping
// engineapi.ErrNoAsk, ErrDigest or ErrAnswer. Reply.By is not sent (the
// server names the client: Label).
func (c *Client) Answer(ctx context.Context, id, askID string, r engineapi.Reply) error {
	body := map[string]string{"answer": string(r.Answer)}
	if r.Feedback != "" {
		body["feedback"] = r.Feedback
	}
	if r.Digest != "" {
		body["input_digest"] = r.Digest
	}
	return c.do(ctx, "POST", sessionPath(id, "/permission/", url.PathEscape(askID)), body, nil)
}

// Abort is POST …/abort.
func (c *Client) Abort(ctx context.Context, id string) error {
	return c.do(ctx, "POST", sessionPath(id, "/abort"), nil, nil)
}

// Compact is POST …/compact: the conversation compacted now, focus (if
// any) kept in particular by the summary.
func (c *Client) Compact(ctx context.Context, id, focus string) (engineapi.Compaction, error) {
	var b engineapi.Compaction
	err := c.do(ctx, "POST", sessionPath(id, "/compact"), map[string]string{"focus": focus}, &b)
	return b, err
}

// MCP is GET …/mcp: the session's MCP servers.
func (c *Client) MCP(ctx context.Context, id string) ([]engineapi.MCPStatus, error) {
	var b engineapi.MCPListBody
	err := c.do(ctx, "GET", sessionPath(id, "/mcp"), nil, &b)
	var out []engineapi.MCPStatus
	for _, s := range b.Servers {
		out = append(out, s.Status())
	}
	return out, err
}

// AddMCP is POST /mcp: srv (its Name or name, its command or url) is added
// to the session.
func (c *Client) AddMCP(ctx context.Context, id, name string, srv engineapi.MCPServer) (engineapi.MCPStatus, error) {
	if name == "" {
		name = srv.Name
	}
	body := map[string]any{"session": id, "name": name}
	if srv.Command != "" {
		body["command"] = srv.Command
	}
	if len(srv.Args) > 0 {
		body["args"] = srv.Args
	}
	if len(srv.Env) > 0 {
		body["env"] = srv.Env
	}
	if srv.URL != "" {
		body["url"] = srv.URL
	}
	if len(srv.Headers) > 0 {
		body["headers"] = srv.Headers
	}
	var b engineapi.MCPStatusBody
	err := c.do(ctx, "POST", "/mcp", body, &b)
	return b.Status(), err
}

// TrustMCP is POST …/mcp/{name}/trust: the server waiting for trust is
// trusted (the user's trust store) and started.
func (c *Client) TrustMCP(ctx context.Context, id, name string) (engineapi.MCPStatus, error) {
	var b engineapi.MCPStatusBody
	err := c.do(ctx, "POST", sessionPath(id, "/mcp/", url.PathEscape(name), "/trust"), nil, &b)
	return b.Status(), err
}

// Sessions is GET /api/session: the sessions open on the server and the
// stored ones.
func (c *Client) Sessions(ctx context.Context) (open []engineapi.State, stored []session.Session, err error) {
	var b engineapi.SessionsBody[session.Session]
	err = c.do(ctx, "GET", "/api/session", nil, &b)
	for _, s := range b.Open {
		open = append(open, s.State())
	}
	return open, b.Stored, err
}

// Inspect is GET /api/config/inspect: the `oceancode inspect --json`
// document.
func (c *Client) Inspect(ctx context.Context) (json.RawMessage, error) {
	var raw json.RawMessage
	err := c.do(ctx, "GET", "/api/config/inspect", nil, &raw)
	return raw, err
}

// OpenAPI is GET /api/openapi.json.
func (c *Client) OpenAPI(ctx context.Context) ([]byte, error) {
	var raw json.RawMessage
	err := c.do(ctx, "GET", "/api/openapi.json", nil, &raw)
	return raw, err
}
