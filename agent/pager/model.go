package pager

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/oceancode/oceancode/agent/engineapi"
	"github.com/oceancode/oceancode/agent/message"
	"github.com/oceancode/oceancode/agent/permission"
)

// askedCall is what the model keeps of an open ask.
type askedCall struct{ callID, kind string }

// clientLabel is how the pager signs its answers (Reply.By).
const clientLabel = "pager"

// interruptWindow: a second Ctrl+C within it exits.
const interruptWindow = 2 * time.Second

// eventBatch is the most events one message carries (a replay arrives in
// batches, a live stream one event at a time).
const eventBatch = 256

// The model's messages. Every result of IO comes back as one of these: the
// model never blocks in Update.
type (
	subscribedMsg struct {
		gen int
		st  Stream
		err error
	}
	eventsMsg struct {
		gen int
		evs []engineapi.SessionEvent
		end bool // the stream ended after evs
		err error
	}
	stateMsg struct {
		gen int
		st  engineapi.State
		err error
	}
	pendingMsg struct {
		gen  int
		asks []engineapi.PendingAsk
	}
	modeMsg struct {
		res  engineapi.ModeResult
		err  error
		via  string          // cycle, always-approve, auto, mode, restore
		prev permission.Mode // the mode before the request
		// inputs is the model's input count at the request: a result
		// that comes back after newer input does not set the cycle or
		// overwrite a newer notice.
		inputs int
	}
	// outputMsg is a command's result, printed to the scrollback.
	outputMsg struct {
		text string
		err  error
	}
	answeredMsg struct {
		id  string
		err error
	}
	switchMsg struct {
		eng Engine
		err error
	}
	// commandMsg runs a slash command.
	commandMsg struct {
		name string
		args []string
	}
	// replyMsg answers the ask shown (what the dialog's keys decide).
	replyMsg struct{ r engineapi.Reply }
	// gapMsg: subscribe again after the engine's newest event.
	gapMsg struct {
		gen   int
		after int64
	}
	printedMsg struct{}
	tickMsg    struct{}
)

// model is the pager: the live region (the streaming tail, the dialog or
// composer, the status line) over the terminal's scrollback, where every
// finished piece is printed once.
type model struct {
	ctx           context.Context
	o             Options
	eng           Engine
	th            Theme
	width, height int

	composer *Composer
	denied   *Denied
	md       *mdStream

	sub     Stream
	gen     int // the engine's generation: messages of an older one are dropped
	lastSeq int64

	state   engineapi.State
	usage   message.Usage
	ctxUse  *engineapi.ContextUse // the last usage event's (usage.go)
	working bool
	started time.Time
	spin    int
	ticking bool

	asks       []engineapi.PendingAsk // waiting, oldest first; asks[0] is shown
	dialog     *Dialog
	showDenied bool
	// asked maps an open ask's id to its call and kind, answeredBy a
	// resolved ask's call to who answered, until the call's permission
	// event; both forget then (a long session does not grow them).
	asked      map[string]askedCall
	answeredBy map[string]string

	cycleAt permission.Mode // the locked mode a Shift+Tab press stopped at
	notice  string
	inputs  int // keys, submits and commands so far

	lastInterrupt time.Time
	now           func() time.Time

	pending  []string // lines waiting for the scrollback
	printing bool
	// printer prints above the live region (tests capture it).
	printer func(string) tea.Cmd
}

func newModel(ctx context.Context, o Options) *model {
	th := NewTheme(o.Dark)
	w, h := o.Width, o.Height
	if w <= 0 {
		w = 80
	}
	if h <= 0 {
		h = 24
	}
	m := &model{ctx: ctx, o: o, eng: o.Engine, th: th, width: w, height: h,
		composer: NewComposer(ComposerConfig{Root: o.Root, Refs: o.Refs, HistoryFile: o.HistoryFile, Theme: th}),
		denied:   NewDenied(th), md: newMDStream(w, o.Dark),
		asked: map[string]askedCall{}, answeredBy: map[string]string{}, now: time.Now}
	m.printer = func(s string) tea.Cmd {
		return tea.Sequence(tea.Println(s), func() tea.Msg { return printedMsg{} })
	}
	m.composer.SetWidth(w)
	m.composer.Focus()
	return m
}

func (m *model) Init() tea.Cmd {
	return m.attach()
}

