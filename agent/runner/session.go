package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/compact"
	"github.com/oceancode/oceancode/agent/gate"
	"github.com/oceancode/oceancode/agent/mcp"
	"github.com/oceancode/oceancode/agent/message"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/session"
	"github.com/oceancode/oceancode/agent/tools"
)

// The in-memory ring a session replays from keeps at most ringMax events
// and ringMaxBytes of their JSON (older ones are read from the store);
// events not yet in the store are always kept.
const (
	ringMax      = 2048
	ringMaxBytes = 1 << 20
)

// errAborted is the cause a turn stopped by Abort carries.
var errAborted = errors.New("aborted")

// Session is one long-lived conversation. Its methods are safe for
// concurrent use.
type Session struct {
	o         Options
	cfg       agent.Config // the turn config, completed by the runner
	approvals *permission.Approvals
	rec       *record // nil: not recorded
	ctx       context.Context
	cancel    context.CancelFunc
	loopDone  chan struct{}
	wake      chan struct{}

	onMu       sync.Mutex // held while Options.OnEvent runs, taken before mu is let go
	mu         sync.Mutex
	seq        int64
	ring       []Event // the newest events are ring[head:]; ring[head].Seq == ringFirst
	head       int
	ringFirst  int64
	ringBytes  int // of ring[head:]'s Data
	subs       map[*Subscription]struct{}
	queue      []*item
	running    *item
	cancelTurn context.CancelCauseFunc
	history    []message.Message
	turns      int
	usage      message.Usage
	stop       StopReason
	started    bool // a turn has run (its notices were told)
	turnOver   bool // the running turn has emitted its done event
	// doneEv is the running turn's done event, held until the turn's
	// bookkeeping (turns, usage, stop reason, status) is in the state: a
	// client that sees done and asks for the state sees the turn ended.
	doneEv   *agent.Event
	closed   bool
	asks     map[string]*ask
	order    []string // ask ids, in the order asked
	mode     ModeResult
	modeSet  bool       // the mode was switched live (an agent switch keeps it)
	runGate  *gate.Gate // the running turn's gate (an agent switch leaves it to the turn)
	reMu     sync.Mutex // one SetAgent/SetModel at a time
	recModel string     // the model as recorded: PROVIDER/MODEL once switched (a resume takes it up)
	// compacted is the compaction in effect on history (compact.go).
	compacted compact.State
	ckpt      *checkpoints // nil: no checkpoints (checkpoint.go)
}

// item is one queued prompt (or the continuation of a resumed session).
type item struct {
	prompt string // a Compact's focus
	cont   bool
	// compact is a queued Compact.
	compact bool
	ctx     context.Context // Run's, or nil
	done    chan turnResult
	fn      func() // an undo or a redo, run between turns instead (checkpoint.go)
}

type turnResult struct {
	res agent.Result
	err error
	// panicked is a panic of the turn, handed to the Run waiting for it so
	// that it surfaces on the caller's goroutine (its crash report).
	panicked any
	// compaction is what a queued Compact did.
	compaction agent.Compaction
}

// Start creates (or resumes) a session. It returns at once; the session
// waits for prompts. ctx bounds the session's life (its turns, its store
// writes are finished by Close whatever ctx does).
func Start(ctx context.Context, o Options) (*Session, error) {
	if o.Turn.Gate == nil || o.Turn.Provider == nil {
		return nil, errors.New("runner: start session: the turn config needs a gate and a provider")
	}
	if o.Buffer <= 0 {
		o.Buffer = 1024
	}
	s := &Session{o: o, approvals: &permission.Approvals{}, subs: map[*Subscription]struct{}{},
		asks: map[string]*ask{}, wake: make(chan struct{}, 1), loopDone: make(chan struct{}), ringFirst: 1}
	s.cfg = o.Turn
	s.recModel = o.Turn.Model
	if o.Model != "" {
		s.recModel = o.Model
	}
	if s.cfg.Redact == nil {
		s.cfg.Redact = func(s string) string { return s }
	}
	env := &tools.Env{}
	if o.Turn.Env != nil {
		e := *o.Turn.Env
		env = &e
	}
	s.cfg.Env = env
	s.cfg.Approvals = s.approvals
	s.cfg.OnEvent = s.turnEvent
	s.cfg.OnMessage = s.turnMessage
	s.cfg.Ask = nil
	env.Ask = nil
	if o.Interactive {
		s.cfg.Ask = s.askPermission
		env.Ask = s.askQuestion
	}
	env.Task = nil
	if o.SubAgent != nil {
		env.Task = s.subAgent
	}
	s.mode = bootMode(s.cfg.Gate)
	s.ctx, s.cancel = context.WithCancel(context.WithoutCancel(ctx))
	s.withAdvice()
	s.withCheckpoints()
	if ctx.Done() != nil {
		stop := context.AfterFunc(ctx, s.cancel)
		go func() { <-s.loopDone; stop() }()
	}
	if o.Store != nil || o.OpenStore != nil {
		s.rec = newRecord(s)
		if o.Resume != "" {
			if err := s.resume(ctx); err != nil {
				s.rec.abandon()
				s.cancel()
				close(s.loopDone)
				return nil, err
			}
		} else {
			meta := session.Meta{Agent: s.cfg.Agent, Model: s.recModel, Mode: string(s.mode.Mode), Cwd: env.Cwd}
			go s.rec.create(ctx, meta, o.CreateAfter)
		}
	} else if o.Resume != "" {
		s.cancel()
		close(s.loopDone)
		return nil, fmt.Errorf("runner: resume session %s: no session store", o.Resume)
	}
	go s.loop()
	return s, nil
}

