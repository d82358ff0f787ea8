package session

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// Advice is one decision the Jev advisor advised on, as the store keeps it:
// the advice (status, scores, reasons, …) and, once the user answered the
// advised ask, its label (once, always, deny; "jev" when the advice itself
// approved the call). Headless runs leave Label empty.
type Advice struct {
	Session   string          `json:"session"`
	Seq       int64           `json:"seq"` // the advice event's sequence number
	CallID    string          `json:"call_id"`
	Key       string          `json:"key"`
	Command   string          `json:"command"`
	Status    string          `json:"status"`
	Mode      string          `json:"mode"`
	Scores    json.RawMessage `json:"scores,omitempty"` // as the advisor answered (jev.Scores), null when unavailable
	Reasons   []string        `json:"reasons"`
	Injection bool            `json:"injection"`
	Cached    bool            `json:"cached"`
	LatencyMS int64           `json:"latency_ms"`
	Tokens    int             `json:"tokens"`
	Acted     bool            `json:"acted"`
	Label     string          `json:"label,omitempty"`
	Feedback  string          `json:"feedback,omitempty"`
	At        time.Time       `json:"at"`
}

// AddAdvice records an advice of session id.
func (s *Store) AddAdvice(ctx context.Context, id string, a Advice) error {
	reasons := a.Reasons
	if reasons == nil {
		reasons = []string{}
	}
	rs, err := json.Marshal(reasons)
	if err != nil {
		return opErr("add advice", id, err)
	}
	var scores any
	if len(a.Scores) > 0 && string(a.Scores) != "null" {
		if !json.Valid(a.Scores) {
			return opErr("add advice", id, fmt.Errorf("call %s: scores are not valid JSON", a.CallID))
		}
		scores = string(a.Scores)
	}
	at := a.At
	if at.IsZero() {
		at = time.Now()
	}
	var labelled any
	if a.Label != "" {
		labelled = at.UnixNano()
	}
	_, err = s.db.ExecContext(ctx, `INSERT INTO advice (session_id, seq, call_id, key, command, status, mode, scores, reasons,
	injection, cached, latency_ms, tokens, acted, label, feedback, at, labelled_at)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, id, a.Seq, a.CallID, a.Key, a.Command, a.Status, a.Mode, scores, string(rs),
		a.Injection, a.Cached, a.LatencyMS, a.Tokens, a.Acted, a.Label, a.Feedback, at.UnixNano(), labelled)
	if isForeignKey(err) {
		err = ErrNotFound
	}
	if err != nil {
		return opErr("add advice", id, err)
	}
	return nil
}

// LabelAdvice records the answer to the advised ask of call callID as the
// label of its advice still unlabelled (none: nothing to do — the call was
// not advised, or its shadow advice has not arrived and will carry the
// label itself).
func (s *Store) LabelAdvice(ctx context.Context, id, callID, label, feedback string) error {
	_, err := s.db.ExecContext(ctx, `UPDATE advice SET label = ?, feedback = ?, labelled_at = ?
	WHERE session_id = ? AND call_id = ? AND label = ''`, label, feedback, nowNano(), id, callID)
	if err != nil {
		return opErr("label advice", id+"/"+callID, err)
	}
	return nil
}

// Advices returns the advice of session id ("": of every session), in
// order; labelledOnly leaves out those without a label.
func (s *Store) Advices(ctx context.Context, id string, labelledOnly bool) ([]Advice, error) {
	q := `SELECT session_id, seq, call_id, key, command, status, mode, scores, reasons, injection, cached, latency_ms,
	tokens, acted, label, feedback, at FROM advice WHERE (? = '' OR session_id = ?)`
	if labelledOnly {
		q += ` AND label != ''`
	}
	rows, err := s.db.QueryContext(ctx, q+` ORDER BY at, session_id, seq`, id, id)
	if err != nil {
		return nil, opErr("read advice", id, err)
	}
	defer rows.Close()
	out := []Advice{}
	for rows.Next() {
		var (
			a       Advice
			scores  sql.NullString
			reasons string
			at      int64
		)
		if err := rows.Scan(&a.Session, &a.Seq, &a.CallID, &a.Key, &a.Command, &a.Status, &a.Mode, &scores, &reasons,
			&a.Injection, &a.Cached, &a.LatencyMS, &a.Tokens, &a.Acted, &a.Label, &a.Feedback, &at); err != nil {
			return nil, opErr("read advice", id, err)
		}
		if scores.Valid {
			a.Scores = json.RawMessage(scores.String)
		}
		if err := json.Unmarshal([]byte(reasons), &a.Reasons); err != nil {
			return nil, opErr("read advice", id, err)
		}
		a.At = fromNano(at)
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, opErr("read advice", id, err)
	}
	return out, nil
}

// LabelsVersion is the version of the labelled-decision JSONL records
// (ExportLabels, `oceancode jev export`); a change of their fields'
// meaning is a new version.
const LabelsVersion = 1

// labelRecord is one line of ExportLabels: the stable fields and version.
type labelRecord struct {
	Version int `json:"version"`
	Advice
}

// ExportLabels writes the labelled advice of session id ("": of every
// session) to w as JSON lines, oldest first.
func (s *Store) ExportLabels(ctx context.Context, id string, w io.Writer) error {
	list, err := s.Advices(ctx, id, true)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, a := range list {
		if err := enc.Encode(labelRecord{Version: LabelsVersion, Advice: a}); err != nil {
			return opErr("export labels", id, err)
		}
	}
	return nil
}
