package session

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/oceancode/oceancode/agent/message"
)

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// One statement, so SQLite's autocommit makes it one transaction; the
// messages_touch trigger bumps the session's updated_at inside it.
const appendMessageSQL = `INSERT INTO messages (session_id, seq, at, body)
	SELECT ?1, coalesce(max(seq), 0) + 1, ?2, ?3 FROM messages WHERE session_id = ?1
	RETURNING seq`

const appendEventSQL = `INSERT INTO events (session_id, seq, at, type, data)
	SELECT ?1, coalesce(max(seq), 0) + 1, ?2, ?3, ?4 FROM events WHERE session_id = ?1
	RETURNING seq`

// AppendMessage records m as the session's next message and returns its
// sequence number (1, 2, …). The append is one committed transaction: once
// it returns, the message survives a crash of the process.
func (s *Store) AppendMessage(ctx context.Context, id string, m message.Message) (int64, error) {
	bp := bufPool.Get().(*[]byte)
	body := appendMessage((*bp)[:0], m)
	var seq int64
	st, err := s.appendMessage.get(ctx, s.db, appendMessageSQL)
	if err == nil {
		err = st.QueryRowContext(ctx, id, nowNano(), string(body)).Scan(&seq)
	}
	*bp = body
	bufPool.Put(bp)
	if isForeignKey(err) {
		err = ErrNotFound
	}
	if err != nil {
		return 0, opErr("append message", id, err)
	}
	return seq, nil
}

// Messages returns a session's messages in the order they were appended,
// exactly as they were recorded.
func (s *Store) Messages(ctx context.Context, id string) ([]message.Message, error) {
	ms, err := s.messages(ctx, s.db, id)
	if err != nil {
		return nil, opErr("read messages", id, err)
	}
	out := make([]message.Message, len(ms))
	for i, m := range ms {
		out[i] = m.Message
	}
	return out, nil
}

type seqMessage struct {
	Seq int64
	At  time.Time
	message.Message
}

func (s *Store) messages(ctx context.Context, q querier, id string) ([]seqMessage, error) {
	rows, err := q.QueryContext(ctx, `SELECT m.seq, m.at, m.body FROM sessions s
	LEFT JOIN messages m ON m.session_id = s.id WHERE s.id = ? ORDER BY m.seq`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	found := false
	out := []seqMessage{}
	for rows.Next() {
		found = true
		var (
			seq, at sql.NullInt64
			body    sql.RawBytes
		)
		if err := rows.Scan(&seq, &at, &body); err != nil {
			return nil, err
		}
		if !seq.Valid {
			continue
		}
		m, err := decodeMessage(body)
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", seq.Int64, err)
		}
		out = append(out, seqMessage{seq.Int64, fromNano(at.Int64), m})
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if !found {
		return nil, ErrNotFound
	}
	return out, nil
}

// Event is one entry of a session's event stream, as the turn loop emits it.
type Event struct {
	Seq  int64           `json:"seq"` // set by AppendEvent; ignored on input
	Type string          `json:"type"`
	Data json.RawMessage `json:"data,omitempty"` // nil or valid JSON
	At   time.Time       `json:"at"`             // zero means now
}

// AppendEvent records e as the session's next event and returns its
// sequence number. Data must be nil or valid JSON. Like AppendMessage it is
// one committed transaction.
func (s *Store) AppendEvent(ctx context.Context, id string, e Event) (int64, error) {
	if e.Type == "" {
		return 0, opErr("append event", id, errors.New("event has no type"))
	}
	if e.Data != nil && !json.Valid(e.Data) {
		return 0, opErr("append event", id, fmt.Errorf("event %s: data is not valid JSON", e.Type))
	}
	at := e.At
	if at.IsZero() {
		at = time.Now()
	}
	var data any // a nil RawMessage must be stored as NULL, not as an empty blob
	if e.Data != nil {
		data = []byte(e.Data)
	}
	var seq int64
	st, err := s.appendEvent.get(ctx, s.db, appendEventSQL)
	if err == nil {
		err = st.QueryRowContext(ctx, id, at.UnixNano(), e.Type, data).Scan(&seq)
	}
	if isForeignKey(err) {
		err = ErrNotFound
	}
	if err != nil {
		return 0, opErr("append event", id, err)
	}
	return seq, nil
}

// Events returns a session's events with a sequence number above afterSeq,
// in order; afterSeq 0 returns them all.
func (s *Store) Events(ctx context.Context, id string, afterSeq int64) ([]Event, error) {
	out, err := s.events(ctx, s.db, id, afterSeq)
	if err != nil {
		return nil, opErr("read events", id, err)
	}
	return out, nil
}

func (s *Store) events(ctx context.Context, q querier, id string, afterSeq int64) ([]Event, error) {
	rows, err := q.QueryContext(ctx, `SELECT e.seq, e.at, e.type, e.data FROM sessions s
	LEFT JOIN events e ON e.session_id = s.id AND e.seq > ? WHERE s.id = ? ORDER BY e.seq`, afterSeq, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	found := false
	out := []Event{}
	for rows.Next() {
		found = true
		var (
			seq, at sql.NullInt64
			typ     sql.NullString
			data    []byte
		)
		if err := rows.Scan(&seq, &at, &typ, &data); err != nil {
			return nil, err
		}
		if !seq.Valid {
			continue
		}
		e := Event{Seq: seq.Int64, Type: typ.String, At: fromNano(at.Int64)}
		if data != nil {
			e.Data = json.RawMessage(data)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if !found {
		return nil, ErrNotFound
	}
	return out, nil
}