// resume loads a stored session: its history, approvals, last event
// sequence number and the asks its interrupted tool calls wait for.
func (s *Session) resume(ctx context.Context) error {
	id := s.o.Resume
	st, err := s.rec.open(ctx)
	if err != nil {
		return err
	}
	rs, err := st.Get(ctx, id)
	if err != nil {
		return fmt.Errorf("resume session %s: %w", id, err)
	}
	lease, err := st.Claim(ctx, id)
	if err != nil {
		return fmt.Errorf("resume session %s: %w", id, err)
	}
	s.rec.lease, s.rec.id = lease, id
	fail := func(err error) error {
		_ = lease.Release(context.WithoutCancel(ctx), session.Interrupted)
		return err
	}
	if err := s.recordResumed(ctx, st, rs); err != nil {
		return fail(fmt.Errorf("resume session %s: %w", id, err))
	}
	if s.history, err = st.Messages(ctx, id); err != nil {
		return fail(err)
	}
	if s.compacted, err = lastCompaction(ctx, st, id); err != nil {
		return fail(err)
	}
	aps, err := st.Approvals(ctx, id)
	if err != nil {
		return fail(err)
	}
	var list []permission.Approval
	for _, a := range aps {
		list = append(list, approvalOf(a))
	}
	s.approvals.Restore(list)
	if s.seq, err = st.LastEventSeq(ctx, id); err != nil {
		return fail(err)
	}
	s.ringFirst = s.seq + 1
	s.rec.persisted.Store(s.seq)
	// The asks of the last message's tool calls: those still pending are
	// offered again, those answered settle their calls when they run.
	var calls []message.ToolCall
	if n := len(s.history); n > 0 && s.history[n-1].Role == message.Assistant {
		calls = s.history[n-1].ToolCalls()
	}
	if len(calls) > 0 {
		stored, err := st.Asks(ctx, id, false)
		if err != nil {
			return fail(err)
		}
		byCall := map[string]bool{}
		for _, c := range calls {
			byCall[c.ID] = true
		}
		for _, sa := range stored {
			if !byCall[sa.CallID] {
				continue
			}
			var pa PendingAsk
			if err := json.Unmarshal(sa.Body, &pa); err != nil {
				return fail(fmt.Errorf("resume session %s: ask %s: %w", id, sa.ID, err))
			}
			a := newAsk(pa, true)
			if sa.Status == session.AskAnswered {
				a.answered = &Reply{Answer: agent.Answer(sa.Answer), Feedback: sa.Feedback, By: sa.By}
				a.at = sa.Answered
				close(a.ch)
			}
			s.asks[pa.ID] = a
			s.order = append(s.order, pa.ID)
		}
	}
	s.rec.ready() // the record exists: writes go straight to the store
	if len(calls) > 0 && len(s.asks) > 0 {
		// The interrupted calls run once their asks are answered; a
		// prompt sent meanwhile waits behind them.
		// A headless session (run --session) cannot offer them: its
		// calls go through its own policy (--auto or refused) instead.
		s.queue = append(s.queue, &item{cont: true, done: make(chan turnResult, 1)})
		for _, id := range s.order {
			if a := s.asks[id]; a.answered == nil && s.o.Interactive {
				pa := a.pa
				s.emit(agent.Event{Type: agent.EventAsk, Ask: &pa})
			}
		}
	}
	return nil
}

