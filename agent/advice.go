package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/oceancode/oceancode/agent/engineapi"
	"github.com/oceancode/oceancode/agent/gate"
	"github.com/oceancode/oceancode/agent/jev"
	"github.com/oceancode/oceancode/agent/message"
	"github.com/oceancode/oceancode/agent/tools"
)

// StopAdvisorBreaker is the stop reason of a headless --auto run the Jev
// advisor's circuit breaker stopped (see Breaker*).
const StopAdvisorBreaker = string(engineapi.StopAdvisorBreaker)

// ErrAdvisorBreaker is returned when the advisor's circuit breaker stopped
// the run: too many of its calls were rejected (oceancode run exits 6).
var ErrAdvisorBreaker = errors.New("agent: the Jev advisor rejected too many calls; the run was stopped (circuit breaker)")

// The circuit breaker of headless --auto with an act advisor: the run stops
// after BreakerConsecutive rejections in a row, or BreakerWindowRejections
// rejections among the last BreakerWindow advised decisions.
const (
	BreakerConsecutive      = 3
	BreakerWindow           = 50
	BreakerWindowRejections = 10
)

// ShadowTimeout bounds a shadow advice running in the background.
const ShadowTimeout = 30 * time.Second

// rejectAt is the likelihood (percent) from which an unsafe act advice's
// "destructive" or "network egress" answer rejects a headless --auto call.
const rejectAt = 50

// NoCircumvention ends every rejection the model reads.
const NoCircumvention = "Do not try to reach the same outcome another way; choose a safer alternative or ask the user."

// breaker counts a run's advised decisions under headless --auto.
type breaker struct {
	streak int
	window []bool // true: rejected; the last BreakerWindow decisions
	open   bool
}

// observe records one advised decision and reports whether the breaker
// tripped.
func (b *breaker) observe(rejected bool) bool {
	b.window = append(b.window, rejected)
	if len(b.window) > BreakerWindow {
		b.window = b.window[1:]
	}
	if rejected {
		b.streak++
	} else {
		b.streak = 0
	}
	n := 0
	for _, r := range b.window {
		if r {
			n++
		}
	}
	if b.streak >= BreakerConsecutive || n >= BreakerWindowRejections {
		b.open = true
	}
	return b.open
}

// advisorRequest is the request the advisor sees for a bash ask, or false
// when the call may not reach it (jev.Eligible, decided in code).
func (r *run) advisorRequest(tg tools.Target, gr gate.Result, res *Result) (jev.Request, bool) {
	if r.c.Advisor == nil || gr.Call.Tool != "bash" {
		return jev.Request{}, false
	}
	cwd := tg.Cwd
	if cwd == "" && r.c.Env != nil {
		cwd = r.c.Env.Cwd
	}
	root := r.c.ProjectRoot
	if root == "" && r.c.Env != nil {
		root = r.c.Env.Boundary.ProjectRoot
	}
	req := jev.Request{Command: tg.Input, Cwd: cwd, ProjectRoot: root, Shell: gr.Shell}
	if err := jev.Eligible(req, gr.Decision, r.c.Gate.Engine().Mode()); err != nil {
		return jev.Request{}, false
	}
	// Only an eligible ask pays for walking the conversation.
	req.UserMessages = userMessages(res.Messages)
	return req, true
}

// userMessages are the user's own prompts of msgs, oldest first: user-role
// text only, never tool results or the assistant's text.
func userMessages(msgs []message.Message) []string {
	var out []string
	for _, m := range msgs {
		if m.Role != message.User {
			continue
		}
		for _, p := range m.Parts {
			if p.Type == message.Text && p.Text != "" {
				out = append(out, p.Text)
			}
		}
	}
	return out
}

