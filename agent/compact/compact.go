package compact

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/oceancode/oceancode/agent/engineapi"
	"github.com/oceancode/oceancode/agent/message"
	"github.com/oceancode/oceancode/agent/provider"
)

// Defaults for the zero fields of Settings.
const (
	DefaultThreshold = 0.85
	DefaultKeepTail  = 4
	DefaultStubOver  = 1024
)

// Settings say when and how a session compacts.
type Settings struct {
	// Window is the model's context window in tokens (0: not known, so
	// nothing compacts on its own; /compact and a provider's "too long"
	// still do).
	Window int64
	// Threshold is the fraction of Window past which the next request is
	// compacted first (0: DefaultThreshold).
	Threshold float64
	// Off turns automatic compaction off (the config's compaction.auto
	// false); on demand and on a "too long" error it still runs.
	Off bool
	// KeepTail is how many of the newest messages are never pruned or
	// summarised (0: DefaultKeepTail).
	KeepTail int
	// StubOver is the size in bytes past which an old tool output is
	// pruned (0: DefaultStubOver).
	StubOver int
}

// Limit is the estimated prompt tokens past which a request is compacted
// before it is sent (0: no automatic compaction).
func (s Settings) Limit() int64 {
	if s.Off || s.Window <= 0 {
		return 0
	}
	t := s.Threshold
	if t <= 0 || t > 1 {
		t = DefaultThreshold
	}
	return int64(float64(s.Window) * t)
}

func (s Settings) keepTail() int {
	if s.KeepTail > 0 {
		return s.KeepTail
	}
	return DefaultKeepTail
}

// Input is the request a compaction shrinks.
type Input struct {
	Model     string
	System    string
	Tools     []provider.ToolDef
	MaxTokens int
	History   []message.Message // the stored history, whole
	State     State             // the compaction in effect
	Meter     *Meter            // nil: raw estimates
}

// Tokens is the estimated prompt tokens of the request under st.
func (in Input) Tokens(st State) int64 {
	return in.Meter.Scale(Estimate(in.System, in.Tools, View(in.History, st)))
}

// Summarise sends the summary request (through the session's provider).
type Summarise func(ctx context.Context, req provider.Request) (provider.Response, error)

// ErrNothing is returned when there is nothing to compact.
var ErrNothing = errors.New("nothing to compact")

// Run compacts in: it prunes the old tool outputs, then summarises the
// older turns when the request is still over the limit — or always, for a
// manual or "too long" compaction. It returns the new State, what it did,
// and the usage of the summary request (zero when none was made).
func Run(ctx context.Context, s Settings, in Input, reason, focus string, sum Summarise) (State, Report, message.Usage, error) {
	rep := Report{Reason: reason, Focus: focus, Window: s.Window, TokensBefore: in.Tokens(in.State)}
	st := in.State
	if st.StubOver == 0 {
		st.StubOver = stubOver(State{StubOver: s.StubOver})
	}
	keep := s.keepTail()
	if reason != engineapi.CompactAuto {
		keep = min(keep, 2) // the newest call and its results stay whole
	}
	if b := len(in.History) - keep; b > st.PrunedUpto {
		rep.Pruned, rep.PrunedBytes = pruned(in.History, max(st.PrunedUpto, st.SummaryUpto), b, st.StubOver)
		st.PrunedUpto = b
	}
	rep.TokensAfter = in.Tokens(st)
	var u message.Usage
	if reason != engineapi.CompactAuto || rep.TokensAfter > s.Limit() {
		b := boundary(in.History, st.SummaryUpto, len(in.History)-keep)
		if b > 0 {
			resp, err := sum(ctx, SummaryRequest(in, st, b, focus))
			if err != nil {
				return in.State, rep, u, fmt.Errorf("compact: summarise %d messages: %w", b-st.SummaryUpto, err)
			}
			u = resp.Usage
			text := strings.TrimSpace(resp.Message.TextOf())
			if text == "" {
				return in.State, rep, u, errors.New("compact: summarise: the model answered with no text")
			}
			rep.Summarised = b - st.SummaryUpto
			st.Summary, st.SummaryUpto = text, b
			rep.TokensAfter = in.Tokens(st)
		}
	}
	if rep.Pruned == 0 && rep.Summarised == 0 {
		return in.State, rep, u, ErrNothing
	}
	rep.State = st
	return st, rep, u, nil
}

// boundary is where a summary may end: the index of the last assistant
// message in (from, to] — so the messages kept start with the model's
// turn, and no tool result is parted from its call. 0: none.
func boundary(history []message.Message, from, to int) int {
	for i := min(to, len(history)-1); i > from; i-- {
		if history[i].Role == message.Assistant {
			return i
		}
	}
	return 0
}
