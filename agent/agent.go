// Package agent is the turn loop: prompt → model → tool calls → a permission
// decision for each call → run → results back to the model → … until the
// model stops, a limit is hit or the caller cancels. Every step is an Event
// on one stream.
//
// The runtime takes its configuration as plain values (Config) and never
// reads config files: the CLI resolves the layers, turns them into a Gate,
// tools and a provider, and hands them over. A requirements lock is enforced
// here too, because the Gate's engine carries the locks.
package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/oceancode/oceancode/agent/commands"
	"github.com/oceancode/oceancode/agent/compact"
	"github.com/oceancode/oceancode/agent/engineapi"
	"github.com/oceancode/oceancode/agent/gate"
	"github.com/oceancode/oceancode/agent/hooks"
	"github.com/oceancode/oceancode/agent/jev"
	"github.com/oceancode/oceancode/agent/message"
	"github.com/oceancode/oceancode/agent/modelinfo"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/provider"
	"github.com/oceancode/oceancode/agent/tools"
)

// Config is everything one run needs.
type Config struct {
	Agent    string // build, plan, explore or a custom agent
	Model    string // the model name sent to the provider
	System   string // the system prompt
	Provider provider.Provider
	Gate     *gate.Gate
	// Tools are the tools this agent may be offered; those the rules deny
	// outright are left out of every request.
	Tools []tools.Tool
	Env   *tools.Env
	// Approvals remembers "always" answers for the session.
	Approvals *permission.Approvals
	// Ask puts a permission ask to the user; nil in headless runs. An error
	// is taken for a deny.
	Ask func(ctx context.Context, a Ask) (Reply, error)
	// Auto approves asks in headless runs (the floor and deny rules still
	// win).
	Auto bool
	// MaxTurns bounds model calls (0 = 50); Timeout bounds the run (0 = none).
	MaxTurns int
	Timeout  time.Duration
	// MaxTokens per model call (0 = the provider's default).
	MaxTokens int
	// OnEvent receives every event, in order, one at a time: from the run's
	// goroutine, and for a shadow advice (the Jev advisor answering in the
	// background) from the goroutine that waited for it — possibly after
	// the run returned, unless AdviceContext is done by then.
	OnEvent func(Event)
	// Advisor is the Jev permission advisor (nil: off). Keep one per
	// session: it caches its verdicts. See docs/jev.md.
	Advisor *jev.Advisor
	// ProjectRoot is the project root the advisor's eligibility checks
	// paths against ("": Env.Boundary.ProjectRoot).
	ProjectRoot string
	// AdviceContext bounds shadow advice that outlives the turn (the
	// session's life: cancelled when it closes); nil: the run's ctx.
	AdviceContext context.Context
	// Workspace is the workspace's trust, carried by the start event (nil:
	// not known, left out).
	Workspace *WorkspaceTrust
	// Notices are events the caller knew before the run (a mode or sandbox
	// setting the requirements downgraded): they are emitted right after
	// start, stamped with the time like every other event.
	Notices []Event
	// Redact, if set, is applied to every tool result before the model, the
	// events and the session store see it: the CLI redacts the values of
	// the secrets oceancode holds and credential-shaped strings
	// (internal/secretenv), so `echo $ANTHROPIC_API_KEY` or a key a command
	// finds elsewhere does not reach the model.
	Redact func(string) string
	// OnMessage receives every message added to the conversation (the
	// prompt, each answer, each set of tool results) as soon as it is
	// complete, so a session store can commit it before the run goes on.
	OnMessage func(message.Message)
	// Extra, if set, is called at the start of each run for tools beyond
	// Tools — the MCP servers' (it waits for their listing) — and events to
	// tell with them (a server that did not start, and why).
	Extra func(ctx context.Context) ([]tools.Tool, []Event)
	// Touched, if set, is told the path each target of a tool call that
	// ran touched ("" = the working directory) and the call's working
	// directory; add is added to the call's result (a subdirectory's
	// instructions the first time a tool touches it: agent/instructions),
	// and files, when not "", is told in an instructions event (see
	// touched).
	Touched func(path, cwd string) (add, files string)
	// BeforeChange, if set, is called before each allowed tool call that
	// may change files (every tool but the read-only built-ins, see
	// MayChange): the runner takes the turn's checkpoint there, once.
	BeforeChange func(ctx context.Context, tool string)
	// QuietStart leaves out the Notices and the mode downgrade at start: a
	// later turn of a session whose first turn told them.
	QuietStart bool
	// Hooks runs the session's hooks of one event (docs/hooks.md; nil:
	// none): agent/hooks.Runner.Fire. The loop calls it at session start,
	// before a prompt is added, before and after each tool call, when an
	// ask is put to the user and when the model stops (hookcalls.go).
	Hooks func(ctx context.Context, in hooks.Input) hooks.Result
	// Commands are the session's custom commands (agent/commands): a prompt
	// "/name args" naming one runs as its expansion (command.go).
	Commands *commands.Set
	// Compaction keeps each request inside the model's context window
	// (compaction.go, agent/compact); Compacted is the compaction already
	// in effect on the history (the last turn's Result.Compacted, or what
	// a resumed session's last compaction event recorded).
	Compaction compact.Settings
	Compacted  compact.State
	// Price prices each call's usage (Usage.CostUSD); nil: not known.
	Price *modelinfo.Price
}

