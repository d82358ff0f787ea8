package server

import (
	"errors"
	"net/http"

	"github.com/oceancode/oceancode/agent/runner"
)

// compactBody is POST …/compact's body (optional).
type compactBody struct {
	Focus string `json:"focus,omitempty"`
}

// compact answers POST /api/session/{id}/compact: the session's
// conversation is compacted now (after the running turn, if any) and the
// compaction is the answer, as the compaction event carries it.
func (s *Server) compact(w http.ResponseWriter, r *http.Request, id string, sess *runner.Session) {
	var b compactBody
	if !s.decodeBody(w, r, &b, true) {
		return
	}
	rep, err := sess.Compact(r.Context(), b.Focus)
	switch {
	case err == nil:
		writeJSON(w, http.StatusOK, rep)
	case errors.Is(err, runner.ErrNothingToCompact):
		writeError(w, http.StatusConflict, "nothing_to_compact", "the conversation has nothing left to prune or summarise")
	case errors.Is(err, runner.ErrClosed):
		writeError(w, http.StatusConflict, "session_closed", "the session is closed")
	case r.Context().Err() != nil:
		return // the client went away
	default:
		writeError(w, http.StatusBadGateway, "compact_failed", err.Error())
	}
}