// attach subscribes to the engine's events (after the last seen) and
// fetches its state and pending asks.
func (m *model) attach() tea.Cmd {
	return tea.Batch(m.subscribe(), m.fetchState(), m.fetchPending())
}

func (m *model) subscribe() tea.Cmd {
	eng, gen, after, ctx := m.eng, m.gen, m.lastSeq, m.ctx
	return func() tea.Msg {
		st, err := eng.Subscribe(ctx, after)
		return subscribedMsg{gen: gen, st: st, err: err}
	}
}

// waitEvents reads the next events: blocks for one, then takes what is
// already there (up to eventBatch).
func waitEvents(st Stream, gen int) tea.Cmd {
	return func() tea.Msg {
		ch := st.Events()
		ev, ok := <-ch
		if !ok {
			return eventsMsg{gen: gen, end: true, err: st.Err()}
		}
		evs := []engineapi.SessionEvent{ev}
		for len(evs) < eventBatch {
			select {
			case ev, ok := <-ch:
				if !ok {
					return eventsMsg{gen: gen, evs: evs, end: true, err: st.Err()}
				}
				evs = append(evs, ev)
			default:
				return eventsMsg{gen: gen, evs: evs}
			}
		}
		return eventsMsg{gen: gen, evs: evs}
	}
}

func (m *model) skipGap() tea.Cmd {
	eng, gen, ctx := m.eng, m.gen, m.ctx
	return func() tea.Msg {
		st, err := eng.State(ctx)
		if err != nil {
			return outputMsg{err: fmt.Errorf("events: %w", err)}
		}
		return gapMsg{gen: gen, after: st.LastSeq}
	}
}

func (m *model) fetchState() tea.Cmd {
	eng, gen, ctx := m.eng, m.gen, m.ctx
	return func() tea.Msg {
		st, err := eng.State(ctx)
		return stateMsg{gen: gen, st: st, err: err}
	}
}

func (m *model) fetchPending() tea.Cmd {
	eng, gen, ctx := m.eng, m.gen, m.ctx
	return func() tea.Msg {
		asks, err := eng.Pending(ctx)
		if err != nil {
			return outputMsg{err: fmt.Errorf("pending asks: %w", err)}
		}
		return pendingMsg{gen: gen, asks: asks}
	}
}

// print queues a finished piece for the scrollback.
func (m *model) print(s string) {
	if s != "" {
		m.pending = append(m.pending, s)
	}
}

// flush prints what is queued, one print at a time so the scrollback keeps
// the order.
func (m *model) flush() tea.Cmd {
	if m.printing || len(m.pending) == 0 {
		return nil
	}
	s := strings.Join(m.pending, "\n")
	m.pending, m.printing = nil, true
	return m.printer(s)
}

func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
	return m, tea.Batch(cmd, m.flush())
}

