package pager

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// spinner frames while the model works.
var spinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// statusLine is the line under the composer: the model, the agent, the
// mode, the sandbox, the policy, the tokens used; a spinner with the
// elapsed time while a turn runs; the asks waiting; the last notice.
func (m *model) statusLine() string {
	st := m.state
	var parts []string
	spin := ""
	if m.working {
		el := m.now().Sub(m.started).Truncate(time.Second)
		spin = m.th.Accent.Render(spinner[m.spin%len(spinner)]+" "+el.String()) + m.th.Muted.Render(" · ")
	}
	for _, p := range []string{st.Model, st.Agent, modeLabel(st.Mode.Mode)} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	if st.Sandbox != "" {
		parts = append(parts, "sandbox "+st.Sandbox)
	}
	if st.Policy != "" {
		parts = append(parts, "policy "+st.Policy)
	}
	used := m.usage.InputTokens + m.usage.OutputTokens
	if u := st.Usage.InputTokens + st.Usage.OutputTokens; u > used {
		used = u // the session's total (a resumed one's turns before)
	}
	parts = append(parts, tokens(used)+" tokens")
	parts = append(parts, m.gauge()...)
	line := spin + m.th.Muted.Render(strings.Join(parts, " · "))
	if n := len(m.asks); n > 1 {
		line += m.th.Muted.Render(" · ") + m.th.Warn.Render(fmt.Sprintf("%d asks waiting", n))
	}
	if m.notice != "" {
		line += "  " + m.th.Warn.Render(clean(m.notice)) // it may quote another client or the server
	}
	if m.width > 0 && ansi.StringWidth(line) > m.width {
		line = ansi.Truncate(line, m.width-1, "…")
	}
	return line
}