// recordResumed records the agent, model and mode a resumed session runs
// with where they differ from its record (the front end asked for others),
// so the next resume takes them up. The model is recorded only when
// Options.Model names it in full (PROVIDER/MODEL).
func (s *Session) recordResumed(ctx context.Context, st *session.Store, rs *session.Session) error {
	model := rs.Model
	if s.o.Model != "" {
		model = s.recModel
	} else {
		s.recModel = rs.Model // a switch of agent records the model as it was
	}
	if rs.Agent != s.cfg.Agent || rs.Model != model {
		if err := st.SetAgentModel(ctx, rs.ID, s.cfg.Agent, model); err != nil {
			return err
		}
	}
	if mode := string(s.mode.Mode); rs.Mode != mode {
		return st.SetMode(ctx, rs.ID, mode)
	}
	return nil
}

// ID is the session's id; for a new session with CreateAfter it waits until
// the record exists ("" if it could not be created: Err says why, or when
// the session is not recorded).
func (s *Session) ID() string {
	if s.rec == nil {
		return ""
	}
	s.rec.need()
	return s.rec.id
}

// CurrentID is the session's id if its record exists yet, without waiting
// (a crash report names it).
func (s *Session) CurrentID() string {
	if s.rec == nil || !s.rec.isReady() || s.rec.err != nil {
		return ""
	}
	return s.rec.id
}

// Err is why the session could not be recorded (nil while it can be).
func (s *Session) Err() error {
	if s.rec == nil || !s.rec.isReady() {
		return nil
	}
	return s.rec.err
}

// Send queues a prompt; turns run one after another in the order sent.
// ErrClosed after Close.
func (s *Session) Send(prompt string) error {
	_, err := s.enqueue(nil, prompt)
	return err
}

func (s *Session) enqueue(ctx context.Context, prompt string) (*item, error) {
	it := &item{prompt: prompt, ctx: ctx, done: make(chan turnResult, 1)}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	s.queue = append(s.queue, it)
	s.poke()
	return it, nil
}

func (s *Session) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Run is Send plus waiting for that prompt's turn to end: `oceancode run`
// uses it. ctx ending stops the turn (stop reason cancelled, or timeout).
// When the session could not be recorded the turn is stopped and Run
// returns that error.
func (s *Session) Run(ctx context.Context, prompt string) (agent.Result, error) {
	it, err := s.enqueue(ctx, prompt)
	if err != nil {
		return agent.Result{}, err
	}
	r := <-it.done
	if r.panicked != nil {
		panic(r.panicked)
	}
	if err := s.Err(); err != nil {
		return r.res, err
	}
	return r.res, r.err
}

// loop runs the queued turns one after another until the session closes.
func (s *Session) loop() {
	defer close(s.loopDone)
	for {
		s.mu.Lock()
		for len(s.queue) == 0 && !s.closed {
			s.mu.Unlock()
			<-s.wake
			s.mu.Lock()
		}
		if s.closed {
			s.mu.Unlock()
			return
		}
		it := s.queue[0]
		s.queue = s.queue[1:]
		if it.fn != nil {
			s.mu.Unlock()
			it.fn()
			continue
		}
		s.running, s.turnOver = it, false
		ctx, cancel := context.WithCancelCause(s.ctx)
		s.cancelTurn = cancel
		cfg := s.cfg
		s.runGate = cfg.Gate
		cfg.QuietStart = s.started
		s.started = s.started || !it.compact
		cfg.Compacted = s.compacted
		history := s.history
		s.mu.Unlock()

		var stopAfter func() bool
		if it.ctx != nil {
			stopAfter = context.AfterFunc(it.ctx, func() { cancel(context.Cause(it.ctx)) })
		}
		s.checkpointTurn(it.prompt)
		r := s.turn(ctx, it, cfg, history)
		s.checkpointEnd()
		if stopAfter != nil {
			stopAfter()
		}
		cancel(nil)
		if s.rec != nil {
			s.rec.turnEnded(s.approvals.List())
		}
		s.mu.Lock()
		s.history = r.res.Messages
		s.turns += r.res.Turns
		s.usage = s.usage.Add(r.res.Usage)
		if r.res.Compacted != (compact.State{}) { // a turn that never ran reports none
			s.compacted = r.res.Compacted
		}
		if !it.compact {
			s.stop = stopOf(r.res, r.err)
		}
		s.running, s.cancelTurn, s.runGate = nil, nil, nil
		done := s.doneEv
		s.doneEv = nil
		s.mu.Unlock()
		s.dropResumedAsks()
		if done != nil {
			s.emit(*done)
		}
		it.done <- r
	}
}

