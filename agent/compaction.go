package agent

import (
	"context"
	"errors"

	"github.com/oceancode/oceancode/agent/compact"
	"github.com/oceancode/oceancode/agent/engineapi"
	"github.com/oceancode/oceancode/agent/message"
	"github.com/oceancode/oceancode/agent/provider"
	"github.com/oceancode/oceancode/agent/tools"
)

// EventCompaction: the conversation sent was compacted (Compaction).
const EventCompaction = engineapi.EventCompaction

type (
	// Compaction is what one compaction did, as its event carries it.
	Compaction = engineapi.Compaction
	// ContextUse is how full the context was at a request (usage events).
	ContextUse = engineapi.ContextUse
)

// ErrNothingToCompact is Compact's error when there is nothing to compact.
var ErrNothingToCompact = compact.ErrNothing

// Compact compacts history on demand (/compact [focus]): the old tool
// outputs are pruned and the older turns summarised with c's model, under
// c.Compacted. The Result carries the history unchanged and the new
// compaction in Compacted; the compaction (and the summary's usage) are
// events.
func Compact(ctx context.Context, c Config, history []message.Message, focus string) (Result, error) {
	r := &run{c: c, byName: map[string]tools.Tool{}}
	r.offer()
	res := Result{Messages: history, Compacted: c.Compacted}
	err := r.compact(ctx, &res, engineapi.CompactManual, focus)
	return res, err
}

// request is the turn's model request: the history's compacted view,
// compacted further first when its estimate passes the limit.
func (r *run) request(ctx context.Context, res *Result) provider.Request {
	req := r.view(res)
	if lim := r.c.Compaction.Limit(); lim > 0 && r.meter.Scale(r.est) > lim {
		if r.compact(ctx, res, engineapi.CompactAuto, "") == nil {
			req = r.view(res)
		}
	}
	return req
}

// view is the request for res's history as compacted, with its estimate
// in r.est when the model's window is known (without one nothing reads
// it: the turn pays nothing).
func (r *run) view(res *Result) provider.Request {
	msgs := compact.View(res.Messages, res.Compacted)
	r.est = 0
	if r.c.Compaction.Window > 0 {
		r.est = compact.Estimate(r.c.System, r.defs, msgs)
	}
	return provider.Request{Model: r.c.Model, System: r.c.System, Messages: msgs, Tools: r.defs, MaxTokens: r.c.MaxTokens}
}

// retryShorter answers a provider's "context too long" refusal of req:
// one compaction, then the request once more. When nothing could be
// compacted the refusal stands.
func (r *run) retryShorter(ctx context.Context, res *Result, refused error) (provider.Response, error) {
	if r.compact(ctx, res, engineapi.CompactTooLong, "") != nil {
		return provider.Response{}, refused
	}
	return r.c.Provider.Stream(ctx, r.view(res), r.onProviderEvent)
}

// compact runs one compaction of res and tells it; a failure other than
// "nothing to compact" is an error event (the turn goes on uncompacted).
func (r *run) compact(ctx context.Context, res *Result, reason, focus string) error {
	in := compact.Input{Model: r.c.Model, System: r.c.System, Tools: r.defs, MaxTokens: r.c.MaxTokens,
		History: res.Messages, State: res.Compacted, Meter: &r.meter}
	st, rep, u, err := compact.Run(ctx, r.c.Compaction, in, reason, focus, r.summarise)
	if u != (message.Usage{}) {
		r.account(res, u, 0)
	}
	if err != nil {
		if !errors.Is(err, compact.ErrNothing) && reason != engineapi.CompactManual {
			r.emit(Event{Type: EventError, Text: err.Error()})
		}
		return err
	}
	res.Compacted = st
	r.emit(Event{Type: EventCompaction, Compaction: &rep})
	return nil
}

// summarise sends a summary request through the session's provider; only
// its retries are told (its text is not the answer).
func (r *run) summarise(ctx context.Context, req provider.Request) (provider.Response, error) {
	return r.c.Provider.Stream(ctx, req, func(e provider.Event) {
		if e.Type == provider.Retry {
			r.onProviderEvent(e)
		}
	})
}

// account adds one call's usage (priced) to res and tells it; est > 0 is
// the estimate of the request it answered, which calibrates the meter and,
// when the model's window is known, fills the event's context gauge.
func (r *run) account(res *Result, u message.Usage, est int64) {
	if r.c.Price != nil {
		u.CostUSD = r.c.Price.Cost(u)
	}
	res.Usage = res.Usage.Add(u)
	ev := Event{Type: EventUsage, Usage: &u}
	if est > 0 {
		r.meter.Observe(est, u)
	}
	if est > 0 && r.c.Compaction.Window > 0 {
		tokens := u.Prompt()
		if tokens == 0 {
			tokens = r.meter.Scale(est)
		}
		ev.Context = &ContextUse{Tokens: tokens, Window: r.c.Compaction.Window}
	}
	r.emit(ev)
}
