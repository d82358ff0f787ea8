package engineapi

import "fmt"

// HookLine is a hook event as one line for a person (run's text output,
// the pager): a hook that decided something with the file:line it is set
// at, or a hook's line for the user; "" for a hook that ran and decided
// nothing. The hooks package has already sanitised the hook's text;
// callers still pass the line through their terminal sanitiser.
func HookLine(e Event) string {
	d := e.Decision
	if e.Type != EventHook {
		return ""
	}
	if d == nil {
		return "hook " + e.Key + ": " + e.Text
	}
	if d.Action == "none" {
		if e.Text == "" {
			return ""
		}
		return fmt.Sprintf("hook %s: %s (%s %s:%d): %s", e.Key, d.Rule, d.Layer, d.Source, d.Line, e.Text)
	}
	s := fmt.Sprintf("hook %s: %s by %s (%s %s:%d)", e.Key, d.Action, d.Rule, d.Layer, d.Source, d.Line)
	if d.Reason != "" {
		s += ": " + d.Reason
	}
	return s
}