// turn runs one queued item. A panic of a turn that Run waits for is handed
// to Run (this goroutine then stops for good: the process is going down);
// one without a waiting Run goes on panicking here.
func (s *Session) turn(ctx context.Context, it *item, cfg agent.Config, history []message.Message) (r turnResult) {
	defer func() {
		if p := recover(); p != nil {
			if it.ctx == nil {
				panic(p)
			}
			it.done <- turnResult{panicked: p}
			select {}
		}
	}()
	switch {
	case s.rec != nil && s.rec.isReady() && s.rec.err != nil:
		r.res, r.err = agent.Result{Messages: history, StopReason: string(StopError)}, s.rec.err
	case it.compact:
		r = compactTurn(ctx, cfg, history, it)
	case it.cont:
		r.res, r.err = agent.Continue(ctx, cfg, history)
	default:
		r.res, r.err = agent.Run(ctx, cfg, history, it.prompt)
	}
	return r
}

// turnEvent is the turn loop's OnEvent.
func (s *Session) turnEvent(e agent.Event) {
	switch {
	case e.Type == agent.EventToolCall && s.rec != nil:
		// Nothing a tool does may happen before the session is recorded.
		s.rec.need()
	case e.Type == agent.EventDone:
		s.mu.Lock()
		s.turnOver, s.doneEv = true, &e
		s.mu.Unlock()
		return // the loop emits it once the state has the turn's end
	}
	s.emit(e)
}

// turnMessage is the turn loop's OnMessage: the store commits each message
// as it is complete (redacted).
func (s *Session) turnMessage(m message.Message) {
	if s.rec == nil {
		return
	}
	s.rec.message(redactMessage(m, s.cfg.Redact))
}

// redactMessage returns m with its texts redacted as the session store
// keeps them.
func redactMessage(m message.Message, redact func(string) string) message.Message {
	parts := make([]message.Part, len(m.Parts))
	for i, p := range m.Parts {
		p.Text = redact(p.Text)
		if p.ToolResult != nil {
			tr := *p.ToolResult
			tr.Content = redact(tr.Content)
			p.ToolResult = &tr
		}
		parts[i] = p
	}
	m.Parts = parts
	return m
}

// encode is an event's JSON as stored and sent: the stream-json encoding
// (">" stays ">"), its text redacted. A tool call whose input is not valid
// JSON (as a model may send it) carries the input as a JSON string instead,
// so every event has valid JSON.
func (s *Session) encode(e agent.Event) json.RawMessage {
	e.Text = s.cfg.Redact(e.Text)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e); err != nil {
		buf.Reset()
		if e.ToolCall != nil {
			c := *e.ToolCall
			c.Input = quoteInput(c.Input)
			e.ToolCall = &c
		}
		if e.Ask != nil {
			a := *e.Ask
			a.Input = quoteInput(a.Input)
			e.Ask = &a
		}
		if err := enc.Encode(e); err != nil {
			buf.Reset()
			_ = enc.Encode(agent.Event{Type: e.Type, Time: e.Time, Text: "event not encodable: " + err.Error()})
		}
	}
	return json.RawMessage(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

// quoteInput is b if it is valid JSON, else b as a JSON string.
func quoteInput(b json.RawMessage) json.RawMessage {
	if b == nil || json.Valid(b) {
		return b
	}
	q, _ := json.Marshal(string(b))
	return q
}

// emit numbers an event, keeps it for replay, queues it for the store and
// hands it to every subscriber.
func (s *Session) emit(e agent.Event) {
	if e.Time.IsZero() {
		e.Time = time.Now().UTC()
	}
	data := s.encode(e)
	s.mu.Lock()
	s.seq++
	ev := Event{Seq: s.seq, Event: e, Data: data}
	s.ring = append(s.ring, ev)
	s.ringBytes += len(data)
	s.trim()
	if s.rec != nil {
		s.rec.event(ev)
	}
	for u := range s.subs {
		if !u.push(ev) {
			delete(s.subs, u)
		}
	}
	fanned := len(s.subs) > 0
	if fanned {
		// Let the subscribers' goroutines run now rather than when the
		// emitting goroutine next blocks (a fast stream would otherwise
		// queue up behind it).
		defer runtime.Gosched()
	}
	if s.o.OnEvent == nil {
		s.mu.Unlock()
		return
	}
	// Hand over hand: OnEvent sees the events in Seq order, and may call
	// the session's methods (not emit events itself).
	s.onMu.Lock()
	s.mu.Unlock()
	defer s.onMu.Unlock()
	s.o.OnEvent(ev)
}

// trim drops the oldest events beyond the ring's bounds that the store
// holds (all of them beyond the bounds when nothing is recorded). Called
// with mu held.
func (s *Session) trim() {
	live := s.ring[s.head:]
	n, bytes := 0, s.ringBytes
	for n < len(live) && (len(live)-n > ringMax || bytes > ringMaxBytes) {
		bytes -= len(live[n].Data)
		n++
	}
	if n > 0 && s.rec != nil && s.rec.recording() {
		if k := int(s.rec.persistedSeq() - s.ringFirst + 1); k < n {
			n = max(k, 0)
		}
	}
	if n == 0 {
		return
	}
	for i := range n {
		s.ringBytes -= len(live[i].Data)
		live[i] = Event{}
	}
	s.head += n
	s.ringFirst += int64(n)
	if s.head > 256 && s.head > len(s.ring)/2 {
		s.ring = append([]Event(nil), s.ring[s.head:]...)
		s.head = 0
	}
}

// LastSeq is the newest event's Seq.
func (s *Session) LastSeq() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seq
}

