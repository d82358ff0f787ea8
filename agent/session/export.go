package session

import (
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"time"

	"github.com/oceancode/oceancode/agent/message"
)

// ExportFormat names the export document's format; ExportVersion is bumped
// on any change a reader must know about.
const (
	ExportFormat  = "oceancode.session"
	ExportVersion = 1
)

// Export writes a session as one JSON document (see docs/sessions.md):
//
//	{"format": "oceancode.session", "version": 1, "exported_at": …,
//	 "session": {…}, "usage": {…},
//	 "messages": [{"seq", "at", "message"}], "events": [{"seq", "type", "data", "at"}],
//	 "approvals": [{"key", "pattern", "server"}]}
//
// Messages are in their stored form (message.Message's JSON, with each tool
// call's input as a string of its raw text), so the export is lossless.
// The document is read from one snapshot of the database.
func (s *Store) Export(ctx context.Context, id string, w io.Writer) error {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true}) // BEGIN DEFERRED: a read snapshot
	if err != nil {
		return opErr("export", id, err)
	}
	defer rollback(tx)
	ss, err := scanSession(tx.QueryRowContext(ctx, "SELECT "+sessionColumns+" FROM sessions s WHERE s.id = ?", id), time.Now())
	if err == sql.ErrNoRows {
		return opErr("export", id, ErrNotFound)
	}
	if err != nil {
		return opErr("export", id, err)
	}
	ms, err := s.messages(ctx, tx, id)
	if err != nil {
		return opErr("export", id, err)
	}
	evs, err := s.events(ctx, tx, id, 0)
	if err != nil {
		return opErr("export", id, err)
	}
	aps, err := s.approvals(ctx, tx, id)
	if err != nil {
		return opErr("export", id, err)
	}
	doc := exportDoc{
		Format: ExportFormat, Version: ExportVersion, ExportedAt: time.Now().UTC(),
		Session: ss, Usage: ss.Usage, Events: evs, Approvals: aps,
		Messages: make([]exportMessage, len(ms)),
	}
	for i, m := range ms {
		doc.Messages[i] = exportMessage{Seq: m.Seq, At: m.At, Message: appendMessage(nil, m.Message)}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return opErr("export", id, err)
	}
	return nil
}

type exportDoc struct {
	Format     string          `json:"format"`
	Version    int             `json:"version"`
	ExportedAt time.Time       `json:"exported_at"`
	Session    *Session        `json:"session"`
	Usage      message.Usage   `json:"usage"`
	Messages   []exportMessage `json:"messages"`
	Events     []Event         `json:"events"`
	Approvals  []Approval      `json:"approvals"`
}

type exportMessage struct {
	Seq     int64           `json:"seq"`
	At      time.Time       `json:"at"`
	Message json.RawMessage `json:"message"`
}