func (m *model) update(msg tea.Msg) tea.Cmd {
	switch msg.(type) {
	case tea.KeyPressMsg, Submit, commandMsg:
		m.inputs++
	}
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
	case subscribedMsg:
		if msg.gen != m.gen {
			if msg.st != nil {
				msg.st.Close()
			}
			return nil
		}
		if errors.Is(msg.err, engineapi.ErrGap) {
			// The events after the last one shown are no longer held: go on
			// from the engine's newest.
			m.print(m.th.Warn.Render("some events of this session were not recorded: " + msg.err.Error()))
			return m.skipGap()
		}
		if msg.err != nil {
			m.print(m.th.Error.Render("events: " + msg.err.Error()))
			return nil
		}
		m.sub = msg.st
		return waitEvents(msg.st, msg.gen)
	case eventsMsg:
		if msg.gen != m.gen {
			return nil
		}
		refresh := false
		for _, ev := range msg.evs {
			refresh = m.event(ev) || refresh
		}
		cmds := []tea.Cmd{m.tick()}
		if refresh {
			cmds = append(cmds, m.fetchState())
		}
		switch {
		case !msg.end:
			cmds = append(cmds, waitEvents(m.sub, m.gen))
		case errors.Is(msg.err, engineapi.ErrLagged):
			m.sub.Close()
			cmds = append(cmds, m.subscribe()) // from the last seen event
		default:
			m.flushText()
			m.working = false
			if msg.err != nil {
				m.print(m.th.Error.Render("events: " + msg.err.Error()))
			}
		}
		return tea.Batch(cmds...)
	case gapMsg:
		if msg.gen == m.gen && msg.after > m.lastSeq {
			m.lastSeq = msg.after
		}
		return m.subscribe()
	case stateMsg:
		if msg.gen != m.gen {
			return nil
		}
		if msg.err != nil {
			m.notice = "state: " + msg.err.Error()
			return nil
		}
		m.state = msg.st
		m.composer.SetCustom(msg.st.Commands)
		if msg.st.LastSeq >= m.lastSeq && (msg.st.Status == engineapi.StatusIdle || msg.st.Status == engineapi.StatusClosed) {
			// The events say when a turn starts and ends; a replayed turn
			// that never ended (the process stopped) is not running.
			m.working = false
		}
		return m.tick()
	case pendingMsg:
		if msg.gen == m.gen {
			for _, a := range msg.asks {
				m.addAsk(a)
			}
		}
	case modeMsg:
		return m.modeResult(msg)
	case replyMsg:
		return m.answer(msg.r)
	case commandMsg:
		return m.command(msg.name, msg.args)
	case answeredMsg:
		if msg.err != nil {
			var ae *engineapi.AnsweredError
			switch {
			case errors.As(msg.err, &ae):
				m.notice = fmt.Sprintf("already answered: %s by %s", ae.First.Answer, ae.First.By)
			case errors.Is(msg.err, engineapi.ErrNoAsk):
				m.notice = "that ask is no longer waiting"
			default:
				m.notice = "answer: " + msg.err.Error()
				return m.fetchPending() // still waiting: offer it again
			}
		}
	case outputMsg:
		if msg.err != nil {
			m.print(m.th.Error.Render(msg.err.Error()))
		}
		m.print(msg.text)
	case switchMsg:
		return m.switched(msg)
	case printedMsg:
		m.printing = false
	case tickMsg:
		m.ticking = false
		if m.working {
			m.spin++
			return m.tick()
		}
	case tea.KeyPressMsg:
		return m.key(msg)
	case Submit:
		return m.submit(msg.Text)
	case tea.PasteMsg, tea.PasteStartMsg, tea.PasteEndMsg:
		if m.dialog == nil && !m.showDenied {
			return m.composerUpdate(msg)
		}
	}
	return nil
}

func (m *model) resize(w, h int) {
	if w <= 0 || h <= 0 {
		return
	}
	m.width, m.height = w, h
	m.composer.SetWidth(w)
	if m.dialog != nil {
		m.dialog.SetWidth(w)
	}
	if w != m.md.width {
		m.md.setWidth(w, m.o.Dark) // a new glamour renderer: only when the width changed
	}
}

func (m *model) tick() tea.Cmd {
	if !m.working || m.ticking {
		return nil
	}
	m.ticking = true
	return tea.Tick(100*time.Millisecond, func(time.Time) tea.Msg { return tickMsg{} })
}

func (m *model) setWorking(on bool) {
	if on && !m.working {
		m.started = m.now()
	}
	m.working = on
}

// flushText commits the unfinished answer (another event follows it).
func (m *model) flushText() {
	if m.md.Active() {
		m.print(m.md.Flush())
	}
}

