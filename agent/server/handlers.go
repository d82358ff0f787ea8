package server

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/engineapi"
	"github.com/oceancode/oceancode/agent/mcp"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/runner"
	"github.com/oceancode/oceancode/agent/session"
)

// The API's answers (ModeBody, StateBody, MCPStatusBody, MCPListBody,
// SessionsBody) are agent/engineapi's, so that agent/server/client reads
// them back into the engine's types through the same definitions the server
// writes: the two sides cannot drift apart.
type (
	// ModeBody is a mode's JSON: GET/POST …/permission/mode, and in a state.
	ModeBody = engineapi.ModeBody
	// StateBody is a session's state (GET /api/session/{id}, and POST
	// /api/session's answer).
	StateBody = engineapi.StateBody
	// MCPStatusBody is POST /mcp's answer: the server's state after the add.
	MCPStatusBody = engineapi.MCPStatusBody
	// MCPListBody is GET …/mcp's answer.
	MCPListBody = engineapi.MCPListBody
	// SessionsBody is GET /api/session's answer: the sessions open on this
	// server (their states) and the stored ones (Config.Sessions).
	SessionsBody = engineapi.SessionsBody[session.Session]
)

func modeOf(m runner.ModeResult) ModeBody {
	req := m.Requested
	if req == "" {
		req = m.Mode
	}
	return ModeBody{Mode: m.Mode, Requested: req, Downgraded: m.Downgraded, Reason: m.Reason}
}

func stateOf(id string, sess *runner.Session) StateBody {
	st := sess.State()
	return StateBody{ID: id, Agent: st.Agent, Model: st.Model, Mode: modeOf(st.Mode), Status: st.Status,
		Turns: st.Turns, Queued: st.Queued, Usage: st.Usage, LastSeq: st.LastSeq, StopReason: string(st.StopReason),
		Pending: len(sess.Pending()), Modes: st.Modes, Sandbox: st.Sandbox, Policy: st.Policy, Commands: st.Commands}
}

func (s *Server) create(w http.ResponseWriter, r *http.Request) {
	var req CreateRequest
	if !s.decodeBody(w, r, &req, true) {
		return
	}
	var asked permission.Mode
	if req.PermissionMode != "" {
		m, err := permission.ParseMode(req.PermissionMode)
		if err != nil {
			writeError(w, http.StatusBadRequest, "bad_mode", "permission_mode: "+err.Error())
			return
		}
		asked = m
	}
	if ok, why := s.reserve(); !ok {
		overloaded(w, http.StatusTooManyRequests, "too_many_sessions", why)
		return
	}
	sess, err := s.cfg.NewSession(r.Context(), req)
	if err != nil {
		s.unreserve()
		var e *Error
		if errors.As(err, &e) {
			writeError(w, e.Status, e.Code, "create session: "+e.Error())
			return
		}
		writeError(w, http.StatusInternalServerError, "session_failed", "create session: "+err.Error())
		return
	}
	if asked != "" && sess.Mode().Mode != asked {
		// The configuration already downgraded the mode asked for (a
		// lock); asking the engine for it again records the request and
		// the reason in the session's mode, as a live switch would.
		_, _ = sess.SetMode(asked)
	}
	id, err := s.add(sess)
	switch {
	case errors.Is(err, errShutdown):
		overloaded(w, http.StatusServiceUnavailable, "shutting_down", err.Error())
		return
	case err != nil:
		writeError(w, http.StatusInternalServerError, "session_failed", "create session: "+err.Error())
		return
	}
	w.Header().Set("Location", "/api/session/"+id)
	writeJSON(w, http.StatusOK, stateOf(id, sess))
}

func (s *Server) state(w http.ResponseWriter, r *http.Request, id string, sess *runner.Session) {
	writeJSON(w, http.StatusOK, stateOf(id, sess))
}

// messageBody is POST …/message's body.
type messageBody struct {
	Text string `json:"text"`
}

// acceptedBody answers a queued prompt.
type acceptedBody struct {
	Queued  bool  `json:"queued"`
	LastSeq int64 `json:"last_seq"`
}

