package pager

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/oceancode/oceancode/agent/engineapi"
	"github.com/oceancode/oceancode/agent/message"
	"github.com/oceancode/oceancode/agent/permission"
)

// maxResultLines is how many lines of a tool result the scrollback shows.
const maxResultLines = 4

// callTarget is what a call touches, as the rules see it (the command, the
// path); else its input, compacted.
func callTarget(tc message.ToolCall) string {
	if tg := engineapi.CallTarget(tc.Name, tc.Input); tg != "" {
		return tg
	}
	var v any
	if err := json.Unmarshal(tc.Input, &v); err == nil {
		if b, err := json.Marshal(v); err == nil && string(b) != "{}" && string(b) != "null" {
			return string(b)
		}
	}
	return ""
}

// oneLine folds s onto one line of at most width columns (escape
// sequences and control characters dropped: see clean).
func oneLine(s string, width int) string {
	s = strings.Join(strings.Fields(clean(s)), " ")
	if width > 1 && ansi.StringWidth(s) > width {
		s = ansi.Truncate(s, width-1, "") + "…"
	}
	return s
}

// toolLine is a call's one line: `● bash  git status`.
func toolLine(th Theme, tc message.ToolCall, width int) string {
	head := "● " + tc.Name + "  "
	return th.Accent.Render("● "+tc.Name) + "  " + oneLine(callTarget(tc), width-ansi.StringWidth(head))
}

// where is a rule's provenance: "(project .oceancode/oceancode.json:4)".
func where(d *engineapi.Decision) string {
	if d.Layer == "" && d.Source == "" {
		return ""
	}
	s := strings.TrimSpace(d.Layer + " " + d.Source)
	if d.Line > 0 {
		s += fmt.Sprintf(":%d", d.Line)
	}
	return " (" + s + ")"
}

// decisionLine says how a call was decided: the rule and its layer, the
// floor, or who answered the ask (by: the answering client, "" = unknown).
func decisionLine(th Theme, d *engineapi.Decision, by string, width int) string {
	rule := d.Rule
	if rule == "" {
		rule = "the default"
	}
	reason := ""
	if d.Reason != "" && d.Action != "allow" {
		reason = ": " + d.Reason
	}
	var s string
	ok := d.Action == "allow"
	switch {
	case d.Floor:
		s = "denied by the safety floor" + reason
	case strings.HasPrefix(d.Answer, "user:"):
		who := "you"
		if by != "" && by != clientLabel {
			who = by
		}
		switch how := strings.TrimPrefix(d.Answer, "user:"); how {
		case "deny":
			s, ok = "denied by "+who, false
		default:
			s, ok = "approved by "+who+" ("+how+")", true
		}
		s += " — asked by rule " + rule + where(d)
	case d.Answer == "auto":
		s, ok = "approved by --auto — asked by rule "+rule+where(d), true
	case d.Answer == "refused":
		s, ok = "refused: no one can answer — asked by rule "+rule+where(d)+reason, false
	case d.Answer != "":
		s = "decided by " + d.Answer + " — rule " + rule + where(d) + reason
	case ok && d.Approved:
		s = "approved for this session (an earlier always) — asked by rule " + rule + where(d)
	case ok:
		s = "allowed by rule " + rule + where(d)
	case d.Action == "ask":
		s = "asks: rule " + rule + where(d) + reason
	default:
		s = "denied by rule " + rule + where(d) + reason
	}
	s = oneLine(s, width-4)
	if ok {
		return "  " + th.OK.Render("✓ "+s)
	}
	return "  " + th.Error.Render("✗ "+s)
}

// resultLines are a tool result's first lines, truncated with a count.
func resultLines(th Theme, r *message.ToolResult, width int) string {
	content := strings.TrimRight(r.Content, "\n")
	if content == "" {
		content = "(no output)"
	}
	lines := strings.Split(content, "\n")
	more := 0
	if len(lines) > maxResultLines {
		lines, more = lines[:maxResultLines], len(lines)-maxResultLines
	}
	st := th.Muted
	if r.IsError {
		st = th.Error
	}
	var b strings.Builder
	for i, l := range lines {
		prefix := "    "
		if i == 0 {
			prefix = "  ⎿ "
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(prefix + st.Render(oneLine(l, width-4)))
	}
	if more > 0 {
		fmt.Fprintf(&b, "\n    %s", th.Muted.Render(fmt.Sprintf("… %d more lines", more)))
	}
	return b.String()
}

// modeLine is a mode change; a downgrade says what was asked and why not.
func modeLine(th Theme, e engineapi.Event) string {
	if e.Key == "" || e.Key == "permission_mode" {
		if e.Requested != "" && e.Requested != e.Mode {
			return th.Warn.Render(fmt.Sprintf("mode %s refused, %s in effect: %s", e.Requested, e.Mode, e.Text))
		}
		return th.Muted.Render("mode → " + modeLabel(permission.Mode(e.Mode)))
	}
	s := fmt.Sprintf("%s: %s not used, %s in effect", e.Key, e.Requested, e.Mode)
	if e.Text != "" {
		s += ": " + e.Text
	}
	return th.Warn.Render(s)
}

// adviceLine is Jev's advice on a call.
func adviceLine(th Theme, e engineapi.Event) string {
	a := e.Advice
	if a == nil {
		return ""
	}
	s := fmt.Sprintf("jev: %s", a.Status)
	if a.Scores != nil {
		if b, err := json.Marshal(a.Scores); err == nil {
			s += " " + string(b)
		}
	}
	if len(a.Reasons) > 0 {
		s += " — " + strings.Join(a.Reasons, "; ")
	}
	if a.Acted {
		s += " (approved by jev)"
	}
	if a.Safe() {
		return "  " + th.OK.Render(s)
	}
	return "  " + th.Warn.Render(s)
}

// doneLine ends a turn: its stop reason and tokens.
func doneLine(th Theme, e engineapi.Event) string {
	s := "─ " + e.StopReason
	if e.StopReason == "" {
		s = "─ done"
	}
	if u := e.Usage; u != nil {
		s += fmt.Sprintf(" · %s in · %s out", tokens(u.InputTokens), tokens(u.OutputTokens))
		s += cacheAndCost(*u)
	}
	return th.Muted.Render(s)
}

// tokens is a token count, short: 950, 12.3k, 1.2M.
func tokens(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%.0fk", float64(n)/1e3)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}