// event renders one event; true when the state should be fetched again.
func (m *model) event(ev engineapi.SessionEvent) bool {
	if ev.Seq != 0 && ev.Seq <= m.lastSeq {
		return false // seen before a resubscribe
	}
	m.lastSeq = ev.Seq
	m.denied.Observe(ev)
	e := untrusted(ev.Event)
	if e.Type != engineapi.EventText && e.Type != engineapi.EventUsage {
		m.flushText()
	}
	w := m.width
	switch e.Type {
	case engineapi.EventStart:
		m.print(m.th.Accent.Render("> ") + oneLine(e.Text, w-2))
		m.setWorking(true)
		return true
	case engineapi.EventText:
		m.print(m.md.Push(e.Text))
	case engineapi.EventToolCall:
		if e.ToolCall != nil {
			m.print(toolLine(m.th, *e.ToolCall, w))
		}
	case engineapi.EventPermission:
		if e.Decision != nil {
			by := ""
			if e.ToolCall != nil {
				by = m.answeredBy[e.ToolCall.ID]
				delete(m.answeredBy, e.ToolCall.ID)
			}
			m.print(decisionLine(m.th, e.Decision, by, w))
		}
	case engineapi.EventToolResult:
		if e.Result != nil {
			m.print(resultLines(m.th, e.Result, w))
		}
	case engineapi.EventUsage:
		if e.Usage != nil {
			m.usage = m.usage.Add(*e.Usage)
		}
		if e.Context != nil {
			m.ctxUse = e.Context
		}
	case engineapi.EventCompaction:
		m.compacted(e.Compaction)
	case engineapi.EventRetry:
		m.print(m.th.Warn.Render("  retrying: " + e.Text))
	case engineapi.EventError:
		m.print(m.th.Error.Render("error: " + e.Text))
	case engineapi.EventDone:
		m.print(doneLine(m.th, e))
		m.working = false
		return true
	case engineapi.EventModeChange:
		m.print(modeLine(m.th, e))
		if e.Key == "" || e.Key == "permission_mode" {
			m.state.Mode.Mode = permission.Mode(e.Mode)
		}
		return true
	case engineapi.EventInstructions:
		m.print(m.th.Muted.Render("instructions: " + clean(e.Text)))
	case engineapi.EventMCP:
		s := fmt.Sprintf("mcp %s: %s", e.Key, e.Mode)
		if e.Text != "" {
			s += " — " + e.Text
		}
		m.print(m.th.Muted.Render(s))
	case engineapi.EventAsk:
		if e.Ask != nil {
			m.addAsk(*e.Ask)
		}
		return true
	case engineapi.EventResolved:
		if a, ok := m.asked[e.AskID]; ok && a.callID != "" {
			m.answeredBy[a.callID] = e.By
		}
		m.resolved(e)
		delete(m.asked, e.AskID)
		return true
	case engineapi.EventAdvice:
		m.print(adviceLine(m.th, e))
	case engineapi.EventHook:
		if s := engineapi.HookLine(e); s != "" {
			m.print(m.th.Muted.Render(sanitize(s, false)))
		}
	case engineapi.EventCommand:
		m.print(m.commandLines(e))
	case engineapi.EventCheckpoint:
		m.print(checkpointLine(m.th, e.Checkpoint))
	}
	return false
}

// addAsk queues an ask (once); the first opens the dialog (a question is
// answered in the composer).
func (m *model) addAsk(a engineapi.PendingAsk) {
	for _, q := range m.asks {
		if q.ID == a.ID {
			return
		}
	}
	m.asked[a.ID] = askedCall{callID: a.CallID, kind: a.Kind}
	m.asks = append(m.asks, a)
	m.showAsk()
}

// showAsk opens the dialog for the first ask when none is open.
func (m *model) showAsk() {
	if len(m.asks) == 0 {
		m.dialog = nil
		m.composer.Focus()
		return
	}
	a := m.asks[0]
	if a.Kind == "question" {
		m.dialog = nil
		m.composer.Focus()
		return
	}
	if m.dialog == nil || m.dialog.Ask.ID != a.ID {
		m.dialog = NewDialog(a, len(m.asks)-1, m.th, m.width)
		m.composer.Blur()
	}
}

// dropAsk takes an ask off the queue.
func (m *model) dropAsk(id string) bool {
	for i, q := range m.asks {
		if q.ID == id {
			m.asks = append(m.asks[:i:i], m.asks[i+1:]...)
			if m.dialog != nil && m.dialog.Ask.ID == id {
				m.dialog = nil
			}
			m.showAsk()
			return true
		}
	}
	return false
}

// resolved closes an ask another client (or this one) answered.
func (m *model) resolved(e engineapi.Event) {
	var ask *engineapi.PendingAsk
	for i := range m.asks {
		if m.asks[i].ID == e.AskID {
			a := m.asks[i]
			ask = &a
		}
	}
	m.dropAsk(e.AskID)
	if m.asked[e.AskID].kind == engineapi.KindQuestion {
		m.print(m.th.Muted.Render("  ↳ " + oneLine(e.Answer, m.width-4)))
	}
	if e.By != "" && e.By != clientLabel && ask != nil {
		m.notice = fmt.Sprintf("%s answered %s: %s", e.By, ask.Tool, e.Answer)
	}
}