// adviseNow asks the advisor and waits at most its deadline (act mode). A
// deadline passed is an advice with status timeout; the request goes on in
// the background, so its verdict can still fill the cache.
func (r *run) adviseNow(ctx context.Context, req jev.Request) jev.Advice {
	a := r.c.Advisor
	ch := make(chan jev.Advice, 1)
	bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ShadowTimeout)
	stop := context.AfterFunc(ctx, cancel)
	go func() {
		defer cancel()
		defer stop()
		ch <- a.Advise(bctx, req)
	}()
	t := time.NewTimer(a.Deadline())
	defer t.Stop()
	select {
	case adv := <-ch:
		return adv
	case <-t.C:
	case <-ctx.Done():
	}
	return jev.Advice{Status: jev.StatusTimeout, Mode: a.Mode(), LatencyMS: a.Deadline().Milliseconds(),
		Reasons: []string{fmt.Sprintf("no answer within %v", a.Deadline())}}
}

// shadow is one advice running in the background while the user is asked:
// the event carries the user's answer (its label) when it came first.
type shadow struct {
	mu       sync.Mutex
	answered bool
	answer   string
	feedback string
}

// adviseShadow starts the advice in the background (bounded by
// ShadowTimeout and by the session's life, Config.AdviceContext) and
// emits it when it arrives.
func (r *run) adviseShadow(ctx context.Context, call message.ToolCall, req jev.Request) *shadow {
	sh := &shadow{}
	base := r.c.AdviceContext
	if base == nil {
		base = ctx
	}
	bctx, cancel := context.WithTimeout(base, ShadowTimeout)
	go func() {
		defer cancel()
		adv := r.c.Advisor.Advise(bctx, req)
		if r.c.AdviceContext != nil && r.c.AdviceContext.Err() != nil {
			return // the session closed: nobody records it
		}
		c := call
		sh.mu.Lock()
		defer sh.mu.Unlock()
		ev := Event{Type: EventAdvice, ToolCall: &c, Advice: &adv}
		if sh.answered {
			ev.Answer, ev.Feedback = sh.answer, sh.feedback
		}
		r.emit(ev)
	}()
	return sh
}

// label records the user's answer for a shadow advice still on its way.
func (sh *shadow) label(rep Reply) {
	if sh == nil {
		return
	}
	sh.mu.Lock()
	sh.answered, sh.answer, sh.feedback = true, string(rep.Answer), rep.Feedback
	sh.mu.Unlock()
}

// rejection is why a headless --auto call is rejected by an act advice
// ("" = not rejected): destructive, sends data out, reaches the system or
// a third party, or tripped the injection guard. Unavailable, timeout and
// an advice outside the safe class only because the effect is not easily
// undone keep --auto's approval.
func rejection(a jev.Advice) string {
	if a.Status != jev.StatusUnsafe {
		return ""
	}
	var why []string
	if a.Injection {
		why = append(why, "the command carries text addressed to the advisor (injection guard)")
	}
	if s := a.Scores; s != nil {
		if s.Destructive >= rejectAt {
			why = append(why, fmt.Sprintf("destructive (%d%%)", s.Destructive))
		}
		if s.Egress >= rejectAt {
			why = append(why, fmt.Sprintf("sends data over the network (%d%%)", s.Egress))
		}
		if s.Blast == jev.BlastSystem || s.Blast == jev.BlastThirdParty {
			why = append(why, "blast radius "+s.Blast)
		}
	}
	return strings.Join(why, "; ")
}

// rejectionText is the tool result the model reads for a rejected call.
func rejectionText(a jev.Advice, why string) string {
	var b strings.Builder
	b.WriteString("rejected by the Jev permission advisor: ")
	b.WriteString(why)
	if s := a.Scores; s != nil {
		fmt.Fprintf(&b, ". Scores: destructive %d, network_egress %d, easily_undone %d, blast_radius %s", s.Destructive, s.Egress, s.Undoable, s.Blast)
	}
	if len(a.Reasons) > 0 {
		b.WriteString(". Reasons: " + strings.Join(a.Reasons, "; "))
	}
	b.WriteString(". " + NoCircumvention)
	return b.String()
}