type callKey struct{}

// CallOf returns the tool call a tool runs for (its ctx comes from the turn
// loop): the question tool's broker ties a question to its call with it.
func CallOf(ctx context.Context) (message.ToolCall, bool) {
	c, ok := ctx.Value(callKey{}).(message.ToolCall)
	return c, ok
}

// Ask is a permission question for the user.
type Ask struct {
	ToolCall message.ToolCall
	Target   tools.Target
	Decision permission.Decision
	// Event is the decision as events show it (rule, layer, source, line).
	Event *Decision
	// Rememberable says an "always" answer can be remembered for the
	// session (otherwise it counts as once).
	Rememberable bool
	// Gate is the gate's whole result (the shell guard's segments, the
	// resolved path, the call an "always" is recorded against), for an
	// ask that shows them.
	Gate *gate.Result
	// Advice is the Jev advisor's advice in act mode when it did not
	// approve the call (unsafe, unavailable, timeout): the prompt shows it.
	Advice *jev.Advice
}

// Reply is the user's answer to an Ask and what they want the model told
// with it (Feedback, optional): with a deny it is the reason the model reads
// in the tool result, with an approval a note that goes with the result.
type Reply struct {
	Answer   Answer
	Feedback string
}

// Result is how a run ended.
type Result struct {
	Messages   []message.Message // the whole conversation, history included
	Usage      message.Usage
	StopReason string // the model's, or "max_turns", "cancelled", "timeout"
	Turns      int
	// Denied counts tool calls the policy refused (for --fail-on-deny),
	// the Jev advisor's headless rejections included.
	Denied int
	// Compacted is the compaction in effect after the run (Config.Compacted
	// for the next).
	Compacted compact.State
}

// The stop reasons the loop sets itself (Result.StopReason); otherwise it
// is the model's own (end_turn, max_tokens, …).
const (
	StopMaxTurns  = string(engineapi.StopMaxTurns)
	StopCancelled = string(engineapi.StopCancelled)
	StopTimeout   = string(engineapi.StopTimeout)
	StopError     = string(engineapi.StopError)
	// StopAdvisorBreaker (advice.go): the Jev advisor's circuit breaker.
)

// ErrMaxTurns is returned when the run hit MaxTurns.
var ErrMaxTurns = errors.New("agent: the run reached its turn limit")

// Run continues history with prompt and runs until the model stops.
func Run(ctx context.Context, c Config, history []message.Message, prompt string) (Result, error) {
	return loop(ctx, c, history, &prompt)
}

