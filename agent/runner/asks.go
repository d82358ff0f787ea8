package runner

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/engineapi"
	"github.com/oceancode/oceancode/agent/tools"
)

// Kinds of asks.
const (
	KindPermission = engineapi.KindPermission
	KindQuestion   = engineapi.KindQuestion
)

// ask is one ask of the broker.
type ask struct {
	pa       PendingAsk
	ch       chan struct{} // closed once answered
	answered *Reply
	at       time.Time
	resumed  bool // loaded from the store: settles the call it was made for
	used     bool // a resumed ask that settled its call
}

func newAsk(pa PendingAsk, resumed bool) *ask {
	return &ask{pa: pa, ch: make(chan struct{}), resumed: resumed}
}

func newAskID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "ask_" + hex.EncodeToString(b[:])
}

// askPermission is the turn loop's Ask: the ask waits for a client's Answer
// (or is settled by the stored answer of a resumed session).
func (s *Session) askPermission(ctx context.Context, a agent.Ask) (agent.Reply, error) {
	choices := []string{string(agent.Once), string(agent.Always), string(agent.Deny)}
	if !a.Rememberable {
		choices = []string{string(agent.Once), string(agent.Deny)}
	}
	pa := PendingAsk{Kind: KindPermission, Tool: a.ToolCall.Name, Input: a.ToolCall.Input, Decision: a.Event,
		Target: a.Target.Input, InputDigest: agent.InputDigest(a.ToolCall.Input), CallID: a.ToolCall.ID, Choices: choices, Advice: a.Advice}
	s.enrich(&pa, a)
	r, err := s.wait(ctx, pa)
	if err != nil {
		return agent.Reply{Answer: agent.Deny}, err
	}
	if r.Answer == agent.Always && !a.Rememberable {
		r.Answer = agent.Once
	}
	return agent.Reply{Answer: r.Answer, Feedback: r.Feedback}, nil
}

// askQuestion is the question tool's Env.Ask.
func (s *Session) askQuestion(ctx context.Context, q tools.Question) (string, error) {
	call, _ := agent.CallOf(ctx)
	choices := q.Options
	if choices == nil {
		choices = []string{}
	}
	pa := PendingAsk{Kind: KindQuestion, Tool: call.Name, Input: call.Input, Target: q.Text,
		InputDigest: agent.InputDigest(call.Input), CallID: call.ID, Choices: choices}
	if pa.Tool == "" {
		pa.Tool = "question"
	}
	r, err := s.wait(ctx, pa)
	if err != nil {
		return "", err
	}
	if r.Answer == agent.Deny {
		if r.Feedback != "" {
			return "", fmt.Errorf("the user declined to answer: %s", r.Feedback)
		}
		return "", errors.New("the user declined to answer")
	}
	if r.Feedback != "" {
		return string(r.Answer) + " (" + r.Feedback + ")", nil
	}
	return string(r.Answer), nil
}

// wait offers pa (or takes the resumed ask made for the same call, target
// and input) and waits for its answer.
func (s *Session) wait(ctx context.Context, pa PendingAsk) (Reply, error) {
	s.mu.Lock()
	var x *ask
	for _, id := range s.order {
		a := s.asks[id]
		if a.resumed && !a.used && a.pa.Kind == pa.Kind && a.pa.CallID == pa.CallID && a.pa.InputDigest == pa.InputDigest && a.pa.Target == pa.Target {
			a.used = true
			x = a
			break
		}
	}
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return Reply{}, ErrClosed
	}
	if x == nil {
		pa.ID = newAskID()
		pa.Created = time.Now().UTC()
		x = newAsk(pa, false)
		// Committed before any client can see it (Pending, the ask
		// event): an ask a client was shown survives a crash.
		if s.rec != nil {
			s.rec.addAsk(x.pa)
		}
		s.mu.Lock()
		s.asks[pa.ID] = x
		s.order = append(s.order, pa.ID)
		s.mu.Unlock()
		p := x.pa
		s.emit(agent.Event{Type: agent.EventAsk, Ask: &p})
	}
	select {
	case <-x.ch:
	case <-ctx.Done():
		s.mu.Lock()
		closed := s.closed
		s.mu.Unlock()
		if closed {
			// Close keeps the ask pending in the store, for a resume.
			return Reply{}, ErrClosed
		}
		_ = s.resolve(x.pa.ID, Reply{Answer: agent.Deny, By: "cancelled"}, false)
		<-x.ch
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return *x.answered, nil
}

