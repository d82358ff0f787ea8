package compact

import (
	"github.com/oceancode/oceancode/agent/message"
	"github.com/oceancode/oceancode/agent/provider"
)

// bytesPerToken is the estimate's ratio, the usual rule of thumb for
// English and code; a Meter corrects it with the provider's counts.
const bytesPerToken = 4

// partOverhead is the bytes a part costs beyond its text (the wire
// format's framing).
const partOverhead = 12

// Estimate is the estimated prompt tokens of a request: its system prompt,
// tool definitions and messages. It reads lengths only (no copying), so
// it costs a few nanoseconds a message.
func Estimate(system string, tools []provider.ToolDef, msgs []message.Message) int64 {
	n := len(system)
	for _, t := range tools {
		n += len(t.Name) + len(t.Description) + len(t.InputSchema) + partOverhead
	}
	for _, m := range msgs {
		n += MessageBytes(m)
	}
	return int64((n + bytesPerToken - 1) / bytesPerToken)
}

// MessageBytes is what Estimate counts for m.
func MessageBytes(m message.Message) int {
	n := partOverhead
	for _, p := range m.Parts {
		n += partOverhead + len(p.Text)
		if p.ToolCall != nil {
			n += len(p.ToolCall.ID) + len(p.ToolCall.Name) + len(p.ToolCall.Input)
		}
		if p.ToolResult != nil {
			n += len(p.ToolResult.CallID) + len(p.ToolResult.Content)
		}
	}
	return n
}

// Meter calibrates estimates with what the provider counted: after each
// call, Observe the estimate of its request and the usage it reported;
// Scale then applies that ratio (bounded to ¼…4×) to the next estimate.
type Meter struct {
	est, actual int64
}

// Observe records a request's estimate and its reported usage.
func (m *Meter) Observe(estimate int64, u message.Usage) {
	if p := u.Prompt(); p > 0 && estimate > 0 {
		m.est, m.actual = estimate, p
	}
}

// Scale is est corrected by the last observation.
func (m *Meter) Scale(est int64) int64 {
	if m == nil || m.est == 0 {
		return est
	}
	r := float64(m.actual) / float64(m.est)
	r = min(max(r, 0.25), 4)
	return int64(float64(est) * r)
}
