package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/message"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/session"
	"github.com/oceancode/oceancode/internal/exitcode"
	"github.com/oceancode/oceancode/internal/secretenv"
	"github.com/oceancode/oceancode/layers"
)

// sessionsDB is the session store's path in the state dir.
func sessionsDB(app *App) string {
	return filepath.Join(layers.StateDir(app.Getenv), "sessions.db")
}

// crashDir is where crash reports go.
func crashDir(app *App) string {
	return filepath.Join(layers.StateDir(app.Getenv), "crashes")
}

// recorder writes a run into the session store as it happens: every message
// and event is committed when it is produced, so a crash loses nothing
// already recorded, and a heartbeat marks the session as held.
//
// A new session is created in the background while the first model request
// is under way (startRecorder): opening SQLite and the model client's
// start-up would otherwise compete for the CPU on the path to that request.
// Until the session exists, writes wait in order in pending; a tool call
// waits for it, so nothing a tool does happens before the session is on disk.
type recorder struct {
	store     *session.Store
	lease     *session.Lease
	id        string
	history   []message.Message
	approvals *permission.Approvals
	mu        sync.Mutex
	stop      chan struct{}
	done      chan struct{}
	err       error

	// ready is closed (under mu) once the session exists or openErr says
	// why not; until then writes wait in pending.
	ready    chan struct{}
	openErr  error
	pending  []func()
	kick     chan struct{} // closed when the session is needed now (the run ends)
	kickOnce sync.Once
}

// newRecorderState returns a recorder whose session is not open yet.
func newRecorderState() *recorder {
	return &recorder{approvals: &permission.Approvals{}, stop: make(chan struct{}), done: make(chan struct{}),
		ready: make(chan struct{}), kick: make(chan struct{})}
}

// opened marks the session open (err == nil) or failed, and replays the
// writes made before, in order.
func (r *recorder) opened(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.openErr = err
	if err == nil {
		for _, w := range r.pending {
			w()
		}
		go r.beat()
	}
	r.pending = nil
	close(r.ready)
}

// isOpen reports whether the session has been created (or has failed to be);
// it never waits.
func (r *recorder) isOpen() bool {
	select {
	case <-r.ready:
		return true
	default:
		return false
	}
}

// write runs w against the store now, or queues it until the session
// exists; barrier waits for the session first.
func (r *recorder) write(barrier bool, w func()) {
	if barrier {
		r.wait()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case !r.isOpen():
		r.pending = append(r.pending, w)
	case r.openErr == nil:
		w()
	}
}

// wait asks for the session now and waits until it exists or failed.
func (r *recorder) wait() {
	r.kickOnce.Do(func() { close(r.kick) })
	<-r.ready
}

// sessionID waits for the session and returns its ID ("" if it could not be
// created).
func (r *recorder) sessionID() string {
	r.wait()
	return r.id
}

// currentID returns the session's ID if it exists yet, without waiting or
// locking (Recover calls it during a panic, perhaps with mu held).
func (r *recorder) currentID() string {
	if r.isOpen() && r.openErr == nil {
		return r.id
	}
	return ""
}

// startRecorder creates a new session once after is closed (the first model
// request is on the wire), the run is interrupted or ends, without blocking
// the caller; fail is called if it cannot be created, to stop the run.
func startRecorder(ctx context.Context, app *App, cfg agent.Config, after <-chan struct{}, fail func(error)) *recorder {
	r := newRecorderState()
	meta := session.Meta{Agent: cfg.Agent, Model: cfg.Model, Mode: string(cfg.Gate.Engine().Mode()), Cwd: cfg.Env.Cwd}
	go func() {
		select {
		case <-after:
		case <-ctx.Done():
		case <-r.kick:
		}
		// An interrupted run is still recorded, as interrupted.
		ctx := context.WithoutCancel(ctx)
		err := r.create(ctx, app, meta)
		if err != nil {
			fail(err)
		}
		r.opened(err)
	}()
	return r
}

func (r *recorder) create(ctx context.Context, app *App, meta session.Meta) error {
	st, err := openStore(ctx, app)
	if err != nil {
		return err
	}
	s, err := st.Create(ctx, meta)
	if err == nil {
		r.lease, err = st.Claim(ctx, s.ID)
	}
	if err != nil {
		st.Close()
		return fmt.Errorf("record session: %w", err)
	}
	r.store, r.id = st, s.ID
	return nil
}

// storeFuture opens the session store in the background while a resumed run
// resolves its configuration: both are on the path to the first model
// request, and they do not depend on each other.
type storeFuture struct {
	done chan struct{}
	st   *session.Store
	err  error
}

