package server

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/oceancode/oceancode/agent/mcp"
	"github.com/oceancode/oceancode/agent/runner"
	"github.com/oceancode/oceancode/agent/session"
)

// switchBody is POST …/model's body ({"model"}) and …/agent's ({"agent"}).
type switchBody struct {
	Model string `json:"model,omitempty"`
	Agent string `json:"agent,omitempty"`
}

// switcher is the handler of POST …/model (what "model") or …/agent.
func (s *Server) switcher(what string) func(http.ResponseWriter, *http.Request, string, *runner.Session) {
	return func(w http.ResponseWriter, r *http.Request, id string, sess *runner.Session) {
		var b switchBody
		if !s.decode(w, r, &b) {
			return
		}
		val, other, hint := b.Model, b.Agent, "PROVIDER/MODEL"
		if what == "agent" {
			val, other, hint = b.Agent, b.Model, "NAME"
		}
		if other != "" {
			writeError(w, http.StatusBadRequest, "bad_body", fmt.Sprintf(`request body: send {%q: %q} only (the body schemas are in GET /api/openapi.json)`, what, hint))
			return
		}
		if strings.TrimSpace(val) == "" {
			writeError(w, http.StatusBadRequest, "bad_"+what, fmt.Sprintf(`%s: empty: send {%q: %q}`, what, what, hint))
			return
		}
		var err error
		if what == "agent" {
			_, err = sess.SetAgent(r.Context(), val)
		} else {
			_, err = sess.SetModel(r.Context(), val)
		}
		switched(w, id, sess, what, err)
	}
}

// switched answers a model or agent switch: the state, or the error: the hook's *Error chooses its status (403 for what the
// requirements refuse, 400 for a bad name); a session that cannot switch
// is 501.
func switched(w http.ResponseWriter, id string, sess *runner.Session, what string, err error) {
	var e *Error
	switch {
	case err == nil:
		writeJSON(w, http.StatusOK, stateOf(id, sess))
	case errors.Is(err, runner.ErrClosed):
		writeError(w, http.StatusConflict, "session_closed", "the session is closed: create a new one")
	case errors.Is(err, runner.ErrUnsupported):
		writeError(w, http.StatusNotImplemented, "unsupported", fmt.Sprintf("set %s: this server's sessions cannot switch %s", what, what))
	case errors.As(err, &e):
		writeError(w, e.Status, e.Code, err.Error())
	default:
		writeError(w, http.StatusBadRequest, "bad_"+what, err.Error())
	}
}

func mcpStatusOf(st mcp.Status) MCPStatusBody {
	b := MCPStatusBody{Name: st.Name, Origin: st.Origin, Source: st.Source, State: st.State, Reason: st.Reason,
		Tools: st.Tools, TookMS: float64(st.Took.Microseconds()) / 1000}
	if b.Tools == nil {
		b.Tools = []string{}
	}
	return b
}

func (s *Server) mcpList(w http.ResponseWriter, r *http.Request, id string, sess *runner.Session) {
	out := MCPListBody{Servers: []MCPStatusBody{}}
	for _, st := range sess.MCPServers() {
		out.Servers = append(out.Servers, mcpStatusOf(st))
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	type entry struct {
		id   string
		sess *runner.Session
	}
	var open []entry
	for _, id := range s.order {
		if sess := s.byID[id]; sess != nil {
			open = append(open, entry{id, sess})
		}
	}
	s.mu.Unlock()
	out := SessionsBody{Open: []StateBody{}, Stored: []session.Session{}}
	for _, e := range open {
		out.Open = append(out.Open, stateOf(e.id, e.sess))
	}
	if s.cfg.Sessions != nil {
		stored, err := s.cfg.Sessions(r.Context())
		if err != nil {
			writeError(w, http.StatusInternalServerError, "sessions_failed", "list sessions: "+err.Error())
			return
		}
		out.Stored = append(out.Stored, stored...)
	}
	writeJSON(w, http.StatusOK, out)
}

// mcpTrust is POST …/mcp/{name}/trust: a project server waiting for trust
// is trusted (the user's trust store, as `oceancode mcp trust`) and
// started.
func (s *Server) mcpTrust(w http.ResponseWriter, r *http.Request, id string, sess *runner.Session) {
	name := r.PathValue("name")
	st, err := sess.TrustMCP(r.Context(), name)
	switch {
	case err == nil:
		writeJSON(w, http.StatusOK, mcpStatusOf(st))
	case errors.Is(err, runner.ErrClosed):
		writeError(w, http.StatusConflict, "session_closed", "the session is closed: create a new one")
	case errors.Is(err, mcp.ErrNoServer):
		writeError(w, http.StatusNotFound, "no_mcp_server", fmt.Sprintf("%v: GET …/mcp lists them", err))
	case errors.Is(err, mcp.ErrNotWaiting), st.State == "":
		writeError(w, http.StatusConflict, "mcp_conflict", err.Error())
	case st.State == mcp.StateRefused || st.State == mcp.StateDenied:
		writeError(w, http.StatusForbidden, "refused", fmt.Sprintf("trust mcp server %s: %s", name, st.Reason))
	default:
		writeError(w, http.StatusBadGateway, "mcp_failed", fmt.Sprintf("trust mcp server %s: %v", name, err))
	}
}