// Abort cancels the running turn (its tools are killed), drops queued
// prompts and resolves pending asks as deny (by "abort"); the turn ends with
// stop reason "cancelled". No-op when idle.
func (s *Session) Abort() {
	s.mu.Lock()
	dropped := s.queue
	s.queue = nil
	if s.cancelTurn != nil {
		s.cancelTurn(errAborted)
	}
	var ids []string
	for _, id := range s.order {
		if a := s.asks[id]; a.answered == nil {
			ids = append(ids, id)
		}
	}
	s.mu.Unlock()
	for _, it := range dropped {
		it.done <- turnResult{res: agent.Result{Messages: s.History(), StopReason: string(StopCancelled)}, err: fmt.Errorf("runner: prompt dropped: %w", errAborted)}
	}
	for _, id := range ids {
		_ = s.resolve(id, Reply{Answer: agent.Deny, By: "abort"}, false)
	}
}

// History is the conversation so far (as the turns left it).
func (s *Session) History() []message.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]message.Message(nil), s.history...)
}

// SetMode switches the permission mode live, through the permission engine
// and its locks (a locked-out mode becomes default with the reason); the
// next decision uses it, also within a running turn. Emits a mode_change
// event and records the mode. An unknown mode is an error.
func (s *Session) SetMode(m permission.Mode) (ModeResult, error) {
	pm, err := permission.ParseMode(string(m))
	if err != nil {
		return s.Mode(), fmt.Errorf("runner: set mode %q: %w", m, err)
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return s.Mode(), ErrClosed
	}
	ch := s.cfg.Gate.SetMode(pm)
	if s.runGate != nil && s.runGate != s.cfg.Gate {
		// The running turn started under the agent before a switch: it
		// follows the mode too.
		s.runGate.SetMode(pm)
	}
	res := modeIn(s.cfg.Gate, pm, ch)
	s.mode, s.modeSet = res, true
	s.mu.Unlock()
	s.emit(agent.Event{Type: agent.EventModeChange, Key: "permission_mode", Requested: string(pm), Mode: string(res.Mode), Text: res.Reason})
	if s.rec != nil {
		s.rec.setMode(string(res.Mode))
	}
	return res, nil
}

// AddMCP is the runtime add (POST /mcp, the pager's /mcp add): the server
// goes through the one start check (the requirements' allow-list; the add
// is itself the trust decision), starts now, and its tools are offered from
// the next turn; its calls ask (origin runtime) and "always" approves the
// server. Its state is told as an mcp event either way.
func (s *Session) AddMCP(ctx context.Context, srv mcp.Server) (mcp.Status, error) {
	return s.mcpChange("add", srv.Name, func(m *mcp.Manager) (mcp.Status, error) { return m.Add(ctx, srv) })
}

// TrustMCP answers a trust prompt yes for a project server waiting for
// trust (state untrusted): its definition is recorded in the user's trust
// store (as `oceancode mcp trust` does) and it starts now, its tools
// offered from the next turn. Told as an mcp event either way.
func (s *Session) TrustMCP(ctx context.Context, name string) (mcp.Status, error) {
	return s.mcpChange("trust", name, func(m *mcp.Manager) (mcp.Status, error) { return m.Trust(ctx, name) })
}