func openStoreAsync(ctx context.Context, app *App) *storeFuture {
	f := &storeFuture{done: make(chan struct{})}
	go func() {
		defer close(f.done)
		f.st, f.err = openStore(ctx, app)
	}()
	return f
}

// openStore opens (creating if need be) the session store in the state dir.
func openStore(ctx context.Context, app *App) (*session.Store, error) {
	path := sessionsDB(app)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("open sessions %s: %w", path, err)
	}
	return session.Open(ctx, path)
}

// get waits for the store.
func (f *storeFuture) get() (*session.Store, error) {
	<-f.done
	return f.st, f.err
}

// discard closes the store if the run stops before using it.
func (f *storeFuture) discard() {
	if f == nil {
		return
	}
	if st, err := f.get(); err == nil {
		st.Close()
	}
}

// resumeRecorder claims --session and reads its history and approvals, all
// before the first model request (which needs them).
func resumeRecorder(ctx context.Context, store *storeFuture, o runOptions) (*recorder, error) {
	st, err := store.get()
	if err != nil {
		return nil, err
	}
	r := newRecorderState()
	r.store = st
	if _, err := st.Get(ctx, o.session); errors.Is(err, session.ErrNotFound) {
		st.Close()
		return nil, exitcode.With(exitcode.Usage, fmt.Errorf("--session %s: no such session ('oceancode session list' shows them)", o.session))
	}
	lease, err := st.Claim(ctx, o.session)
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("resume session %s: %w", o.session, err)
	}
	r.lease, r.id = lease, o.session
	if r.history, err = st.Messages(ctx, o.session); err != nil {
		st.Close()
		return nil, err
	}
	aps, err := st.Approvals(ctx, o.session)
	if err != nil {
		st.Close()
		return nil, err
	}
	var list []permission.Approval
	for _, a := range aps {
		list = append(list, permission.Approval{Key: a.Key, Pattern: a.Pattern, Server: a.Server == "server"})
	}
	r.approvals.Restore(list)
	r.opened(nil)
	return r, nil
}

func (r *recorder) beat() {
	defer close(r.done)
	t := time.NewTicker(5 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-t.C:
			_ = r.lease.Beat(context.Background())
		}
	}
}

// event records one event, and with it every message the loop completed.
func (r *recorder) event(e agent.Event) {
	if e.Type == agent.EventText || e.Type == agent.EventRetry {
		return // deltas are folded into the assistant message
	}
	e.Text = secretenv.Redact(e.Text)
	// As the stream-json writer: ">" stays ">" in the record.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(e)
	data := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	// A tool call waits for the session: nothing a tool does may happen
	// before the run is recorded.
	r.write(e.Type == agent.EventToolCall, func() {
		if _, err := r.store.AppendEvent(context.Background(), r.id, session.Event{Type: string(e.Type), Data: data, At: e.Time}); err != nil && r.err == nil {
			r.err = err
		}
		if e.Type == agent.EventUsage && e.Usage != nil {
			_ = r.store.AddUsage(context.Background(), r.id, *e.Usage)
		}
	})
}

// redactMessage returns m with its texts redacted as the session store
// keeps them: the values of the secrets oceancode holds and
// credential-shaped strings (tool results are redacted already, before the
// model saw them).
func redactMessage(m message.Message) message.Message {
	parts := make([]message.Part, len(m.Parts))
	for i, p := range m.Parts {
		p.Text = secretenv.Redact(p.Text)
		if p.ToolResult != nil {
			tr := *p.ToolResult
			tr.Content = secretenv.Redact(tr.Content)
			p.ToolResult = &tr
		}
		parts[i] = p
	}
	m.Parts = parts
	return m
}

// message commits one message of the conversation as soon as the loop
// completes it.
func (r *recorder) message(m message.Message) {
	m = redactMessage(m)
	r.write(false, func() {
		if _, err := r.store.AppendMessage(context.Background(), r.id, m); err != nil && r.err == nil {
			r.err = err
		}
	})
}

func (r *recorder) finish(res agent.Result, err error) {
	if r.wait(); r.openErr != nil {
		return
	}
	for _, a := range r.approvals.List() {
		sa := session.Approval{Key: a.Key, Pattern: a.Pattern}
		if a.Server {
			sa.Server = "server" // a whole MCP server (Pattern is its name)
		}
		_ = r.store.AddApproval(context.Background(), r.id, sa)
	}
	st := session.Completed
	switch {
	case err != nil && (res.StopReason == "cancelled" || res.StopReason == "timeout"):
		st = session.Interrupted
	case err != nil:
		st = session.Failed
	}
	close(r.stop)
	<-r.done
	_ = r.lease.Release(context.Background(), st)
}

func (r *recorder) close() {
	if r.wait(); r.store != nil {
		r.store.Close()
	}
}
