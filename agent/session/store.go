package session

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Sentinel errors callers branch on. Errors returned by this package read
// "session: <operation> <subject>: <cause>" and wrap these where they apply.
var (
	// ErrNotFound: no session has the given id.
	ErrNotFound = errors.New("session not found")
	// ErrHeld: another live process holds the session.
	ErrHeld = errors.New("held by another live process")
	// ErrLeaseLost: the lease no longer holds the session (another process
	// claimed it, or it was closed or deleted).
	ErrLeaseLost = errors.New("lease lost")
	// ErrSchemaTooNew: the database was written by a newer oceancode.
	ErrSchemaTooNew = errors.New("database schema is newer than this oceancode supports")
)

// busyTimeout bounds how long a statement waits for another process's write
// lock. Writes are single short transactions, so a wait this long means
// something is wrong with the other process.
const busyTimeout = 10 * time.Second

// Store is an open session database. It is safe for concurrent use by
// several goroutines; several processes may each open their own Store on the
// same file.
type Store struct {
	db   *sql.DB
	path string

	// The hot appends, prepared on first use (not in Open, which stays
	// cheap for commands that never append).
	appendMessage, appendEvent, appendEventSeq lazyStmt
}

// lazyStmt is a statement prepared on first use. A failed prepare is not
// remembered, so a cancelled context does not poison it.
type lazyStmt struct {
	mu   sync.Mutex
	stmt *sql.Stmt
}

func (l *lazyStmt) get(ctx context.Context, db *sql.DB, query string) (*sql.Stmt, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stmt == nil {
		st, err := db.PrepareContext(ctx, query)
		if err != nil {
			return nil, err
		}
		l.stmt = st
	}
	return l.stmt, nil
}

func (l *lazyStmt) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stmt != nil {
		l.stmt.Close()
		l.stmt = nil
	}
}

// Open opens (creating if needed) the session database at path. A missing
// directory is created with mode 0700 and a missing file with mode 0600; an
// existing file readable by others is narrowed to 0600. The schema is
// migrated to the current version in one transaction; a database written by
// a newer oceancode is refused with ErrSchemaTooNew.
func Open(ctx context.Context, path string) (*Store, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, opErr("open", path, err)
	}
	if err := prepareFile(abs); err != nil {
		return nil, opErr("open", abs, err)
	}
	db, err := sql.Open("sqlite", dsn(abs))
	if err != nil {
		return nil, opErr("open", abs, err)
	}
	// Writers serialise on SQLite's lock anyway; a small pool lets readers
	// run beside a writer without growing without bound.
	db.SetMaxOpenConns(4)
	db.SetMaxIdleConns(4)
	s := &Store{db: db, path: abs}
	// The first connection to a new file switches it to WAL, which needs
	// the file to itself; SQLite reports SQLITE_BUSY for that without
	// waiting on busy_timeout. Several processes opening a new store at
	// once (the first runs on a machine) retry briefly instead of failing.
	for attempt := 0; ; attempt++ {
		err = s.migrate(ctx)
		if err == nil {
			return s, nil
		}
		if attempt >= 40 || !isBusy(err) || ctx.Err() != nil {
			db.Close()
			return nil, opErr("open", abs, err)
		}
		time.Sleep(time.Duration(5+attempt*5) * time.Millisecond)
	}
}

// isBusy reports an SQLITE_BUSY or SQLITE_LOCKED error.
func isBusy(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "SQLITE_BUSY") || strings.Contains(msg, "SQLITE_LOCKED") || strings.Contains(msg, "database is locked")
}

// Path is the database file's absolute path.
func (s *Store) Path() string { return s.path }

// Close closes the database. It does not change any session; a session this
// process held stays running until its Lease is released.
func (s *Store) Close() error {
	s.appendMessage.close()
	s.appendEvent.close()
	s.appendEventSeq.close()
	if err := s.db.Close(); err != nil {
		return opErr("close", s.path, err)
	}
	return nil
}

// dsn builds the connection string: a file: URI (so any byte in the path is
// escaped rather than taken for a query) with the per-connection settings.
// synchronous=NORMAL in WAL mode makes each commit durable against a crash
// of the process (the case this store is built for) without an fsync per
// append; a power cut may lose the last commits but never corrupts the file.
func dsn(abs string) string {
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // C:/x → /C:/x
	}
	p = strings.NewReplacer("%", "%25", "?", "%3F", "#", "%23").Replace(p)
	return "file:" + p +
		"?_pragma=busy_timeout(" + fmt.Sprint(busyTimeout.Milliseconds()) + ")" +
		"&_pragma=journal_mode(WAL)" +
		"&_pragma=synchronous(NORMAL)" +
		"&_pragma=foreign_keys(1)" +
		"&_txlock=immediate"
}

// prepareFile makes the directory (0700) and the file (0600) before SQLite
// opens it, since SQLite would create the file with the umask's mode; the
// -wal and -shm files take the database file's mode. The file is never
// opened once it exists: closing any descriptor of a database file drops the
// POSIX locks SQLite holds on it elsewhere in the process.
func prepareFile(abs string) error {
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(abs, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		return f.Close()
	}
	if !errors.Is(err, fs.ErrExist) {
		return err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("not a regular file")
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return os.Chmod(abs, 0o600)
	}
	return nil
}

func opErr(op, subject string, err error) error {
	return fmt.Errorf("session: %s %s: %w", op, subject, err)
}

// sqliteCode is the extended result code of a SQLite error, or 0.
func sqliteCode(err error) int {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code()
	}
	return 0
}

func isForeignKey(err error) bool {
	return sqliteCode(err) == sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY
}

// nowNano is the clock, in Unix nanoseconds as stored.
func nowNano() int64 { return time.Now().UnixNano() }

func fromNano(n int64) time.Time { return time.Unix(0, n).UTC() }

func fromNullNano(n sql.NullInt64) time.Time {
	if !n.Valid {
		return time.Time{}
	}
	return fromNano(n.Int64)
}

// rollback ends tx after a failed step; its own error adds nothing.
func rollback(tx *sql.Tx) { _ = tx.Rollback() }