// Continue runs the tool calls of history's last message, an assistant
// message whose calls have no results yet (a session stopped while a call
// waited for an answer), each through the gate again, and then goes on with
// the turn loop as Run does, without a new prompt. Without such calls it
// asks the model to go on from history as it is.
func Continue(ctx context.Context, c Config, history []message.Message) (Result, error) {
	return loop(ctx, c, history, nil)
}

func loop(ctx context.Context, c Config, history []message.Message, prompt *string) (Result, error) {
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	if c.MaxTurns <= 0 {
		c.MaxTurns = 50
	}
	if c.Approvals == nil {
		c.Approvals = &permission.Approvals{}
	}
	var cmdEvent *Event
	c, prompt, cmdEvent = expandCommand(c, prompt)
	r := &run{c: c, byName: map[string]tools.Tool{}}
	var extraEvents []Event
	if c.Extra != nil {
		var more []tools.Tool
		more, extraEvents = c.Extra(ctx)
		r.c.Tools = append(append([]tools.Tool(nil), c.Tools...), more...)
	}
	r.offer()
	res := Result{Messages: append([]message.Message(nil), history...), Compacted: c.Compacted}
	add := func(m message.Message) {
		res.Messages = append(res.Messages, m)
		if c.OnMessage != nil {
			c.OnMessage(m)
		}
	}
	var pendingCalls []message.ToolCall
	if n := len(res.Messages); n > 0 && res.Messages[n-1].Role == message.Assistant {
		pendingCalls = res.Messages[n-1].ToolCalls()
	}
	text := ""
	var pm *message.Message // the prompt, added after its hooks ran
	if prompt != nil {
		text = *prompt
		// A session that stopped between the model's tool calls and their
		// results (a crash, kill -9) is resumed with those calls answered as
		// interrupted: both wire formats refuse unanswered tool calls, and the
		// model must not assume a call it cannot see the end of ran or not.
		if len(pendingCalls) > 0 {
			fix := message.Message{Role: message.User}
			for _, tc := range pendingCalls {
				fix.Parts = append(fix.Parts, message.Part{Type: message.ToolOutput, ToolResult: &message.ToolResult{
					CallID: tc.ID, IsError: true,
					Content: "interrupted: the session stopped before this call's result was recorded; it may or may not have run — check before repeating it"}})
			}
			add(fix)
			pendingCalls = nil
		}
		m := message.UserText(text)
		pm = &m
	}
	r.emit(Event{Type: EventStart, Agent: c.Agent, Mode: string(c.Gate.Engine().Mode()), Text: text, Workspace: c.Workspace})
	if !c.QuietStart {
		for _, n := range c.Notices {
			n.Time = time.Time{} // stamped now, after start
			r.emit(n)
		}
		if ch := c.Gate.Engine().ModeChange(); ch.Downgraded() {
			r.emit(Event{Type: EventModeChange, Key: "permission_mode", Requested: string(ch.Requested), Mode: string(ch.Effective), Text: ch.Reason})
		}
	}
	if cmdEvent != nil {
		r.emit(*cmdEvent)
	}
	for _, e := range extraEvents {
		r.emit(e)
	}
	if why := r.startHooks(ctx, pm, len(history) > 0); why != "" {
		return r.hookEnded(&res, why)
	}
	if pm != nil {
		add(*pm)
	}
	done := func(err error) (Result, error) {
		res.StopReason = stopReason(ctx, err)
		r.emit(Event{Type: EventDone, StopReason: res.StopReason, Usage: &res.Usage})
		return res, err
	}
	broke := func() (Result, error) {
		res.StopReason = StopAdvisorBreaker
		r.emit(Event{Type: EventDone, StopReason: res.StopReason, Usage: &res.Usage})
		return res, ErrAdvisorBreaker
	}
	if len(pendingCalls) > 0 {
		add(r.toolCalls(ctx, pendingCalls, &res))
		if err := ctx.Err(); err != nil {
			return done(err)
		}
		if r.brk.open {
			return broke()
		}
	}
	for res.Turns < c.MaxTurns {
		res.Turns++
		resp, err := c.Provider.Stream(ctx, r.request(ctx, &res), r.onProviderEvent)
		if errors.Is(err, provider.ErrContextTooLong) && ctx.Err() == nil {
			resp, err = r.retryShorter(ctx, &res, err)
		}
		if err != nil {
			if cause := context.Cause(ctx); ctx.Err() != nil && cause != ctx.Err() {
				err = cause // why the run was stopped, not just that it was
			}
			r.emit(Event{Type: EventError, Text: err.Error()})
			return done(err)
		}
		r.account(&res, resp.Usage, r.est)
		resp.Message.Role = message.Assistant
		add(resp.Message)
		calls := resp.Message.ToolCalls()
		if len(calls) == 0 {
			if more := r.stopHooks(ctx); more != "" {
				add(message.UserText(more))
				continue
			}
			res.StopReason = resp.StopReason
			r.emit(Event{Type: EventDone, StopReason: res.StopReason, Usage: &res.Usage})
			return res, nil
		}
		add(r.toolCalls(ctx, calls, &res))
		if err := ctx.Err(); err != nil {
			return done(err)
		}
		if r.brk.open {
			return broke()
		}
		if r.hookStop != "" {
			return r.hookEnded(&res, r.hookStop)
		}
	}
	res.StopReason = StopMaxTurns
	r.emit(Event{Type: EventDone, StopReason: res.StopReason, Usage: &res.Usage})
	return res, ErrMaxTurns
}

