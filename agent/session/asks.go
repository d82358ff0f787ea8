package session

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Ask is a stored ask: a permission ask or a question that waits for (or
// got) a client's answer. Body is the ask as the runner describes it (JSON,
// opaque here); the columns beside it are what the store looks asks up by.
type Ask struct {
	ID          string          `json:"id"`
	CallID      string          `json:"call_id"`
	InputDigest string          `json:"input_digest"`
	Body        json.RawMessage `json:"body"`
	Status      AskStatus       `json:"status"`
	Answer      string          `json:"answer,omitempty"`
	Feedback    string          `json:"feedback,omitempty"`
	By          string          `json:"by,omitempty"`
	Created     time.Time       `json:"created_at"`
	Answered    time.Time       `json:"answered_at,omitzero"`
}

// AskStatus is where a stored ask stands.
type AskStatus string

// Ask statuses.
const (
	AskPending  AskStatus = "pending"
	AskAnswered AskStatus = "answered"
)

// ErrAnswered: the ask was answered already.
var ErrAnswered = errors.New("ask answered already")

// AddAsk records a pending ask of session id.
func (s *Store) AddAsk(ctx context.Context, id string, a Ask) error {
	if !json.Valid(a.Body) {
		return opErr("add ask", id, fmt.Errorf("ask %s: body is not valid JSON", a.ID))
	}
	at := a.Created
	if at.IsZero() {
		at = time.Now()
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO asks (session_id, id, call_id, input_digest, body, status, created_at)
	VALUES (?, ?, ?, ?, ?, 'pending', ?)`, id, a.ID, a.CallID, a.InputDigest, string(a.Body), at.UnixNano())
	if isForeignKey(err) {
		err = ErrNotFound
	}
	if err != nil {
		return opErr("add ask", id, err)
	}
	return nil
}

// AnswerAsk records the answer to a pending ask; an ask answered already
// is refused with ErrAnswered, an unknown one with ErrNotFound.
func (s *Store) AnswerAsk(ctx context.Context, id, askID, answer, feedback, by string) error {
	res, err := s.db.ExecContext(ctx, `UPDATE asks SET status = 'answered', answer = ?, feedback = ?, answered_by = ?, answered_at = ?
	WHERE session_id = ? AND id = ? AND status = 'pending'`, answer, feedback, by, nowNano(), id, askID)
	if err != nil {
		return opErr("answer ask", id+"/"+askID, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return opErr("answer ask", id+"/"+askID, err)
	} else if n == 1 {
		return nil
	}
	var st string
	err = s.db.QueryRowContext(ctx, `SELECT status FROM asks WHERE session_id = ? AND id = ?`, id, askID).Scan(&st)
	if errors.Is(err, sql.ErrNoRows) {
		err = ErrNotFound
	} else if err == nil {
		err = ErrAnswered
	}
	return opErr("answer ask", id+"/"+askID, err)
}

// Asks returns a session's asks in the order they were made; pendingOnly
// leaves out those answered.
func (s *Store) Asks(ctx context.Context, id string, pendingOnly bool) ([]Ask, error) {
	q := `SELECT id, call_id, input_digest, body, status, answer, feedback, answered_by, created_at, answered_at
	FROM asks WHERE session_id = ?`
	if pendingOnly {
		q += ` AND status = 'pending'`
	}
	rows, err := s.db.QueryContext(ctx, q+` ORDER BY created_at, id`, id)
	if err != nil {
		return nil, opErr("read asks", id, err)
	}
	defer rows.Close()
	out := []Ask{}
	for rows.Next() {
		var (
			a        Ask
			body     string
			created  int64
			answered sql.NullInt64
		)
		if err := rows.Scan(&a.ID, &a.CallID, &a.InputDigest, &body, &a.Status, &a.Answer, &a.Feedback, &a.By, &created, &answered); err != nil {
			return nil, opErr("read asks", id, err)
		}
		a.Body, a.Created, a.Answered = json.RawMessage(body), fromNano(created), fromNullNano(answered)
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, opErr("read asks", id, err)
	}
	return out, nil
}

// PendingAskSessions returns the ids of the sessions with an ask still
// pending (a restarted server resumes them to offer their asks again),
// oldest ask first.
func (s *Store) PendingAskSessions(ctx context.Context) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT session_id FROM asks WHERE status = 'pending'
	GROUP BY session_id ORDER BY min(created_at)`)
	if err != nil {
		return nil, opErr("read asks", "pending", err)
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, opErr("read asks", "pending", err)
		}
		out = append(out, id)
	}
	if err := rows.Err(); err != nil {
		return nil, opErr("read asks", "pending", err)
	}
	return out, nil
}

// SetMode records a session's permission mode after a live switch.
func (s *Store) SetMode(ctx context.Context, id, mode string) error {
	return s.update(ctx, "set mode", id, `UPDATE sessions SET mode = ? WHERE id = ?`, mode, id)
}

// AppendEvents records events with the sequence numbers their Seq gives
// (the caller numbers them: 1, 2, … per session) in one committed
// transaction. A Seq already recorded is refused and nothing is written.
func (s *Store) AppendEvents(ctx context.Context, id string, evs []Event) error {
	if len(evs) == 0 {
		return nil
	}
	for _, e := range evs {
		if e.Type == "" || e.Seq <= 0 {
			return opErr("append events", id, fmt.Errorf("event %d %q: want a type and a sequence number", e.Seq, e.Type))
		}
		if e.Data != nil && !json.Valid(e.Data) {
			return opErr("append events", id, fmt.Errorf("event %d %s: data is not valid JSON", e.Seq, e.Type))
		}
	}
	st, err := s.appendEventSeq.get(ctx, s.db, appendEventSeqSQL)
	if err != nil {
		return opErr("append events", id, err)
	}
	exec := func(st *sql.Stmt, e Event) error {
		at := e.At
		if at.IsZero() {
			at = time.Now()
		}
		var data any // a nil RawMessage is stored as NULL
		if e.Data != nil {
			data = []byte(e.Data)
		}
		_, err := st.ExecContext(ctx, id, e.Seq, at.UnixNano(), e.Type, data)
		if isForeignKey(err) {
			err = ErrNotFound
		}
		return err
	}
	if len(evs) == 1 { // autocommit: one statement, one transaction
		if err := exec(st, evs[0]); err != nil {
			return opErr("append events", id, err)
		}
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return opErr("append events", id, err)
	}
	defer rollback(tx)
	txst := tx.StmtContext(ctx, st)
	for _, e := range evs {
		if err := exec(txst, e); err != nil {
			return opErr("append events", id, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return opErr("append events", id, err)
	}
	return nil
}

const appendEventSeqSQL = `INSERT INTO events (session_id, seq, at, type, data) VALUES (?, ?, ?, ?, ?)`

// LastEventSeq is the highest sequence number of a session's events (0
// without any).
func (s *Store) LastEventSeq(ctx context.Context, id string) (int64, error) {
	var n sql.NullInt64
	err := s.db.QueryRowContext(ctx, `SELECT max(seq) FROM events WHERE session_id = ?`, id).Scan(&n)
	if err != nil {
		return 0, opErr("read events", id, err)
	}
	return n.Int64, nil
}
