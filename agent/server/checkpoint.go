package server

import (
	"errors"
	"net/http"

	"github.com/oceancode/oceancode/agent/engineapi"
	"github.com/oceancode/oceancode/agent/runner"
)

// checkpointsBody is GET …/checkpoints' answer: the undo list.
type checkpointsBody struct {
	Checkpoints []engineapi.CheckpointEntry `json:"checkpoints"`
}

func (s *Server) checkpoints(w http.ResponseWriter, r *http.Request, id string, sess *runner.Session) {
	list, err := sess.Checkpoints()
	if err != nil {
		checkpointError(w, err)
		return
	}
	if list == nil {
		list = []engineapi.CheckpointEntry{}
	}
	writeJSON(w, http.StatusOK, checkpointsBody{Checkpoints: list})
}

// undoer is POST …/undo (redo false) or …/redo.
func (s *Server) undoer(redo bool) func(http.ResponseWriter, *http.Request, string, *runner.Session) {
	return func(w http.ResponseWriter, r *http.Request, id string, sess *runner.Session) {
		var b engineapi.UndoRequest
		if !s.decodeBody(w, r, &b, true) {
			return
		}
		op := sess.Undo
		if redo {
			op = sess.Redo
		}
		res, err := op(r.Context(), b)
		if err != nil {
			checkpointError(w, err)
			return
		}
		writeJSON(w, http.StatusOK, res)
	}
}

// checkpointError maps the errors of undo, redo and the list: 409 with
// the files for a conflict (nothing was written), 409 when there is
// nothing to undo or redo or the session is closed, 501 when the session
// keeps no checkpoints.
func checkpointError(w http.ResponseWriter, err error) {
	var ce *engineapi.ConflictError
	switch {
	case errors.As(err, &ce):
		writeJSON(w, http.StatusConflict, errorBody{Error: err.Error(), Code: "changed_since", Files: ce.Files})
	case errors.Is(err, engineapi.ErrNothingToUndo):
		writeError(w, http.StatusConflict, "nothing_to_undo", err.Error())
	case errors.Is(err, engineapi.ErrNothingToRedo):
		writeError(w, http.StatusConflict, "nothing_to_redo", err.Error())
	case errors.Is(err, engineapi.ErrCheckpointsOff):
		writeError(w, http.StatusNotImplemented, "checkpoints_off", err.Error()+" (checkpoints.enabled is false, or there is no state dir)")
	case errors.Is(err, runner.ErrClosed):
		writeError(w, http.StatusConflict, "session_closed", "the session is closed: create a new one")
	default:
		writeError(w, http.StatusInternalServerError, "checkpoint_failed", err.Error())
	}
}