// toolCalls decides and runs calls in order and returns their results as
// one message.
func (r *run) toolCalls(ctx context.Context, calls []message.ToolCall, res *Result) message.Message {
	results := message.Message{Role: message.User}
	for _, call := range calls {
		out := r.toolCall(ctx, call, res)
		results.Parts = append(results.Parts, message.Part{Type: message.ToolOutput, ToolResult: &out})
	}
	return results
}

type run struct {
	c      Config
	byName map[string]tools.Tool
	defs   []provider.ToolDef
	loop   permission.LoopDetector
	emitMu sync.Mutex // OnEvent one event at a time (a shadow advice emits from its own goroutine)
	brk    breaker
	// hookStop is why a hook ended the run ("" = none); stopBlocks counts
	// the Stop hooks' blocks (hookcalls.go).
	hookStop   string
	stopBlocks int
	meter      compact.Meter // calibrates request estimates with reported usage
	est        int64         // the estimate of the request being sent
}

// offer keeps the tools the rules do not deny outright (an MCP tool: by
// its <server>/<tool> pattern).
func (r *run) offer() {
	var names []string
	all := map[string]tools.Tool{}
	eng := r.c.Gate.Engine()
	for _, t := range r.c.Tools {
		n := t.Def().Name
		if m, ok := t.(tools.MCPTool); ok {
			if _, dup := all[n]; dup || !eng.OfferedMCP(m.MCPName()) {
				continue
			}
			r.byName[n] = t
			r.defs = append(r.defs, t.Def())
			continue
		}
		names = append(names, n)
		all[n] = t
	}
	for _, n := range r.c.Gate.Engine().Offered(names) {
		r.byName[n] = all[n]
		r.defs = append(r.defs, all[n].Def())
	}
}

func (r *run) emit(e Event) {
	if r.c.OnEvent == nil {
		return
	}
	r.emitMu.Lock()
	defer r.emitMu.Unlock()
	if e.Time.IsZero() {
		e.Time = time.Now().UTC()
	}
	r.c.OnEvent(e)
}

func (r *run) onProviderEvent(e provider.Event) {
	switch e.Type {
	case provider.TextDelta:
		r.emit(Event{Type: EventText, Text: e.Text})
	case provider.Retry:
		msg := "retrying"
		if e.Err != nil {
			msg = e.Err.Error()
		}
		r.emit(Event{Type: EventRetry, Text: msg})
	}
}