func (s *Server) message(w http.ResponseWriter, r *http.Request, id string, sess *runner.Session) {
	var m messageBody
	if !s.decode(w, r, &m) {
		return
	}
	if strings.TrimSpace(m.Text) == "" {
		writeError(w, http.StatusBadRequest, "empty_prompt", `text: empty: send {"text": "PROMPT"}`)
		return
	}
	if q := sess.State().Queued; q >= s.cfg.MaxQueued {
		overloaded(w, http.StatusTooManyRequests, "queue_full", fmt.Sprintf("%d prompts already wait in this session: retry once a turn ended", q))
		return
	}
	seq := sess.LastSeq()
	if err := sess.Send(m.Text); err != nil {
		if errors.Is(err, runner.ErrClosed) {
			writeError(w, http.StatusConflict, "session_closed", "the session is closed: create a new one")
			return
		}
		writeError(w, http.StatusInternalServerError, "send_failed", "send: "+err.Error())
		return
	}
	writeJSON(w, http.StatusAccepted, acceptedBody{Queued: true, LastSeq: seq})
}

func (s *Server) getMode(w http.ResponseWriter, r *http.Request, id string, sess *runner.Session) {
	writeJSON(w, http.StatusOK, modeOf(sess.Mode()))
}

// setModeBody is POST …/permission/mode's body.
type setModeBody struct {
	Mode string `json:"mode"`
}

func (s *Server) setMode(w http.ResponseWriter, r *http.Request, id string, sess *runner.Session) {
	var b setModeBody
	if !s.decode(w, r, &b) {
		return
	}
	m, err := permission.ParseMode(b.Mode)
	if err != nil {
		writeError(w, http.StatusBadRequest, "bad_mode", "mode: "+err.Error())
		return
	}
	res, err := sess.SetMode(m)
	if err != nil {
		if errors.Is(err, runner.ErrClosed) {
			writeError(w, http.StatusConflict, "session_closed", "the session is closed: create a new one")
			return
		}
		writeError(w, http.StatusBadRequest, "bad_mode", "set mode: "+err.Error())
		return
	}
	writeJSON(w, http.StatusOK, modeOf(res))
}

// pendingBody is GET …/permission/pending's answer.
type pendingBody struct {
	Pending []runner.PendingAsk `json:"pending"`
}

func (s *Server) pending(w http.ResponseWriter, r *http.Request, id string, sess *runner.Session) {
	p := sess.Pending()
	if p == nil {
		p = []runner.PendingAsk{}
	}
	writeJSON(w, http.StatusOK, pendingBody{Pending: p})
}

// replyBody is POST …/permission/{req}'s body.
type replyBody struct {
	Answer      string `json:"answer"`
	Feedback    string `json:"feedback,omitempty"`
	InputDigest string `json:"input_digest,omitempty"`
}

// answerBody is an answer as the API shows it (the success answer, and the
// first answer of a 409).
type answerBody struct {
	ID       string    `json:"id"`
	Answer   string    `json:"answer"`
	Feedback string    `json:"feedback,omitempty"`
	By       string    `json:"by,omitempty"`
	At       time.Time `json:"at,omitzero"`
}

// clientLabel names who answered: the X-OceanCode-Client header, else "http".
func clientLabel(r *http.Request) string {
	if c := strings.TrimSpace(r.Header.Get("X-OceanCode-Client")); c != "" && len(c) <= 64 {
		return "http:" + c
	}
	return "http"
}

