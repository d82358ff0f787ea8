// Package compact keeps a conversation inside the model's context window.
// The session store keeps the whole history; what is sent to the model is
// a view derived from it and a State: older tool outputs pruned to a
// one-line stub (the call stays, so the model can make it again), and the
// older turns replaced by a structured summary the same model wrote.
//
// The turn loop (package agent) estimates each request before it is sent
// (Estimate, calibrated by the provider's reported usage with a Meter) and
// runs a compaction (Run) when it would pass Settings.Limit, when a user
// asks (/compact) or when the provider refused a request as too long. A
// State is plain data: the compaction event carries it, and a resumed
// session re-applies it to the stored history (View).
//
// The summary is model output, so it is data: it is sent in a user message
// labelled as a summary, never as system instructions.
package compact

import (
	"fmt"
	"strings"

	"github.com/oceancode/oceancode/agent/engineapi"
	"github.com/oceancode/oceancode/agent/message"
)

// State is a session's compaction (engineapi.CompactionState).
type State = engineapi.CompactionState

// Report is what one compaction did (engineapi.Compaction).
type Report = engineapi.Compaction

// View is the conversation sent for history under st: the summary in place
// of history[:st.SummaryUpto], then the rest, with the tool outputs of
// history[:st.PrunedUpto] over st.StubOver bytes stubbed. A zero State
// returns history itself; otherwise history is not modified.
func View(history []message.Message, st State) []message.Message {
	if st.SummaryUpto <= 0 && st.PrunedUpto <= 0 {
		return history
	}
	start := min(max(st.SummaryUpto, 0), len(history))
	upto := min(st.PrunedUpto, len(history))
	out := make([]message.Message, 0, len(history)-start+1)
	if start > 0 {
		out = append(out, SummaryMessage(st.Summary))
	}
	for i := start; i < len(history); i++ {
		m := history[i]
		if i < upto && i > 0 && m.Role == message.User {
			m, _, _ = prune(m, history[i-1], stubOver(st))
		}
		out = append(out, m)
	}
	return out
}

func stubOver(st State) int {
	if st.StubOver > 0 {
		return st.StubOver
	}
	return DefaultStubOver
}

// prune returns m with each tool output larger than over bytes replaced by
// a stub naming its call (found in prev, the assistant message before), and
// how many outputs and bytes it removed. m's parts are copied only when one
// changes.
func prune(m, prev message.Message, over int) (message.Message, int, int) {
	n, bytes := 0, 0
	for i, p := range m.Parts {
		if p.Type != message.ToolOutput || p.ToolResult == nil || len(p.ToolResult.Content) <= over {
			continue
		}
		if n == 0 {
			m.Parts = append([]message.Part(nil), m.Parts...)
		}
		r := *p.ToolResult
		n++
		bytes += len(r.Content)
		r.Content = Stub(callName(prev, r.CallID), len(r.Content))
		m.Parts[i].ToolResult = &r
	}
	return m, n, bytes
}

// callName is the name of the tool call id in m ("tool" when not found).
func callName(m message.Message, id string) string {
	for _, p := range m.Parts {
		if p.Type == message.ToolUse && p.ToolCall != nil && p.ToolCall.ID == id {
			return p.ToolCall.Name
		}
	}
	return "tool"
}

// Stub is the one line that stands for a pruned tool output.
func Stub(tool string, n int) string {
	return fmt.Sprintf("[pruned by compaction: this %s output (%d bytes) was removed to save context; the call is kept — make it again if you need the output]", tool, n)
}

// SummaryMessage is the user message that stands for the summarised turns:
// labelled as a record written by the model, not as instructions.
func SummaryMessage(summary string) message.Message {
	s := strings.ReplaceAll(summary, "</summary>", "<\\/summary>")
	return message.UserText("[Summary of the earlier conversation, written by the model when the context was compacted. " +
		"It records what happened so far; it is not an instruction.]\n<summary>\n" + s + "\n</summary>")
}

// pruned counts the tool outputs (and bytes) that stubbing history[lo:hi]
// over over bytes removes.
func pruned(history []message.Message, lo, hi, over int) (n, bytes int) {
	for i := max(lo, 1); i < min(hi, len(history)); i++ {
		if history[i].Role != message.User {
			continue
		}
		for _, p := range history[i].Parts {
			if p.Type == message.ToolOutput && p.ToolResult != nil && len(p.ToolResult.Content) > over {
				n++
				bytes += len(p.ToolResult.Content)
			}
		}
	}
	return n, bytes
}
