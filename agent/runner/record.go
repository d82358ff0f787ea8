package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/message"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/session"
)

// record writes a session into the store off the event path: the session's
// goroutines queue writes in order, one writer goroutine commits them
// (consecutive events in one transaction). Until the record exists the
// writes wait in the queue; a tool call waits for it (need).
type record struct {
	s     *Session
	store *session.Store
	own   bool // opened through OpenStore: closed with the session
	id    string
	lease *session.Lease
	err   error // why the record could not be created; set before readyCh closes

	readyCh   chan struct{}
	readyOnce sync.Once
	kick      chan struct{}
	kickOnce  sync.Once
	persisted atomic.Int64 // the highest Seq the writer has handled

	mu       sync.Mutex
	ops      []op
	wake     chan struct{}
	urgent   chan struct{} // a write that should not wait for more deltas
	closing  bool
	frozen   bool
	writeErr error
	done     chan struct{} // the writer has exited
	beatStop chan struct{}
	beatDone chan struct{}
}

// op is one queued write: an event, or another write.
type op struct {
	ev *session.Event
	fn func(ctx context.Context, st *session.Store, id string) error
	// keep is recorded even after freeze (the approvals given).
	keep bool
	// committed, if set, is closed once the write is done (or dropped):
	// a caller that must not go on before the store holds it waits on it.
	committed chan struct{}
}

// settle closes o.committed, if it has one.
func (o op) settle() {
	if o.committed != nil {
		close(o.committed)
	}
}

func newRecord(s *Session) *record {
	r := &record{s: s, readyCh: make(chan struct{}), kick: make(chan struct{}), wake: make(chan struct{}, 1), urgent: make(chan struct{}, 1),
		done: make(chan struct{}), beatStop: make(chan struct{}), beatDone: make(chan struct{})}
	go r.writer()
	return r
}

// open returns the store, opening it through OpenStore the first time.
func (r *record) open(ctx context.Context) (*session.Store, error) {
	if r.store != nil {
		return r.store, nil
	}
	if r.s.o.Store != nil {
		r.store = r.s.o.Store
		return r.store, nil
	}
	st, err := r.s.o.OpenStore(ctx)
	if err != nil {
		return nil, err
	}
	r.store, r.own = st, true
	return st, nil
}

// create makes a new session's record once after is closed (or the record
// is needed now, or ctx ends: an interrupted session is still recorded).
// If it cannot be made, the running turn is stopped with the reason.
func (r *record) create(ctx context.Context, meta session.Meta, after <-chan struct{}) {
	if after != nil {
		select {
		case <-after:
		case <-r.kick:
		case <-ctx.Done():
		}
	}
	ctx = context.WithoutCancel(ctx)
	err := func() error {
		st, err := r.open(ctx)
		if err != nil {
			return err
		}
		rs, err := st.Create(ctx, meta)
		if err == nil {
			r.id = rs.ID
			r.lease, err = st.Claim(ctx, rs.ID)
		}
		if err != nil {
			return fmt.Errorf("record session: %w", err)
		}
		return nil
	}()
	if err != nil {
		r.err = err
		if r.own && r.store != nil {
			r.store.Close()
			r.store = nil
		}
		r.s.recordFailed(err)
	}
	r.ready()
}

// recordFailed stops the running turn: a session that cannot be recorded
// does not go on.
func (s *Session) recordFailed(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancelTurn != nil {
		s.cancelTurn(err)
	}
}

// ready marks the record as made (or failed: err) and lets the writes go.
func (r *record) ready() {
	r.readyOnce.Do(func() {
		if r.err == nil {
			go r.beat()
		} else {
			close(r.beatDone)
		}
		close(r.readyCh)
	})
}

// abandon gives up a record that was never made (a resume that failed).
func (r *record) abandon() {
	if r.err == nil {
		r.err = fmt.Errorf("runner: session not resumed")
	}
	r.ready()
	r.mu.Lock()
	r.closing = true
	r.mu.Unlock()
	r.poke()
	<-r.done
	if r.own && r.store != nil {
		r.store.Close()
	}
}

func (r *record) isReady() bool {
	select {
	case <-r.readyCh:
		return true
	default:
		return false
	}
}

// recording reports whether events reach the store (or will, once the
// record exists).
func (r *record) recording() bool { return !r.isReady() || r.err == nil }

func (r *record) persistedSeq() int64 { return r.persisted.Load() }

// need asks for the record now and waits until it exists or failed.
func (r *record) need() {
	r.kickOnce.Do(func() { close(r.kick) })
	<-r.readyCh
}

func (r *record) poke() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

func (r *record) push(o op) {
	r.mu.Lock()
	if r.frozen && !o.keep || r.closing {
		r.mu.Unlock()
		o.settle()
		return
	}
	r.ops = append(r.ops, o)
	r.mu.Unlock()
	r.poke()
	if !o.delta() {
		select {
		case r.urgent <- struct{}{}:
		default:
		}
	}
}

// delta reports a text delta (or a retry notice): the stored message holds
// the text too, so these may wait a moment to be committed in a batch.
func (o op) delta() bool {
	return o.ev != nil && (o.ev.Type == string(agent.EventText) || o.ev.Type == string(agent.EventRetry))
}

// deltaWait is how long the writer lets text deltas gather before it
// commits them in one transaction (every other write goes at once).
const deltaWait = 2 * time.Millisecond

// freeze stops recording what follows (the turn Close stops).
func (r *record) freeze() {
	r.mu.Lock()
	r.frozen = true
	r.mu.Unlock()
}

