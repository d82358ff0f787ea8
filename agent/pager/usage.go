package pager

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/oceancode/oceancode/agent/engineapi"
	"github.com/oceancode/oceancode/agent/message"
)

// sessionUsage is the session's usage: the state's total (a resumed
// session's earlier turns included) or what the events told, whichever is
// further along.
func (m *model) sessionUsage() message.Usage {
	if u := m.state.Usage; u.InputTokens+u.OutputTokens > m.usage.InputTokens+m.usage.OutputTokens {
		return u
	}
	return m.usage
}

// gauge is the status line's context gauge ("ctx 42% of 200k", when the
// model's window is known) and the session's cost (when priced).
func (m *model) gauge() []string {
	var out []string
	if c := m.ctxUse; c != nil && c.Window > 0 {
		out = append(out, fmt.Sprintf("ctx %d%% of %s", c.Tokens*100/c.Window, tokens(c.Window)))
	}
	if cost := m.sessionUsage().CostUSD; cost > 0 {
		out = append(out, dollars(cost))
	}
	return out
}

// dollars is a cost, with cents or, under a cent, its first digits.
func dollars(v float64) string {
	if v >= 0.995 {
		return fmt.Sprintf("$%.2f", v)
	}
	return fmt.Sprintf("$%.4f", v)
}

// cacheAndCost is a usage's cache reads and writes and cost, as a done
// line's tail ("" for none).
func cacheAndCost(u message.Usage) string {
	s := ""
	if u.CacheReadTokens > 0 || u.CacheWriteTokens > 0 {
		s += fmt.Sprintf(" · cache %s read, %s written", tokens(u.CacheReadTokens), tokens(u.CacheWriteTokens))
	}
	if u.CostUSD > 0 {
		s += " · " + dollars(u.CostUSD)
	}
	return s
}

// costText is /cost: the session's tokens and cost, and the context's
// fill at the last request.
func (m *model) costText() string {
	u := m.sessionUsage()
	var b strings.Builder
	fmt.Fprintf(&b, "session: %s in · %s out · %s cache read · %s cache write\n",
		tokens(u.InputTokens), tokens(u.OutputTokens), tokens(u.CacheReadTokens), tokens(u.CacheWriteTokens))
	if u.CostUSD > 0 {
		fmt.Fprintf(&b, "cost: %s at the model's list price (provider.NAME.models.MODEL.price overrides it)", dollars(u.CostUSD))
	} else {
		fmt.Fprintf(&b, "cost: unknown — the model %s has no price: set provider.NAME.models.MODEL.price (docs/providers.md)", m.state.Model)
	}
	if c := m.ctxUse; c != nil {
		fmt.Fprintf(&b, "\ncontext: %s tokens at the last request", tokens(c.Tokens))
		if c.Window > 0 {
			fmt.Fprintf(&b, " of a %s window (%d%%)", tokens(c.Window), c.Tokens*100/c.Window)
		}
	}
	return b.String()
}

// compactCommand is /compact [FOCUS]: the engine compacts after the
// running turn; the compaction event prints what it did.
func (m *model) compactCommand(args []string) tea.Cmd {
	eng, ctx, focus := m.eng, m.ctx, strings.Join(args, " ")
	m.print(m.th.Muted.Render("compacting the conversation…"))
	return func() tea.Msg {
		if _, err := eng.Compact(ctx, focus); err != nil {
			return outputMsg{err: fmt.Errorf("/compact: %w", err)}
		}
		return nil
	}
}

// compacted prints a compaction event and leaves a notice on the status
// line.
func (m *model) compacted(c *engineapi.Compaction) {
	if c == nil {
		return
	}
	m.print(m.th.Warn.Render("  " + compactionText(c)))
	m.notice = "context compacted"
}

// compactionText says what a compaction did, in one line.
func compactionText(c *engineapi.Compaction) string {
	why := map[string]string{engineapi.CompactAuto: "near the context window", engineapi.CompactManual: "on request",
		engineapi.CompactTooLong: "the model refused the request as too long"}[c.Reason]
	var did []string
	if c.Pruned > 0 {
		did = append(did, fmt.Sprintf("pruned %d old tool outputs (%s)", c.Pruned, byteSize(c.PrunedBytes)))
	}
	if c.Summarised > 0 {
		did = append(did, fmt.Sprintf("summarised %d earlier messages", c.Summarised))
	}
	return fmt.Sprintf("compacted (%s): %s · ~%s → ~%s tokens; the session keeps the full history",
		why, strings.Join(did, ", "), tokens(c.TokensBefore), tokens(c.TokensAfter))
}

func byteSize(n int) string {
	if n >= 1024 {
		return fmt.Sprintf("%.1f KiB", float64(n)/1024)
	}
	return fmt.Sprintf("%d B", n)
}