// Pending lists the asks waiting for an answer, oldest first.
func (s *Session) Pending() []PendingAsk {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []PendingAsk{}
	for _, id := range s.order {
		if a := s.asks[id]; a.answered == nil {
			out = append(out, a.pa)
		}
	}
	return out
}

// pendingLocked counts the asks waiting; mu held.
func (s *Session) pendingLocked() int {
	n := 0
	for _, id := range s.order {
		if s.asks[id].answered == nil {
			n++
		}
	}
	return n
}

// Answer settles an ask. The first answer wins: ErrNoAsk (unknown id),
// *AnsweredError (already answered; carries the first answer), ErrDigest
// (digest mismatch), or ErrAnswer (not one of its choices). Every
// subscriber gets a `resolved` event.
func (s *Session) Answer(id string, r Reply) error {
	return s.resolve(id, r, true)
}

func (s *Session) resolve(id string, r Reply, check bool) error {
	s.mu.Lock()
	x := s.asks[id]
	if x == nil {
		s.mu.Unlock()
		return fmt.Errorf("%w: %s", ErrNoAsk, id)
	}
	if x.answered != nil {
		s.mu.Unlock()
		return &AnsweredError{First: *x.answered, At: x.at}
	}
	if check {
		if r.Digest != "" && r.Digest != x.pa.InputDigest {
			s.mu.Unlock()
			return fmt.Errorf("%w: %s", ErrDigest, id)
		}
		if !allowed(x.pa, r.Answer) {
			s.mu.Unlock()
			return fmt.Errorf("%w: %q (want %s)", ErrAnswer, r.Answer, choicesText(x.pa))
		}
	}
	x.answered, x.at = &r, time.Now().UTC()
	s.mu.Unlock()
	if s.rec != nil {
		s.rec.answerAsk(id, r)
	}
	s.emit(agent.Event{Type: agent.EventResolved, AskID: id, Answer: string(r.Answer), By: r.By, Feedback: r.Feedback})
	close(x.ch)
	return nil
}

// allowed reports whether a is an answer pa accepts: one of its choices; a
// question also takes deny, and any text when it has no options.
func allowed(pa PendingAsk, a agent.Answer) bool {
	if a == "" {
		return false
	}
	if pa.Kind == KindQuestion && (a == agent.Deny || len(pa.Choices) == 0) {
		return true
	}
	return slices.Contains(pa.Choices, string(a))
}

func choicesText(pa PendingAsk) string {
	if pa.Kind == KindQuestion && len(pa.Choices) == 0 {
		return "an answer's text, or deny"
	}
	c := pa.Choices
	if pa.Kind == KindQuestion {
		c = append(slices.Clone(c), string(agent.Deny))
	}
	return fmt.Sprintf("one of %v", c)
}

// dropResumedAsks settles the asks a resumed session offered again that no
// call took up (the gate no longer asked; or the session is headless and
// its own policy decided): they are resolved as deny, by "gate" (or
// "headless"), so nothing stays pending for a call that is over.
func (s *Session) dropResumedAsks() {
	by := "gate"
	if !s.o.Interactive {
		by = "headless"
	}
	s.mu.Lock()
	var ids []string
	for _, id := range s.order {
		if a := s.asks[id]; a.resumed && !a.used && a.answered == nil {
			ids = append(ids, id)
		}
	}
	s.mu.Unlock()
	for _, id := range ids {
		_ = s.resolve(id, Reply{Answer: agent.Deny, By: by}, false)
	}
}