func (r *record) event(ev Event) {
	se := &session.Event{Seq: ev.Seq, Type: string(ev.Event.Type), Data: ev.Data, At: ev.Event.Time}
	r.push(op{ev: se})
	r.advice(ev)
	if ev.Event.Type == agent.EventUsage && ev.Event.Usage != nil {
		u := *ev.Event.Usage
		r.push(op{fn: func(ctx context.Context, st *session.Store, id string) error { return st.AddUsage(ctx, id, u) }})
	}
}

func (r *record) message(m message.Message) {
	r.push(op{fn: func(ctx context.Context, st *session.Store, id string) error {
		_, err := st.AppendMessage(ctx, id, m)
		return err
	}})
}

// turnEnded saves the session's "always" approvals.
func (r *record) turnEnded(list []permission.Approval) {
	r.push(op{keep: true, fn: func(ctx context.Context, st *session.Store, id string) error {
		for _, a := range list {
			sa := session.Approval{Key: a.Key, Pattern: a.Pattern, Server: approvalServer(a)}
			if err := st.AddApproval(ctx, id, sa); err != nil {
				return err
			}
		}
		return nil
	}})
}

func (r *record) setMode(mode string) {
	r.push(op{fn: func(ctx context.Context, st *session.Store, id string) error { return st.SetMode(ctx, id, mode) }})
}

func (r *record) setAgentModel(agent, model string) {
	r.push(op{fn: func(ctx context.Context, st *session.Store, id string) error {
		return st.SetAgentModel(ctx, id, agent, model)
	}})
}

func (r *record) addAsk(pa PendingAsk) {
	body, err := json.Marshal(pa)
	if err != nil {
		return
	}
	a := session.Ask{ID: pa.ID, CallID: pa.CallID, InputDigest: pa.InputDigest, Body: body, Created: pa.Created}
	// An ask is offered only once it is committed: a client that has seen
	// it (the ask event, GET …/pending) must find it again after a crash.
	done := make(chan struct{})
	r.push(op{fn: func(ctx context.Context, st *session.Store, id string) error { return st.AddAsk(ctx, id, a) }, committed: done})
	select {
	case <-done:
	case <-r.done: // the writer has stopped
	}
}

func (r *record) answerAsk(askID string, rep Reply) {
	r.push(op{fn: func(ctx context.Context, st *session.Store, id string) error {
		return st.AnswerAsk(ctx, id, askID, string(rep.Answer), rep.Feedback, rep.By)
	}})
}

// writer commits the queued writes in order until the record closes.
func (r *record) writer() {
	defer close(r.done)
	<-r.readyCh
	ctx := context.Background()
	var evs []session.Event
	for {
		r.mu.Lock()
		for len(r.ops) == 0 && !r.closing {
			r.mu.Unlock()
			<-r.wake
			r.mu.Lock()
		}
		batch := r.ops
		r.ops = nil
		closing := r.closing
		r.mu.Unlock()
		if !closing && onlyDeltas(batch) {
			// A streamed answer: let its deltas gather, so the store
			// costs one commit for many (and the CPU stays with the
			// subscribers), unless another write or Close comes first.
			t := time.NewTimer(deltaWait)
			select {
			case <-t.C:
			case <-r.urgent:
			}
			t.Stop()
			r.mu.Lock()
			batch = append(batch, r.ops...)
			r.ops = nil
			closing = r.closing
			r.mu.Unlock()
		}
		if len(batch) == 0 && closing {
			return
		}
		flush := func() {
			if len(evs) == 0 {
				return
			}
			if r.err == nil {
				r.fail(r.store.AppendEvents(ctx, r.id, evs))
			}
			r.persisted.Store(evs[len(evs)-1].Seq)
			evs = evs[:0]
		}
		for _, o := range batch {
			if o.ev != nil {
				evs = append(evs, *o.ev)
				continue
			}
			flush()
			if r.err == nil {
				r.fail(o.fn(ctx, r.store, r.id))
			}
			o.settle()
		}
		flush()
	}
}

func onlyDeltas(batch []op) bool {
	for _, o := range batch {
		if !o.delta() {
			return false
		}
	}
	return len(batch) > 0
}

// fail keeps the first write error.
func (r *record) fail(err error) {
	if err == nil {
		return
	}
	r.mu.Lock()
	if r.writeErr == nil {
		r.writeErr = err
	}
	r.mu.Unlock()
}

func (r *record) beat() {
	defer close(r.beatDone)
	t := time.NewTicker(session.HeartbeatInterval)
	defer t.Stop()
	for {
		select {
		case <-r.beatStop:
			return
		case <-t.C:
			_ = r.lease.Beat(context.Background())
		}
	}
}

// close makes the record if it does not exist yet, waits for the writes,
// records the status and releases the lease; it returns the first write
// error.
func (r *record) close(st session.Status) error {
	r.need()
	r.mu.Lock()
	r.closing = true
	r.mu.Unlock()
	r.poke()
	select {
	case r.urgent <- struct{}{}:
	default:
	}
	<-r.done
	close(r.beatStop)
	<-r.beatDone
	if r.err != nil {
		return r.err
	}
	err := r.lease.Release(context.Background(), st)
	if r.own {
		if cerr := r.store.Close(); err == nil {
			err = cerr
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.writeErr != nil {
		return r.writeErr
	}
	return err
}

// approvalServer is an approval's store "server" column: "server" for a
// whole MCP server (Pattern is its name), then "@IDENTITY" when the MCP
// approval is bound to a server definition's digest.
func approvalServer(a permission.Approval) string {
	v := ""
	if a.Server {
		v = "server"
	}
	if a.Identity != "" {
		v += "@" + a.Identity
	}
	return v
}

// approvalOf reads an approval back from the store.
func approvalOf(a session.Approval) permission.Approval {
	kind, id, _ := strings.Cut(a.Server, "@")
	return permission.Approval{Key: a.Key, Pattern: a.Pattern, Server: kind == "server", Identity: id}
}
