package session

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/oceancode/oceancode/agent/message"
)

// Status is where a session stands.
type Status string

// Statuses. A session is running from Create (or Claim) until it is closed
// with one of the other three.
const (
	Running     Status = "running"
	Completed   Status = "completed"
	Failed      Status = "failed"
	Interrupted Status = "interrupted"
)

func (st Status) terminal() bool { return st == Completed || st == Failed || st == Interrupted }

// Meta describes a session when it is created.
type Meta struct {
	Agent string `json:"agent"`
	Model string `json:"model"`
	Mode  string `json:"mode"` // permission mode
	Cwd   string `json:"cwd"`
	Title string `json:"title,omitempty"`
}

// Session is a session's record, without its messages and events.
type Session struct {
	ID string `json:"id"`
	Meta
	Status   Status        `json:"status"`
	Created  time.Time     `json:"created_at"`
	Updated  time.Time     `json:"updated_at"` // creation or the last message
	Closed   time.Time     `json:"closed_at,omitzero"`
	Usage    message.Usage `json:"usage"`
	Messages int64         `json:"messages"` // how many messages are recorded
	// Holder is the process running the session, nil once it is closed.
	Holder *Holder `json:"holder,omitempty"`
}

// Holder is the process that holds a running session.
type Holder struct {
	PID int `json:"pid"`
	// Start identifies the start of that process, so a pid reused by a later
	// process is not taken for the holder: on Linux the boot id and the
	// process's start time in clock ticks ("linux:<boot id>:<ticks>"),
	// elsewhere the time it claimed the session ("claim:<unix ns>").
	Start     string    `json:"start"`
	Heartbeat time.Time `json:"heartbeat"`
	// Stale reports a heartbeat older than StaleAfter when the session was
	// read. It says nothing about whether the process is alive: a live but
	// stuck holder is stale and not an orphan (see Orphans).
	Stale bool `json:"stale,omitempty"`
}

// ListOptions filters List.
type ListOptions struct {
	Limit  int    // at most this many; 0 means all
	Status Status // only sessions with this status; "" means all
}

// Create records a new running session held by the calling process and
// returns it. Call Claim to get the Lease that keeps its heartbeat.
func (s *Store) Create(ctx context.Context, m Meta) (*Session, error) {
	now := time.Now()
	id := newID(now)
	me := self()
	n := now.UnixNano()
	_, err := s.db.ExecContext(ctx, `INSERT INTO sessions
	(id, agent, model, mode, cwd, title, status, created_at, updated_at, holder_pid, holder_start, heartbeat_at)
	VALUES (?, ?, ?, ?, ?, ?, 'running', ?, ?, ?, ?, ?)`,
		id, m.Agent, m.Model, m.Mode, m.Cwd, m.Title, n, n, me.pid, me.start, n)
	if err != nil {
		return nil, opErr("create", "session", err)
	}
	return &Session{
		ID: id, Meta: m, Status: Running,
		Created: fromNano(n), Updated: fromNano(n),
		Holder: &Holder{PID: me.pid, Start: me.start, Heartbeat: fromNano(n)},
	}, nil
}

const sessionColumns = `s.id, s.agent, s.model, s.mode, s.cwd, s.title, s.status,
	s.created_at, s.updated_at, s.closed_at,
	s.input_tokens, s.output_tokens, s.cache_read_tokens, s.cache_write_tokens,
	s.holder_pid, s.holder_start, s.heartbeat_at,
	(SELECT count(*) FROM messages m WHERE m.session_id = s.id)`

func scanSession(sc interface{ Scan(...any) error }, now time.Time) (*Session, error) {
	var (
		ss                Session
		closed, heartbeat sql.NullInt64
		created, updated  int64
		pid               sql.NullInt64
		start             sql.NullString
	)
	err := sc.Scan(&ss.ID, &ss.Agent, &ss.Model, &ss.Mode, &ss.Cwd, &ss.Title, &ss.Status,
		&created, &updated, &closed,
		&ss.Usage.InputTokens, &ss.Usage.OutputTokens, &ss.Usage.CacheReadTokens, &ss.Usage.CacheWriteTokens,
		&pid, &start, &heartbeat, &ss.Messages)
	if err != nil {
		return nil, err
	}
	ss.Created, ss.Updated, ss.Closed = fromNano(created), fromNano(updated), fromNullNano(closed)
	if pid.Valid {
		hb := fromNullNano(heartbeat)
		ss.Holder = &Holder{PID: int(pid.Int64), Start: start.String, Heartbeat: hb, Stale: now.Sub(hb) > StaleAfter}
	}
	return &ss, nil
}

// Get returns the session with the given id, or an error wrapping
// ErrNotFound.
func (s *Store) Get(ctx context.Context, id string) (*Session, error) {
	row := s.db.QueryRowContext(ctx, "SELECT "+sessionColumns+" FROM sessions s WHERE s.id = ?", id)
	ss, err := scanSession(row, time.Now())
	if err == sql.ErrNoRows {
		return nil, opErr("get", id, ErrNotFound)
	}
	if err != nil {
		return nil, opErr("get", id, err)
	}
	return ss, nil
}

