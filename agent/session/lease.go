package session

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Heartbeat timing. The holder of a Lease calls Beat every HeartbeatInterval;
// a heartbeat older than StaleAfter marks the holder stale.
const (
	HeartbeatInterval = 5 * time.Second
	StaleAfter        = 6 * HeartbeatInterval
)

// Lease is this process's hold on a running session.
type Lease struct {
	s     *Store
	id    string
	pid   int
	start string
}

// ID is the held session's id.
func (l *Lease) ID() string { return l.id }

// Claim makes the calling process the holder of a session and marks it
// running: a new session (Create already made this process its holder), a
// session being resumed after it was closed, or an orphan. A session held by
// another live process is refused with ErrHeld.
func (s *Store) Claim(ctx context.Context, id string) (*Lease, error) {
	me := self()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, opErr("claim", id, err)
	}
	defer rollback(tx)
	var (
		status string
		pid    sql.NullInt64
		start  sql.NullString
	)
	err = tx.QueryRowContext(ctx, "SELECT status, holder_pid, holder_start FROM sessions WHERE id = ?", id).Scan(&status, &pid, &start)
	if err == sql.ErrNoRows {
		return nil, opErr("claim", id, ErrNotFound)
	}
	if err != nil {
		return nil, opErr("claim", id, err)
	}
	if Status(status) == Running && pid.Valid && heldByOther(int(pid.Int64), start.String) {
		return nil, opErr("claim", id, fmt.Errorf("%w (pid %d)", ErrHeld, pid.Int64))
	}
	n := nowNano()
	if _, err := tx.ExecContext(ctx, `UPDATE sessions SET status = 'running', closed_at = NULL,
	holder_pid = ?, holder_start = ?, heartbeat_at = ? WHERE id = ?`, me.pid, me.start, n, id); err != nil {
		return nil, opErr("claim", id, err)
	}
	if err := tx.Commit(); err != nil {
		return nil, opErr("claim", id, err)
	}
	return &Lease{s: s, id: id, pid: me.pid, start: me.start}, nil
}

// Beat records a heartbeat. It fails with ErrLeaseLost once this process no
// longer holds the session.
func (l *Lease) Beat(ctx context.Context) error {
	res, err := l.s.db.ExecContext(ctx, `UPDATE sessions SET heartbeat_at = ?
	WHERE id = ? AND status = 'running' AND holder_pid = ? AND holder_start = ?`, nowNano(), l.id, l.pid, l.start)
	if err == nil {
		err = l.check(res)
	}
	if err != nil {
		return opErr("beat", l.id, err)
	}
	return nil
}

// Release closes the session with a terminal status and gives up the hold.
// It fails with ErrLeaseLost if this process no longer holds the session.
func (l *Lease) Release(ctx context.Context, st Status) error {
	if !st.terminal() {
		return opErr("release", l.id, fmt.Errorf("invalid status %q (want completed, failed or interrupted)", st))
	}
	n := nowNano()
	res, err := l.s.db.ExecContext(ctx, `UPDATE sessions SET status = ?, closed_at = ?, updated_at = ?,
	holder_pid = NULL, holder_start = NULL, heartbeat_at = NULL
	WHERE id = ? AND status = 'running' AND holder_pid = ? AND holder_start = ?`, string(st), n, n, l.id, l.pid, l.start)
	if err == nil {
		err = l.check(res)
	}
	if err != nil {
		return opErr("release", l.id, err)
	}
	return nil
}

func (l *Lease) check(res sql.Result) error {
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return ErrLeaseLost
	}
	return nil
}

// Orphan is a session still marked running whose holder process is gone.
type Orphan struct {
	*Session
	// Reason says how the holder was found gone.
	Reason string `json:"reason"`
}

// Orphans returns the running sessions whose holder process is gone: its pid
// is not running, or runs a different process than the one that claimed the
// session. A session whose holder is alive is never an orphan, however old
// its heartbeat (Holder.Stale says so instead). Orphans are listed newest
// first; resuming one is a Claim, closing one is CloseSession.
func (s *Store) Orphans(ctx context.Context) ([]Orphan, error) {
	running, err := s.List(ctx, ListOptions{Status: Running})
	if err != nil {
		return nil, opErr("find", "orphans", err)
	}
	var out []Orphan
	for _, ss := range running {
		h := ss.Holder
		switch {
		case h == nil:
			out = append(out, Orphan{ss, "no process holds it"})
		case !alive(h.PID, h.Start):
			out = append(out, Orphan{ss, fmt.Sprintf("process %d is gone", h.PID)})
		}
	}
	return out, nil
}
