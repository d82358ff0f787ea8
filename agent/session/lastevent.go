package session

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
)

// LastEvent returns a session's newest event of type typ; ok is false when
// it has none. A resumed session reads its last compaction with it.
func (s *Store) LastEvent(ctx context.Context, id, typ string) (e Event, ok bool, err error) {
	var (
		at   int64
		data []byte
	)
	err = s.db.QueryRowContext(ctx, `SELECT seq, at, data FROM events WHERE session_id = ? AND type = ?
	ORDER BY seq DESC LIMIT 1`, id, typ).Scan(&e.Seq, &at, &data)
	if errors.Is(err, sql.ErrNoRows) {
		return Event{}, false, nil
	}
	if err != nil {
		return Event{}, false, opErr("read last "+typ+" event", id, err)
	}
	e.Type, e.At, e.Data = typ, fromNano(at), json.RawMessage(data)
	return e, true, nil
}