// toolCall decides and runs one call and returns what goes back to the model.
func (r *run) toolCall(ctx context.Context, call message.ToolCall, res *Result) message.ToolResult {
	c := call
	r.emit(Event{Type: EventToolCall, ToolCall: &c})
	fail := func(msg string) message.ToolResult {
		out := message.ToolResult{CallID: call.ID, Content: msg, IsError: true}
		r.emit(Event{Type: EventToolResult, ToolCall: &c, Result: &out})
		return out
	}
	if r.brk.open {
		return fail("not run: the Jev advisor's circuit breaker stopped the run")
	}
	t, ok := r.byName[call.Name]
	if !ok {
		return fail(fmt.Sprintf("unknown tool %q: the tools offered are %s", call.Name, strings.Join(r.names(), ", ")))
	}
	var notes string // what the user said with an approval
	targets, err := tools.TargetsOf(t, call.Input)
	if err != nil {
		return fail(fmt.Sprintf("invalid input for %s: %v", call.Name, err))
	}
	hr, denied := r.preToolUse(ctx, call, res)
	if denied != "" {
		return fail(denied)
	}
	// Doom-loop guard: the same tool with the same input three times in a
	// row asks before continuing.
	if r.loop.Observe(call.Name, call.Input) {
		d := r.c.Gate.Check(gate.Call{Tool: "doom_loop", Input: permission.Key(call.Name), Approvals: r.c.Approvals})
		ok, msg := r.settle(ctx, call, tools.Target{Tool: "doom_loop", Input: call.Name}, d, res)
		if !ok {
			return fail(msg + " (the same call was made three times in a row; try something else)")
		}
		notes = appendNote(notes, msg)
	}
	for _, tg := range targets {
		cwd := tg.Cwd
		if cwd == "" && r.c.Env != nil {
			cwd = r.c.Env.Cwd
		}
		kind := t.Kind()
		if tg.Kind != gate.KindUnset {
			kind = tg.Kind
		}
		d := hookGate(hr, r.c.Gate.Check(gate.Call{Tool: tg.Tool, Kind: kind, Input: tg.Input, Cwd: cwd, MCPOrigin: tg.MCPOrigin, MCPIdentity: tg.MCPIdentity, Approvals: r.c.Approvals}))
		ok, msg := r.settle(ctx, call, tg, d, res)
		if !ok {
			return fail(msg)
		}
		notes = appendNote(notes, msg)
	}
	// A run stopped meanwhile (Ctrl-C, its timeout, the session that could
	// not be recorded) starts no tool.
	if err := ctx.Err(); err != nil {
		return fail(fmt.Sprintf("not run: the run was stopped (%v)", context.Cause(ctx)))
	}
	if r.c.BeforeChange != nil && MayChange(call.Name) {
		r.c.BeforeChange(ctx, call.Name)
	}
	out := t.Run(context.WithValue(ctx, callKey{}, call), r.c.Env, call.Input)
	out.Content += r.touched(targets)
	if r.c.Redact != nil {
		out.Content = r.c.Redact(out.Content)
	}
	if notes != "" {
		out.Content = notes + "\n\n" + out.Content
	}
	tr := message.ToolResult{CallID: call.ID, Content: out.Content, IsError: out.IsError}
	r.postToolUse(ctx, call, &tr)
	r.emit(Event{Type: EventToolResult, ToolCall: &c, Result: &tr})
	return tr
}

// appendNote adds an approval's note to notes.
func appendNote(notes, note string) string {
	switch {
	case note == "":
		return notes
	case notes == "":
		return note
	}
	return notes + "\n" + note
}

