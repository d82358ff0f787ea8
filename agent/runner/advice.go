package runner

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/engineapi"
	"github.com/oceancode/oceancode/agent/session"
)

// StopAdvisorBreaker: the Jev advisor's circuit breaker stopped a headless
// --auto turn (agent.ErrAdvisorBreaker; oceancode run exits 6).
const StopAdvisorBreaker = engineapi.StopAdvisorBreaker

// withAdvice completes the turn config for the Jev advisor: a shadow advice
// that outlives its turn is bounded by the session's life.
func (s *Session) withAdvice() {
	if s.cfg.Advisor != nil {
		s.cfg.AdviceContext = s.ctx
	}
}

// adviceOf is an advice event as the store's advice table keeps it; false
// for other events.
func (s *Session) adviceOf(ev Event) (session.Advice, bool) {
	e := ev.Event
	if e.Type != agent.EventAdvice || e.Advice == nil || e.ToolCall == nil {
		return session.Advice{}, false
	}
	a := e.Advice
	var in struct {
		Command string `json:"command"`
	}
	_ = json.Unmarshal(e.ToolCall.Input, &in)
	var scores json.RawMessage
	if a.Scores != nil {
		scores, _ = json.Marshal(a.Scores)
	}
	return session.Advice{Seq: ev.Seq, CallID: e.ToolCall.ID, Key: a.Key, Command: s.cfg.Redact(in.Command), Status: string(a.Status),
		Mode: string(a.Mode), Scores: scores, Reasons: a.Reasons, Injection: a.Injection, Cached: a.Cached, LatencyMS: a.LatencyMS,
		Tokens: a.Tokens, Acted: a.Acted, Label: labelOf(e.Answer), Feedback: e.Feedback, At: e.Time}, true
}

// labelOf is the label an answer gives an advice: once, always, deny (the
// user's), jev (the advice approved the call); "" for the rest (headless).
func labelOf(answer string) string {
	switch a := strings.TrimPrefix(answer, "user:"); a {
	case string(agent.Once), string(agent.Always), string(agent.Deny), "jev":
		return a
	}
	return ""
}

// advice queues the advice writes of one event: an advice event's row, and
// for a permission event that answered an advised ask, its label.
func (r *record) advice(ev Event) {
	if a, ok := r.s.adviceOf(ev); ok {
		r.push(op{fn: func(ctx context.Context, st *session.Store, id string) error { return st.AddAdvice(ctx, id, a) }})
		return
	}
	e := ev.Event
	if e.Type != agent.EventPermission || e.Decision == nil || e.ToolCall == nil {
		return
	}
	label := labelOf(e.Decision.Answer)
	if label == "" {
		return
	}
	callID, feedback := e.ToolCall.ID, e.Feedback
	r.push(op{fn: func(ctx context.Context, st *session.Store, id string) error {
		return st.LabelAdvice(ctx, id, callID, label, feedback)
	}})
}
