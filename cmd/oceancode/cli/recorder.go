package cli

import (
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
}

// storeFuture opens the session store in the background while the run
// resolves its configuration: both are on the path to the first model
// request, and they do not depend on each other.
type storeFuture struct {
	done chan struct{}
	st   *session.Store
	err  error
}

func openStoreAsync(ctx context.Context, app *App) *storeFuture {
	f := &storeFuture{done: make(chan struct{})}
	path := sessionsDB(app)
	go func() {
		defer close(f.done)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			f.err = fmt.Errorf("open sessions %s: %w", path, err)
			return
		}
		f.st, f.err = session.Open(ctx, path)
	}()
	return f
}

// get waits for the store.
func (f *storeFuture) get() (*session.Store, error) {
	<-f.done
	return f.st, f.err
}

// discard closes the store if the run stops before using it.
func (f *storeFuture) discard() {
	if st, err := f.get(); err == nil {
		st.Close()
	}
}

// openRecorder creates the run's session, or resumes --session.
func openRecorder(ctx context.Context, store *storeFuture, o runOptions, cfg agent.Config) (*recorder, error) {
	st, err := store.get()
	if err != nil {
		return nil, err
	}
	r := &recorder{store: st, approvals: &permission.Approvals{}, stop: make(chan struct{}), done: make(chan struct{})}
	if o.session != "" {
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
	} else {
		s, err := st.Create(ctx, session.Meta{Agent: cfg.Agent, Model: cfg.Model, Mode: string(cfg.Gate.Engine().Mode()), Cwd: cfg.Env.Cwd})
		if err != nil {
			st.Close()
			return nil, err
		}
		r.id = s.ID
		if r.lease, err = st.Claim(ctx, s.ID); err != nil {
			st.Close()
			return nil, err
		}
	}
	go r.beat()
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
	r.mu.Lock()
	defer r.mu.Unlock()
	data, _ := json.Marshal(e)
	if _, err := r.store.AppendEvent(context.Background(), r.id, session.Event{Type: string(e.Type), Data: data, At: e.Time}); err != nil && r.err == nil {
		r.err = err
	}
	if e.Type == agent.EventUsage && e.Usage != nil {
		_ = r.store.AddUsage(context.Background(), r.id, *e.Usage)
	}
}

// message commits one message of the conversation as soon as the loop
// completes it.
func (r *recorder) message(m message.Message) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, err := r.store.AppendMessage(context.Background(), r.id, m); err != nil && r.err == nil {
		r.err = err
	}
}

func (r *recorder) finish(res agent.Result, err error) {
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

func (r *recorder) close() { r.store.Close() }
