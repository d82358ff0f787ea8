package runner

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/compact"
	"github.com/oceancode/oceancode/agent/message"
	"github.com/oceancode/oceancode/agent/session"
)

// ErrNothingToCompact is Compact's error when the history has nothing left
// to prune or summarise.
var ErrNothingToCompact = agent.ErrNothingToCompact

// Compact compacts the conversation now (/compact [focus], POST
// /api/session/{id}/compact): queued like a prompt, so it runs between
// turns, with the session's model. It returns what it did (also a
// compaction event). The stored history is unchanged; the next turns send
// the compacted view.
func (s *Session) Compact(ctx context.Context, focus string) (agent.Compaction, error) {
	it := &item{compact: true, prompt: focus, ctx: ctx, done: make(chan turnResult, 1)}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return agent.Compaction{}, ErrClosed
	}
	s.queue = append(s.queue, it)
	s.poke()
	s.mu.Unlock()
	r := <-it.done
	if r.panicked != nil {
		panic(r.panicked)
	}
	if r.err != nil {
		return agent.Compaction{}, fmt.Errorf("runner: compact: %w", r.err)
	}
	return r.compaction, nil
}

// compactTurn runs a queued Compact.
func compactTurn(ctx context.Context, cfg agent.Config, history []message.Message, it *item) turnResult {
	var rep agent.Compaction
	on := cfg.OnEvent
	cfg.OnEvent = func(e agent.Event) {
		if e.Type == agent.EventCompaction && e.Compaction != nil {
			rep = *e.Compaction
		}
		on(e)
	}
	res, err := agent.Compact(ctx, cfg, history, it.prompt)
	return turnResult{res: res, err: err, compaction: rep}
}

// lastCompaction is the compaction a stored session was left with: its
// last compaction event's state (zero when it never compacted).
func lastCompaction(ctx context.Context, st *session.Store, id string) (compact.State, error) {
	e, ok, err := st.LastEvent(ctx, id, string(agent.EventCompaction))
	if err != nil || !ok {
		return compact.State{}, err
	}
	var ev agent.Event
	if err := json.Unmarshal(e.Data, &ev); err != nil || ev.Compaction == nil {
		return compact.State{}, fmt.Errorf("resume session %s: compaction event %d: not a compaction (%v)", id, e.Seq, err)
	}
	return ev.Compaction.State, nil
}
