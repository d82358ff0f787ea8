package session

import (
	"context"
	"fmt"
)

// migrations[i] takes the schema from version i to version i+1. A migration
// is never edited once released; a change is a new entry.
//
// The schema_version table is the record (one row per applied version, with
// when); PRAGMA user_version mirrors its highest version inside the same
// transaction, so the check on every Open is one read of the file header.
var migrations = []string{
	// 1: sessions, messages, events, approvals.
	`
CREATE TABLE sessions (
	id            TEXT PRIMARY KEY,
	agent         TEXT NOT NULL,
	model         TEXT NOT NULL,
	mode          TEXT NOT NULL,
	cwd           TEXT NOT NULL,
	title         TEXT NOT NULL DEFAULT '',
	status        TEXT NOT NULL CHECK (status IN ('running', 'completed', 'failed', 'interrupted')),
	created_at    INTEGER NOT NULL,
	updated_at    INTEGER NOT NULL,
	closed_at     INTEGER,
	input_tokens       INTEGER NOT NULL DEFAULT 0,
	output_tokens      INTEGER NOT NULL DEFAULT 0,
	cache_read_tokens  INTEGER NOT NULL DEFAULT 0,
	cache_write_tokens INTEGER NOT NULL DEFAULT 0,
	holder_pid    INTEGER,
	holder_start  TEXT,
	heartbeat_at  INTEGER
) STRICT;
CREATE INDEX sessions_status ON sessions (status);

CREATE TABLE messages (
	session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
	seq        INTEGER NOT NULL,
	at         INTEGER NOT NULL,
	body       TEXT NOT NULL,
	PRIMARY KEY (session_id, seq)
) STRICT;
CREATE TRIGGER messages_touch AFTER INSERT ON messages BEGIN
	UPDATE sessions SET updated_at = NEW.at WHERE id = NEW.session_id;
END;

CREATE TABLE events (
	session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
	seq        INTEGER NOT NULL,
	at         INTEGER NOT NULL,
	type       TEXT NOT NULL,
	data       BLOB,
	PRIMARY KEY (session_id, seq)
) STRICT;

CREATE TABLE approvals (
	session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
	key        TEXT NOT NULL,
	pattern    TEXT NOT NULL,
	server     TEXT NOT NULL,
	at         INTEGER NOT NULL,
	UNIQUE (session_id, key, pattern, server)
) STRICT;
`,
	// 2: pending asks (permission asks and questions waiting for a client's
	// answer), kept so they survive a restart of the process.
	`
CREATE TABLE asks (
	session_id   TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
	id           TEXT NOT NULL,
	call_id      TEXT NOT NULL,
	input_digest TEXT NOT NULL,
	body         TEXT NOT NULL,
	status       TEXT NOT NULL CHECK (status IN ('pending', 'answered')),
	answer       TEXT NOT NULL DEFAULT '',
	feedback     TEXT NOT NULL DEFAULT '',
	answered_by  TEXT NOT NULL DEFAULT '',
	created_at   INTEGER NOT NULL,
	answered_at  INTEGER,
	PRIMARY KEY (session_id, id)
) STRICT;
`,
	// 3: the Jev advisor's advice, one row per advised decision, with the
	// user's answer to the advised ask as its label (advice.go).
	`
CREATE TABLE advice (
	session_id   TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
	seq          INTEGER NOT NULL,
	call_id      TEXT NOT NULL,
	key          TEXT NOT NULL,
	command      TEXT NOT NULL,
	status       TEXT NOT NULL,
	mode         TEXT NOT NULL,
	scores       TEXT,
	reasons      TEXT NOT NULL DEFAULT '[]',
	injection    INTEGER NOT NULL DEFAULT 0,
	cached       INTEGER NOT NULL DEFAULT 0,
	latency_ms   INTEGER NOT NULL DEFAULT 0,
	tokens       INTEGER NOT NULL DEFAULT 0,
	acted        INTEGER NOT NULL DEFAULT 0,
	label        TEXT NOT NULL DEFAULT '',
	feedback     TEXT NOT NULL DEFAULT '',
	at           INTEGER NOT NULL,
	labelled_at  INTEGER,
	PRIMARY KEY (session_id, seq)
) STRICT;
CREATE INDEX advice_call ON advice (session_id, call_id);
`,
}

// SchemaVersion is the schema version this package writes: len(migrations).
const SchemaVersion = 3

// migrate brings the database to SchemaVersion. The common case, an
// up-to-date database, costs one PRAGMA read. Otherwise the migrations run
// in one IMMEDIATE transaction that re-reads the version first, so two
// processes opening a new file at once migrate it once.
func (s *Store) migrate(ctx context.Context) error {
	var v int
	if err := s.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if v == SchemaVersion {
		return nil
	}
	if v > SchemaVersion {
		return fmt.Errorf("%w (database %d, supported %d)", ErrSchemaTooNew, v, SchemaVersion)
	}
	tx, err := s.db.BeginTx(ctx, nil) // BEGIN IMMEDIATE (see dsn)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer rollback(tx)
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (
	version    INTEGER PRIMARY KEY,
	applied_at INTEGER NOT NULL
) STRICT`); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if err := tx.QueryRowContext(ctx, "SELECT coalesce(max(version), 0) FROM schema_version").Scan(&v); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if v > SchemaVersion {
		return fmt.Errorf("%w (database %d, supported %d)", ErrSchemaTooNew, v, SchemaVersion)
	}
	for i := v; i < SchemaVersion; i++ {
		if _, err := tx.ExecContext(ctx, migrations[i]); err != nil {
			return fmt.Errorf("migrate to version %d: %w", i+1, err)
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO schema_version (version, applied_at) VALUES (?, ?)", i+1, nowNano()); err != nil {
			return fmt.Errorf("migrate to version %d: %w", i+1, err)
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", SchemaVersion)); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	return nil
}
