package session

import (
	"context"
	"os"
	"strconv"
)

// Stats is the store's health, for `oceancode doctor`.
type Stats struct {
	Path          string         `json:"path"`
	Size          int64          `json:"size"` // bytes: the database plus its -wal and -shm files
	JournalMode   string         `json:"journal_mode"`
	SchemaVersion int            `json:"schema_version"`
	Sessions      int            `json:"sessions"`
	ByStatus      map[Status]int `json:"by_status"`
}

// Stats reports the database's path, size, journal mode, schema version and
// session counts by status. It reads no message or event.
func (s *Store) Stats(ctx context.Context) (*Stats, error) {
	st := &Stats{Path: s.path, ByStatus: map[Status]int{}}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		// Stat, never open: closing a descriptor of the database file would
		// drop SQLite's locks in this process.
		if fi, err := os.Stat(s.path + suffix); err == nil {
			st.Size += fi.Size()
		}
	}
	if err := s.db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&st.JournalMode); err != nil {
		return nil, opErr("stats", s.path, err)
	}
	if err := s.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&st.SchemaVersion); err != nil {
		return nil, opErr("stats", s.path, err)
	}
	rows, err := s.db.QueryContext(ctx, "SELECT status, count(*) FROM sessions GROUP BY status")
	if err != nil {
		return nil, opErr("stats", s.path, err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			status string
			n      int
		)
		if err := rows.Scan(&status, &n); err != nil {
			return nil, opErr("stats", s.path, err)
		}
		st.ByStatus[Status(status)] = n
		st.Sessions += n
	}
	if err := rows.Err(); err != nil {
		return nil, opErr("stats", s.path, err)
	}
	return st, nil
}

// Check runs SQLite's integrity check over the whole file. It reads every
// page, so doctor runs it on request rather than on every start.
func (s *Store) Check(ctx context.Context) error {
	rows, err := s.db.QueryContext(ctx, "PRAGMA integrity_check")
	if err != nil {
		return opErr("check", s.path, err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return opErr("check", s.path, err)
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return opErr("check", s.path, err)
	}
	if len(problems) > 0 {
		return opErr("check", s.path, &IntegrityError{Problems: problems})
	}
	return nil
}

// IntegrityError lists what PRAGMA integrity_check found wrong.
type IntegrityError struct {
	Problems []string
}

func (e *IntegrityError) Error() string {
	if len(e.Problems) == 1 {
		return "integrity check: " + e.Problems[0]
	}
	return "integrity check: " + e.Problems[0] + " (and " + strconv.Itoa(len(e.Problems)-1) + " more)"
}