// mcpChange runs a change of the session's MCP servers and tells the
// servers' new states as mcp events.
func (s *Session) mcpChange(what, name string, f func(*mcp.Manager) (mcp.Status, error)) (mcp.Status, error) {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	switch {
	case closed:
		return mcp.Status{}, ErrClosed
	case s.o.MCP == nil:
		return mcp.Status{}, fmt.Errorf("runner: %s mcp server %s: this session has no MCP client", what, name)
	}
	st, err := f(s.o.MCP)
	for _, e := range s.o.MCP.Events() {
		s.emit(e)
	}
	return st, err
}

// Mode is the mode in effect and how it came to be.
func (s *Session) Mode() ModeResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mode
}

// modeIn is the mode gate g is in after a switch to requested ("": the
// mode g is in) that ch tells of.
func modeIn(g *gate.Gate, requested permission.Mode, ch permission.ModeChange) ModeResult {
	m := g.Engine().Mode()
	if requested == "" {
		requested = m
	}
	return ModeResult{Mode: m, Requested: requested, Downgraded: ch.Downgraded(), Reason: ch.Reason}
}

// bootMode is the mode gate g was built in (its configured mode, through
// the locks), as a new session starts.
func bootMode(g *gate.Gate) ModeResult {
	ch := g.Engine().ModeChange()
	return modeIn(g, ch.Requested, ch)
}

// State is the session's state.
func (s *Session) State() State {
	id := s.CurrentID()
	s.mu.Lock()
	defer s.mu.Unlock()
	st := State{ID: id, Agent: s.cfg.Agent, Model: s.cfg.Model, Modes: s.modes(), Sandbox: s.o.Sandbox, Policy: s.o.Policy,
		Commands: commandInfos(s.cfg.Commands)}
	st.Mode, st.Turns, st.Queued, st.Usage, st.LastSeq, st.StopReason = s.mode, s.turns, len(s.queue), s.usage, s.seq, s.stop
	switch {
	case s.closed:
		st.Status = StatusClosed
	case s.pendingLocked() > 0:
		st.Status = StatusWaiting
	case s.running != nil || len(s.queue) > 0:
		st.Status = StatusRunning
	default:
		st.Status = StatusIdle
	}
	return st
}

// Close ends the session: stops a running turn, waits for the store
// writes, records its status and releases the lease. Pending asks stay
// stored (a later Start with Resume offers them again). Subscribers get the
// events emitted before, then their channels close (Err ErrClosed).
func (s *Session) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	// A turn whose done event is out has only its bookkeeping left.
	wasRunning := s.running != nil && !s.turnOver
	if s.rec != nil && wasRunning {
		// What the stopped turn does from here (its declined calls) is not
		// recorded: the stored session ends where it was interrupted.
		s.rec.freeze()
	}
	if s.cancelTurn != nil {
		s.cancelTurn(ErrClosed)
	}
	dropped := s.queue
	s.queue = nil
	s.poke()
	s.mu.Unlock()
	for _, it := range dropped {
		it.done <- turnResult{res: agent.Result{Messages: s.History(), StopReason: string(StopCancelled)}, err: ErrClosed}
	}
	<-s.loopDone
	s.cancel()
	s.checkpointWait()
	var err error
	if s.rec != nil {
		s.mu.Lock()
		st := RecordStatus(s.stop)
		if wasRunning || s.pendingLocked() > 0 {
			st = session.Interrupted
		}
		s.mu.Unlock()
		err = s.rec.close(st)
	}
	s.mu.Lock()
	for u := range s.subs {
		u.end(ErrClosed)
		delete(s.subs, u)
	}
	s.mu.Unlock()
	return err
}

// subAgent is the task tool's hook: the sub-agent's config from
// Options.SubAgent, its events not on this session's stream.
func (s *Session) subAgent(ctx context.Context, name, prompt string) (string, error) {
	sub, err := s.o.SubAgent(name)
	if err != nil {
		return "", err
	}
	if sub.Env == nil {
		sub.Env = s.cfg.Env
	}
	if sub.Redact == nil {
		sub.Redact = s.o.Turn.Redact
	}
	sub.Approvals = s.approvals
	sub.Ask = s.cfg.Ask
	sub.OnEvent, sub.OnMessage = nil, nil
	r, err := agent.Run(ctx, sub, nil, prompt)
	if len(r.Messages) > 0 {
		return r.Messages[len(r.Messages)-1].TextOf(), err
	}
	return "", err
}