// answer sends a reply to the first ask.
func (m *model) answer(r engineapi.Reply) tea.Cmd {
	if len(m.asks) == 0 {
		return nil
	}
	a := m.asks[0]
	r.By = clientLabel
	m.dropAsk(a.ID)
	eng, ctx := m.eng, m.ctx
	return func() tea.Msg {
		return answeredMsg{id: a.ID, err: eng.Answer(ctx, a.ID, r)}
	}
}

// question is the ask the composer answers (nil: none).
func (m *model) question() *engineapi.PendingAsk {
	if len(m.asks) > 0 && m.asks[0].Kind == "question" {
		return &m.asks[0]
	}
	return nil
}

func (m *model) key(k tea.KeyPressMsg) tea.Cmd {
	switch k.String() {
	case "ctrl+c":
		return m.interrupt()
	case "ctrl+d":
		if m.dialog == nil && !m.showDenied && m.composer.Value() == "" {
			return tea.Quit
		}
	}
	m.notice = "" // a notice is for the press that caused it
	if m.dialog != nil {
		if done, r := m.dialog.Update(k); done {
			return func() tea.Msg { return replyMsg{r} }
		}
		return nil
	}
	if m.showDenied {
		retry, done := m.denied.Update(k)
		if retry != nil {
			m.showDenied = false
			return m.retry(*retry)
		}
		if done || k.String() == "esc" {
			m.showDenied = false
		}
		return nil
	}
	switch k.String() {
	case "shift+tab":
		return m.cycleMode()
	case "ctrl+o":
		return m.requestMode(permission.BypassPermissions, "always-approve")
	case "esc":
		if q := m.question(); q != nil && m.composer.Value() == "" {
			return m.answer(engineapi.Reply{Answer: engineapi.Deny})
		}
	}
	return m.composerUpdate(k)
}

func (m *model) composerUpdate(msg tea.Msg) tea.Cmd {
	cmd, sub := m.composer.Update(msg)
	if sub != nil {
		return tea.Batch(cmd, m.submit(sub.Text))
	}
	return cmd
}

// interrupt is Ctrl+C: cancel the running turn; twice within the window
// exits.
func (m *model) interrupt() tea.Cmd {
	now := m.now()
	if !m.lastInterrupt.IsZero() && now.Sub(m.lastInterrupt) <= interruptWindow {
		return tea.Quit
	}
	m.lastInterrupt = now
	if m.working || len(m.asks) > 0 {
		m.notice = "cancelling the turn (Ctrl+C again to exit)"
		eng, ctx := m.eng, m.ctx
		return func() tea.Msg {
			if err := eng.Abort(ctx); err != nil {
				return outputMsg{err: fmt.Errorf("abort: %w", err)}
			}
			return nil
		}
	}
	m.notice = "press Ctrl+C again to exit"
	return nil
}

// retry asks the model to run a denied call again: it goes through the
// permission gate again (an approval is the user's, as for any call).
func (m *model) retry(c DeniedCall) tea.Cmd {
	prompt := fmt.Sprintf("Please run that exact call again: the %s tool on %s. It was denied (%s); it goes through the permission gate again.",
		c.Tool, c.Target, c.Reason)
	return m.send(prompt)
}

func (m *model) send(prompt string) tea.Cmd {
	eng, ctx := m.eng, m.ctx
	return func() tea.Msg {
		if err := eng.Send(ctx, prompt); err != nil {
			return outputMsg{err: fmt.Errorf("send: %w", err)}
		}
		return nil
	}
}

// submit is Enter in the composer: a slash command, a question's answer or
// a prompt.
func (m *model) submit(text string) tea.Cmd {
	if strings.TrimSpace(text) == "" {
		return nil
	}
	if name, args, ok := ParseCommand(text); ok {
		if m.customCommand(name) {
			return m.send(text) // the engine expands it
		}
		return m.command(name, args)
	}
	if q := m.question(); q != nil {
		return m.answer(engineapi.Reply{Answer: engineapi.Answer(text)})
	}
	return m.send(text)
}

