package permission

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Explain renders the decision for a person or for the model: the action,
// the rule that decided and where it came from, the reason, and — for an
// ask, or a deny that dontAsk made of an ask — what would approve it. A
// headless run without --auto cannot ask, so it refuses the call and hands
// the model this text.
func (d Decision) Explain() string {
	var b strings.Builder
	if d.Floor {
		fmt.Fprintf(&b, "denied by the dangerous floor: %s; no rule, mode or approval can allow it", d.Reason)
		return b.String()
	}
	verb := map[Action]string{Allow: "allowed", Ask: "asks", Deny: "denied"}[d.Action]
	if verb == "" {
		verb = d.Action.String()
	}
	if d.DontAsk {
		verb = "denied (dontAsk mode turns every ask into a deny)"
	}
	b.WriteString(verb)
	if d.Pattern != "" {
		fmt.Fprintf(&b, ": %s %q", d.Key, d.Pattern)
	}
	if d.Rule != nil {
		fmt.Fprintf(&b, " — %s", describeRule(d.Rule))
	}
	if d.Approved {
		b.WriteString("; approved for this session")
	} else if d.Reason != "" && !d.DontAsk {
		fmt.Fprintf(&b, "; %s", d.Reason)
	}
	if d.Action == Ask || d.DontAsk {
		if s := d.suggest(); s != "" {
			b.WriteString("; ")
			b.WriteString(s)
		}
	}
	return b.String()
}

func describeRule(r *Rule) string {
	s := fmt.Sprintf("rule %s", r)
	src := r.Source
	if o := r.Origin.String(); o != "" && o != "default builtin" {
		if src != "" {
			src += ", "
		}
		src += o
	}
	if src != "" {
		s += " (" + src + ")"
	}
	return s
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// suggest names what would approve an ask.
func (d Decision) suggest() string {
	if d.Rule == nil {
		return ""
	}
	switch {
	case d.Rule.Source == "requirements":
		return "the requirements ask for this every time: no config rule or session approval can change that"
	case strings.HasPrefix(d.Rule.Source, "mode:"):
		return fmt.Sprintf("the %s mode imposes this; switch modes to change it", strings.TrimPrefix(d.Rule.Source, "mode:"))
	case strings.HasPrefix(d.Rule.Source, "agent:") && d.Rule.Key != "external_directory" && d.Rule.Key != "doom_loop" && d.Rule.Key != "webfetch":
		return fmt.Sprintf("the %s agent imposes this; use another agent to change it", strings.TrimPrefix(d.Rule.Source, "agent:"))
	}
	key, pat := d.Key, d.Pattern
	if key == "mcp" && strings.HasPrefix(d.Rule.Source, "mcp-origin:") {
		srv := mcpServer(pat)
		return fmt.Sprintf("to approve the server, add \"permission\": {\"mcp\": {%s: \"allow\"}} (the rule mcp(%s/*)), or answer \"always\" to approve the whole server for this session", jsonString(srv+"/*"), srv)
	}
	if key == "external_directory" {
		return fmt.Sprintf("to allow it, add \"permission\": {\"external_directory\": {%s: \"allow\"}} or a refs entry for that directory", jsonString(pat))
	}
	r := Rule{Key: key, Pattern: pat}
	return fmt.Sprintf("to allow it, add \"permission\": {%s: {%s: \"allow\"}} (the rule %s)", jsonString(key), jsonString(pat), r.Spec())
}