func (s *Server) answer(w http.ResponseWriter, r *http.Request, id string, sess *runner.Session) {
	var b replyBody
	if !s.decode(w, r, &b) {
		return
	}
	ans := agent.Answer(strings.TrimSpace(b.Answer))
	if ans == "" {
		writeError(w, http.StatusBadRequest, "bad_answer", `answer: empty: want "once", "always" or "deny" (a question: its answer's text)`)
		return
	}
	askID := r.PathValue("req")
	rep := runner.Reply{Answer: ans, Feedback: b.Feedback, Digest: b.InputDigest, By: clientLabel(r)}
	err := sess.Answer(askID, rep)
	var answered *runner.AnsweredError
	switch {
	case err == nil:
		writeJSON(w, http.StatusOK, answerBody{ID: askID, Answer: b.Answer, Feedback: b.Feedback, By: rep.By})
	case errors.Is(err, runner.ErrNoAsk):
		writeError(w, http.StatusNotFound, "no_ask", fmt.Sprintf("no ask %q in this session: GET …/permission/pending lists the open ones", askID))
	case errors.As(err, &answered):
		writeJSON(w, http.StatusConflict, errorBody{Code: "already_answered",
			Error: fmt.Sprintf("ask %s was already answered %s: the first answer wins", askID, answered.First.Answer),
			First: &answerBody{ID: askID, Answer: string(answered.First.Answer), Feedback: answered.First.Feedback, By: answered.First.By, At: answered.At}})
	case errors.Is(err, runner.ErrDigest):
		writeError(w, http.StatusConflict, "digest_mismatch", fmt.Sprintf("ask %s: input_digest is not the digest of the input asked about: GET …/permission/pending and answer what it shows", askID))
	case errors.Is(err, runner.ErrAnswer):
		writeError(w, http.StatusBadRequest, "bad_answer", fmt.Sprintf("ask %s: answer %q is not one of its choices (GET …/permission/pending lists them): %v", askID, b.Answer, err))
	case errors.Is(err, runner.ErrClosed):
		writeError(w, http.StatusConflict, "session_closed", "the session is closed")
	default:
		writeError(w, http.StatusInternalServerError, "internal", "answer: "+err.Error())
	}
}

// abortBody answers POST …/abort.
type abortBody struct {
	Aborted bool   `json:"aborted"`
	Status  string `json:"status"`
}

func (s *Server) abort(w http.ResponseWriter, r *http.Request, id string, sess *runner.Session) {
	sess.Abort()
	writeJSON(w, http.StatusOK, abortBody{Aborted: true, Status: sess.State().Status})
}

func (s *Server) inspect(w http.ResponseWriter, r *http.Request) {
	b, err := s.cfg.Inspect()
	if err != nil {
		writeError(w, http.StatusInternalServerError, "inspect_failed", "inspect: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}

// mcpBody is POST /mcp's body: the session to add to and the server, in the
// shape of a config "mcp.servers" entry (command + args + env for stdio, or
// url + headers for streamable HTTP).
type mcpBody struct {
	Session string            `json:"session"`
	Name    string            `json:"name"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

// mcp adds an MCP server to a session at runtime. The add is the user's
// trust decision; the requirements' allow-list still applies (403 when it
// refuses), and the server's calls ask (origin runtime) until "always".
func (s *Server) mcp(w http.ResponseWriter, r *http.Request) {
	var b mcpBody
	if !s.decode(w, r, &b) {
		return
	}
	srv := mcp.Server{Name: b.Name, Command: b.Command, Args: b.Args, Env: b.Env,
		URL: b.URL, Headers: b.Headers, Origin: permission.MCPRuntime, Source: "runtime add (POST /mcp)"}
	if b.Session == "" {
		writeError(w, http.StatusBadRequest, "bad_request", `"session": name the session to add the server to (POST /api/session creates one)`)
		return
	}
	if err := srv.Check(); err != nil {
		writeError(w, http.StatusBadRequest, "bad_request", err.Error())
		return
	}
	s.mu.Lock()
	sess := s.byID[b.Session]
	s.mu.Unlock()
	if sess == nil {
		writeError(w, http.StatusNotFound, "no_session", fmt.Sprintf("no session %q on this server: create one with POST /api/session", b.Session))
		return
	}
	st, err := sess.AddMCP(r.Context(), srv)
	body := mcpStatusOf(st)
	switch {
	case errors.Is(err, runner.ErrClosed):
		writeError(w, http.StatusConflict, "session_closed", "the session is closed: create a new one")
	case st.State == mcp.StateRefused || st.State == mcp.StateDenied:
		writeError(w, http.StatusForbidden, "refused", fmt.Sprintf("add mcp server %s: %s", b.Name, st.Reason))
	case err != nil && st.State == "":
		writeError(w, http.StatusConflict, "mcp_conflict", err.Error())
	case err != nil:
		writeError(w, http.StatusBadGateway, "mcp_failed", fmt.Sprintf("add mcp server %s: %v", b.Name, err))
	default:
		writeJSON(w, http.StatusOK, body)
	}
}
