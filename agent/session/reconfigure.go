package session

import "context"

// SetAgentModel records a session's agent and model after a live switch
// (the pager's /agent and /model, POST …/agent and …/model).
func (s *Store) SetAgentModel(ctx context.Context, id, agent, model string) error {
	return s.update(ctx, "set agent and model", id, `UPDATE sessions SET agent = ?, model = ? WHERE id = ?`, agent, model, id)
}

// update runs an UPDATE of one session's row: ErrNotFound when there is
// none; errors name op and the session.
func (s *Store) update(ctx context.Context, op, id, q string, args ...any) error {
	res, err := s.db.ExecContext(ctx, q, args...)
	if err == nil {
		var n int64
		if n, err = res.RowsAffected(); err == nil && n == 0 {
			err = ErrNotFound
		}
	}
	if err != nil {
		return opErr(op, id, err)
	}
	return nil
}
