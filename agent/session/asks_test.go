package session

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	_ "modernc.org/sqlite"
)

func TestAsks(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	id := newSession(t, s).ID
	for _, a := range []Ask{
		{ID: "a1", CallID: "c1", InputDigest: "sha256:1", Body: json.RawMessage(`{"id":"a1"}`)},
		{ID: "a2", CallID: "c2", InputDigest: "sha256:2", Body: json.RawMessage(`{"id":"a2"}`), Created: time.Now().Add(time.Second)},
	} {
		if err := s.AddAsk(ctx, id, a); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.AddAsk(ctx, id, Ask{ID: "bad", Body: json.RawMessage(`{`)}); err == nil {
		t.Error("AddAsk with a body that is not JSON: no error")
	}
	if err := s.AddAsk(ctx, "nope", Ask{ID: "x", Body: json.RawMessage(`{}`)}); !errors.Is(err, ErrNotFound) {
		t.Errorf("AddAsk to an unknown session: %v, want ErrNotFound", err)
	}
	if err := s.AnswerAsk(ctx, id, "a1", "deny", "use the test target", "cli"); err != nil {
		t.Fatal(err)
	}
	if err := s.AnswerAsk(ctx, id, "a1", "once", "", "other"); !errors.Is(err, ErrAnswered) {
		t.Errorf("second answer: %v, want ErrAnswered", err)
	}
	if err := s.AnswerAsk(ctx, id, "zz", "once", "", ""); !errors.Is(err, ErrNotFound) {
		t.Errorf("answer to an unknown ask: %v, want ErrNotFound", err)
	}
	if ids, err := s.PendingAskSessions(ctx); err != nil || len(ids) != 1 || ids[0] != id {
		t.Errorf("sessions with pending asks = %v, %v", ids, err)
	}
	pending, err := s.Asks(ctx, id, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(pending) != 1 || pending[0].ID != "a2" || pending[0].Status != AskPending || string(pending[0].Body) != `{"id":"a2"}` {
		t.Errorf("pending asks = %+v, want a2 only", pending)
	}
	all, err := s.Asks(ctx, id, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || all[0].ID != "a1" || all[0].Status != AskAnswered || all[0].Answer != "deny" ||
		all[0].Feedback != "use the test target" || all[0].By != "cli" || all[0].Answered.IsZero() {
		t.Errorf("asks = %+v", all)
	}
	// Deleting the session deletes its asks.
	if err := s.CloseSession(ctx, id, Completed); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, id); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM asks").Scan(&n); err != nil || n != 0 {
		t.Errorf("asks left after delete: %d (%v)", n, err)
	}
}

func TestAppendEventsAndMode(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	id := newSession(t, s).ID
	if n, err := s.LastEventSeq(ctx, id); err != nil || n != 0 {
		t.Fatalf("LastEventSeq of a new session = %d, %v", n, err)
	}
	evs := []Event{{Seq: 1, Type: "start", Data: json.RawMessage(`{"type":"start"}`)}, {Seq: 2, Type: "text"}}
	if err := s.AppendEvents(ctx, id, evs); err != nil {
		t.Fatal(err)
	}
	// A repeated Seq fails the whole batch.
	if err := s.AppendEvents(ctx, id, []Event{{Seq: 3, Type: "text"}, {Seq: 2, Type: "text"}}); err == nil {
		t.Error("a batch repeating a Seq: no error")
	}
	if err := s.AppendEvents(ctx, id, []Event{{Type: "text"}}); err == nil {
		t.Error("an event without Seq: no error")
	}
	got, err := s.Events(ctx, id, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Seq != 1 || got[1].Seq != 2 || string(got[0].Data) != `{"type":"start"}` || got[1].Data != nil {
		t.Errorf("events = %+v", got)
	}
	if n, err := s.LastEventSeq(ctx, id); err != nil || n != 2 {
		t.Errorf("LastEventSeq = %d, %v; want 2", n, err)
	}
	if err := s.SetMode(ctx, id, "plan"); err != nil {
		t.Fatal(err)
	}
	if ss, err := s.Get(ctx, id); err != nil || ss.Mode != "plan" {
		t.Errorf("mode after SetMode = %q, %v", ss.Mode, err)
	}
	if err := s.SetMode(ctx, "nope", "plan"); !errors.Is(err, ErrNotFound) {
		t.Errorf("SetMode of an unknown session: %v", err)
	}
}

// TestMigrateFromVersion1 opens a database written at schema version 1 (a
// session with a message in it): migration 2 adds the asks table and keeps
// what was there.
func TestMigrateFromVersion1(t *testing.T) {
	ctx := context.Background()
	s := openFromVersion(t, 1,
		`INSERT INTO sessions (id, agent, model, mode, cwd, status, created_at, updated_at) VALUES ('s1', 'build', 'm', 'default', '/', 'completed', 1, 1)`,
		`INSERT INTO messages VALUES ('s1', 1, 1, '{"role":"user","parts":[{"type":"text","text":"hi"}]}')`)
	ms, err := s.Messages(ctx, "s1")
	if err != nil || len(ms) != 1 || ms[0].TextOf() != "hi" {
		t.Fatalf("messages after migration = %+v, %v", ms, err)
	}
	if err := s.AddAsk(ctx, "s1", Ask{ID: "a", Body: json.RawMessage(`{}`)}); err != nil {
		t.Errorf("asks table after migration: %v", err)
	}
	var v int
	if err := s.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil || v != SchemaVersion {
		t.Errorf("user_version = %d, %v", v, err)
	}
}

// openFromVersion builds a store as schema version v left it (its first v
// migrations, recorded), runs rows in it, and opens it: Open migrates it
// to SchemaVersion. The store closes with the test.
func openFromVersion(t *testing.T, v int, rows ...string) *Store {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), fmt.Sprintf("v%d.db", v))
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		t.Fatal(err)
	}
	qs := append([]string{}, migrations[:v]...)
	qs = append(qs, `CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL) STRICT`)
	for i := 1; i <= v; i++ {
		qs = append(qs, fmt.Sprintf(`INSERT INTO schema_version VALUES (%d, 0)`, i))
	}
	qs = append(qs, fmt.Sprintf(`PRAGMA user_version = %d`, v))
	for _, q := range append(qs, rows...) {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
