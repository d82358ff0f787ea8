package cli

import (
	"fmt"

	"github.com/oceancode/oceancode/agent"
)

// hookLine is a hook event in run's text output: a hook that decided
// something, with the file:line it is set at, or a hook's line for the
// user ("" for a hook that ran and decided nothing).
func hookLine(e agent.Event) string {
	d := e.Decision
	if d == nil {
		return "  hook " + e.Key + ": " + e.Text
	}
	if d.Action == "none" {
		if e.Text != "" {
			return fmt.Sprintf("  hook %s: %s (%s %s:%d): %s", e.Key, d.Rule, d.Layer, d.Source, d.Line, e.Text)
		}
		return ""
	}
	s := fmt.Sprintf("  hook %s: %s by %s (%s %s:%d)", e.Key, d.Action, d.Rule, d.Layer, d.Source, d.Line)
	if d.Reason != "" {
		s += ": " + d.Reason
	}
	return s
}