// settle turns a decision into go or no-go, asking the user or applying the
// headless policy for an ask, and reports it as an event. The string is why
// not (no-go), or what the user said with an approval ("" when nothing).
func (r *run) settle(ctx context.Context, call message.ToolCall, tg tools.Target, gr gate.Result, res *Result) (bool, string) {
	d := gr.Decision
	ev := eventDecision(gr)
	c := call
	switch d.Action {
	case permission.Allow:
		r.emit(Event{Type: EventPermission, ToolCall: &c, Decision: ev})
		return true, ""
	case permission.Deny:
		r.emit(Event{Type: EventPermission, ToolCall: &c, Decision: ev})
		res.Denied++
		return false, d.Explain()
	}
	// Ask. The Jev advisor first, for what may reach it.
	auto := r.c.Ask == nil && r.c.Auto && !d.Posture()
	var adv *jev.Advice
	var sh *shadow
	var req jev.Request
	ok := false
	if r.c.Ask != nil || auto { // else the ask is a deny: Eligible's file system checks would be wasted
		req, ok = r.advisorRequest(tg, gr, res)
	}
	if ok {
		if r.c.Advisor.Mode() != jev.Act {
			sh = r.adviseShadow(ctx, call, req)
		} else {
			a := r.adviseNow(ctx, req) // Mode and Acted set (Advise, or adviseNow's timeout)
			why := ""
			if auto {
				why = rejection(a)
			}
			r.emit(Event{Type: EventAdvice, ToolCall: &c, Advice: &a})
			if auto {
				r.brk.observe(why != "")
			}
			switch {
			case why != "":
				ev.Answer = "jev:rejected"
				r.emit(Event{Type: EventPermission, ToolCall: &c, Decision: ev})
				res.Denied++
				return false, rejectionText(a, why)
			case a.Acted:
				ev.Answer = "jev"
				r.emit(Event{Type: EventPermission, ToolCall: &c, Decision: ev})
				return true, ""
			}
			adv = &a
		}
	}
	switch {
	case r.c.Ask != nil:
		r.notify(ctx, call)
		evc := *ev
		rep, err := r.c.Ask(ctx, Ask{ToolCall: call, Target: tg, Decision: d, Event: &evc, Rememberable: rememberable(gr.Call) && !d.Posture(), Gate: &gr, Advice: adv})
		if err != nil {
			rep = Reply{Answer: Deny}
		}
		sh.label(rep)
		ev.Answer = "user:" + string(rep.Answer)
		pe := Event{Type: EventPermission, ToolCall: &c, Decision: ev}
		if adv != nil || sh != nil {
			pe.Feedback = rep.Feedback // the label's feedback
		}
		r.emit(pe)
		note := ""
		if rep.Feedback != "" {
			note = "The user approved this call and said: " + rep.Feedback
		}
		switch rep.Answer {
		case Always:
			r.c.Approvals.Approve(gr.Call, permission.Always)
			return true, note
		case Once:
			return true, note
		}
		res.Denied++
		if rep.Feedback != "" {
			return false, "the user declined this call: " + rep.Feedback
		}
		return false, "the user declined this call"
	case auto: // the default-deny shell posture is not --auto's to approve
		ev.Answer = "auto"
		r.emit(Event{Type: EventPermission, ToolCall: &c, Decision: ev})
		return true, ""
	}
	ev.Answer = "refused"
	r.emit(Event{Type: EventPermission, ToolCall: &c, Decision: ev})
	res.Denied++
	return false, "refused: this headless run cannot ask for approval. " + d.Explain()
}

// rememberable reports whether Approvals can remember an "always" for c.
func rememberable(c permission.Call) bool {
	return !(permission.Key(c.Tool) == "bash" && c.Shell != nil &&
		(c.Shell.Verdict == permission.VerdictFloor || c.Shell.Verdict == permission.VerdictDeny))
}

func eventDecision(gr gate.Result) *Decision {
	d := gr.Decision
	return &Decision{Action: d.Action.String(), Floor: d.Floor, Rule: gr.Decider(), Reason: d.Reason, Unit: d.Pattern,
		Layer: d.Origin.Layer.String(), Source: d.Origin.Source, Line: d.Origin.Line, Approved: d.Approved}
}

func (r *run) names() []string {
	var out []string
	for _, d := range r.defs {
		out = append(out, d.Name)
	}
	return out
}

func stopReason(ctx context.Context, err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded):
		return StopTimeout
	case errors.Is(err, context.Canceled) || errors.Is(ctx.Err(), context.Canceled):
		return StopCancelled
	}
	return StopError
}