// List returns sessions, newest first.
func (s *Store) List(ctx context.Context, o ListOptions) ([]*Session, error) {
	q := "SELECT " + sessionColumns + " FROM sessions s"
	var args []any
	if o.Status != "" {
		q += " WHERE s.status = ?"
		args = append(args, string(o.Status))
	}
	q += " ORDER BY s.id DESC"
	if o.Limit > 0 {
		q += " LIMIT ?"
		args = append(args, o.Limit)
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, opErr("list", "sessions", err)
	}
	defer rows.Close()
	now := time.Now()
	var out []*Session
	for rows.Next() {
		ss, err := scanSession(rows, now)
		if err != nil {
			return nil, opErr("list", "sessions", err)
		}
		out = append(out, ss)
	}
	if err := rows.Err(); err != nil {
		return nil, opErr("list", "sessions", err)
	}
	return out, nil
}

// CloseSession marks a session completed, failed or interrupted and drops
// its holder. A running session held by another live process is refused
// with ErrHeld: that process closes it through its Lease. Closing a closed
// session again replaces its status.
func (s *Store) CloseSession(ctx context.Context, id string, st Status) error {
	if !st.terminal() {
		return opErr("close", id, fmt.Errorf("invalid status %q (want completed, failed or interrupted)", st))
	}
	err := s.unlessHeld(ctx, id, func(tx *sql.Tx) error {
		n := nowNano()
		_, err := tx.ExecContext(ctx, `UPDATE sessions SET status = ?, closed_at = ?, updated_at = ?,
		holder_pid = NULL, holder_start = NULL, heartbeat_at = NULL WHERE id = ?`, string(st), n, n, id)
		return err
	})
	if err != nil {
		return opErr("close", id, err)
	}
	return nil
}

// Delete removes a session with its messages, events and approvals. A
// running session held by another live process is refused with ErrHeld.
func (s *Store) Delete(ctx context.Context, id string) error {
	err := s.unlessHeld(ctx, id, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "DELETE FROM sessions WHERE id = ?", id)
		return err
	})
	if err != nil {
		return opErr("delete", id, err)
	}
	return nil
}

// unlessHeld runs f in a write transaction unless the session is running
// and held by another live process.
func (s *Store) unlessHeld(ctx context.Context, id string, f func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer rollback(tx)
	var (
		status string
		pid    sql.NullInt64
		start  sql.NullString
	)
	err = tx.QueryRowContext(ctx, "SELECT status, holder_pid, holder_start FROM sessions WHERE id = ?", id).Scan(&status, &pid, &start)
	if err == sql.ErrNoRows {
		return ErrNotFound
	}
	if err != nil {
		return err
	}
	if Status(status) == Running && pid.Valid && heldByOther(int(pid.Int64), start.String) {
		return fmt.Errorf("%w (pid %d)", ErrHeld, pid.Int64)
	}
	if err := f(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// AddUsage adds u to the session's accumulated token usage (returned by Get).
func (s *Store) AddUsage(ctx context.Context, id string, u message.Usage) error {
	res, err := s.db.ExecContext(ctx, `UPDATE sessions SET
	input_tokens = input_tokens + ?, output_tokens = output_tokens + ?,
	cache_read_tokens = cache_read_tokens + ?, cache_write_tokens = cache_write_tokens + ?
	WHERE id = ?`, u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens, id)
	if err != nil {
		return opErr("add usage", id, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return opErr("add usage", id, err)
	} else if n == 0 {
		return opErr("add usage", id, ErrNotFound)
	}
	return nil
}

// Approval is a permission the user granted "always" for the rest of a
// session: the permission key (a tool or capability), the pattern it was
// granted for and, for an MCP tool, the server.
type Approval struct {
	Key     string `json:"key"`
	Pattern string `json:"pattern"`
	Server  string `json:"server,omitempty"`
}

// AddApproval records an approval given "always". Recording the same
// approval twice keeps one.
func (s *Store) AddApproval(ctx context.Context, id string, a Approval) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO approvals (session_id, key, pattern, server, at)
	VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`, id, a.Key, a.Pattern, a.Server, nowNano())
	if isForeignKey(err) {
		err = ErrNotFound
	}
	if err != nil {
		return opErr("add approval", id, err)
	}
	return nil
}

// Approvals returns a session's approvals in the order they were given.
func (s *Store) Approvals(ctx context.Context, id string) ([]Approval, error) {
	out, err := s.approvals(ctx, s.db, id)
	if err != nil {
		return nil, opErr("read approvals", id, err)
	}
	return out, nil
}

// querier is what reads need from *sql.DB or *sql.Tx.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// The reads below join from sessions so one query tells an empty session
// from a missing one: no row means no session, one row of NULLs means no
// records yet.

func (s *Store) approvals(ctx context.Context, q querier, id string) ([]Approval, error) {
	rows, err := q.QueryContext(ctx, `SELECT a.key, a.pattern, a.server FROM sessions s
	LEFT JOIN approvals a ON a.session_id = s.id WHERE s.id = ? ORDER BY a.rowid`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	found := false
	out := []Approval{}
	for rows.Next() {
		found = true
		var k, p, sv sql.NullString
		if err := rows.Scan(&k, &p, &sv); err != nil {
			return nil, err
		}
		if k.Valid {
			out = append(out, Approval{Key: k.String, Pattern: p.String, Server: sv.String})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if !found {
		return nil, ErrNotFound
	}
	return out, nil
}