// switched installs the engine /sessions or /clear opened.
func (m *model) switched(msg switchMsg) tea.Cmd {
	if msg.err != nil {
		m.print(m.th.Error.Render(msg.err.Error()))
		return nil
	}
	m.flushText()
	if m.sub != nil {
		m.sub.Close()
		m.sub = nil
	}
	old := m.eng
	m.eng, m.gen, m.lastSeq = msg.eng, m.gen+1, 0
	m.asks, m.dialog, m.showDenied, m.working, m.usage, m.ctxUse = nil, nil, false, false, message.Usage{}, nil
	m.state, m.cycleAt = engineapi.State{}, ""
	id := msg.eng.ID()
	if id == "" {
		id = "(new)" // recorded with its first prompt
	}
	m.print(m.th.Muted.Render("─── session " + id + " ───"))
	return tea.Batch(m.attach(), func() tea.Msg {
		if err := old.Close(); err != nil {
			return outputMsg{err: fmt.Errorf("close the previous session: %w", err)}
		}
		return nil
	})
}

// View is the live region: the streaming tail, the question, the dialog
// (or the denied list, or the composer) and the status line.
func (m *model) View() tea.View {
	return tea.NewView(m.render())
}

func (m *model) render() string {
	var parts []string
	var below []string
	if q := m.question(); q != nil {
		below = append(below, m.th.Accent.Render("? ")+oneLine(q.Target, m.width-2))
		if len(q.Choices) > 0 {
			below = append(below, m.th.Muted.Render("  "+oneLine(strings.Join(q.Choices, " · ")+" (type an answer, Esc declines)", m.width-2)))
		}
	}
	status := m.statusLine()
	switch {
	case m.dialog != nil:
		// The dialog gets the rows the status line leaves: a long diff
		// shows fewer lines so the choices stay on the screen.
		m.dialog.SetHeight(m.height - 1 - strings.Count(status, "\n"))
		below = append(below, m.dialog.View())
	case m.showDenied:
		below = append(below, m.denied.View())
	default:
		below = append(below, m.composer.View())
	}
	below = append(below, status)
	rest := strings.Join(nonEmpty(below), "\n")
	if tail := m.md.View(); tail != "" {
		// The tail gets the rows the rest leaves (the newest lines).
		room := m.height - strings.Count(rest, "\n") - 1
		parts = append(parts, lastLines(tail, max(room, 1)))
	}
	parts = append(parts, rest)
	return strings.Join(nonEmpty(parts), "\n")
}

func nonEmpty(ss []string) []string {
	out := ss[:0:0]
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// lastLines is s's last n lines.
func lastLines(s string, n int) string {
	idx := len(s)
	for i := 0; i < n; i++ {
		j := strings.LastIndexByte(s[:idx], '\n')
		if j < 0 {
			return s
		}
		idx = j
	}
	return s[idx+1:]
}

// plain is a rendering without its styles (for tests and the docs).
func plain(s string) string { return ansi.Strip(s) }

// untrusted returns e with the texts that come from the model, a tool or
// a command made safe for the terminal: a tool's output or the model's
// answer that carries escape sequences (OSC 52 writing the clipboard, a
// cursor move that overwrites what the pager drew, a hyperlink that lies
// about its target) is shown as text, never interpreted. Tabs and newlines
// in the answer stay (markdown needs them).
//
// The other texts the scrollback prints from an event are cleaned here
// too, not where each line is drawn: a tool's name is the model's, an MCP
// server's (Key) a project's .mcp.json, a stop reason the provider's, an
// advice's reasons may quote an advisor's error.
func untrusted(e engineapi.Event) engineapi.Event {
	e.Text = cleanText(e.Text)
	e.Feedback = clean(e.Feedback)
	e.Key, e.Mode, e.Requested = clean(e.Key), clean(e.Mode), clean(e.Requested)
	e.StopReason, e.Answer, e.By = clean(e.StopReason), clean(e.Answer), clean(e.By)
	if e.Result != nil {
		r := *e.Result
		r.Content = cleanText(r.Content)
		e.Result = &r
	}
	if e.ToolCall != nil {
		tc := *e.ToolCall
		tc.Name = clean(tc.Name)
		e.ToolCall = &tc
	}
	if e.Advice != nil {
		a := *e.Advice
		a.Reasons = make([]string, len(a.Reasons))
		for i, r := range e.Advice.Reasons {
			a.Reasons[i] = clean(r)
		}
		e.Advice = &a
	}
	return e
}

// cleanText is clean keeping tabs.
func cleanText(s string) string { return sanitize(s, true) }
