package permission

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Explain renders the decision for a person or for the model: the action,
// the rule that decided and where it came from, the reason, and — for an
// ask, or a deny that dontAsk made of an ask — what would approve it. A
// headless run without --auto cannot ask, so it refuses the call and hands
// the model this text.
func (d Decision) Explain() string {
	// Concatenation, not fmt: permission check --batch explains every
	// decision that is not an allow.
	if d.Floor {
		return "denied by the dangerous floor: " + d.Reason + "; no rule, mode or approval can allow it"
	}
	var verb string
	switch d.Action {
	case Allow:
		verb = "allowed"
	case Ask:
		verb = "asks"
	case Deny:
		verb = "denied"
	default:
		verb = d.Action.String()
	}
	if d.DontAsk {
		verb = "denied (dontAsk mode turns every ask into a deny)"
	}
	var b strings.Builder
	b.Grow(len(verb) + len(d.Key) + 2*len(d.Pattern) + len(d.Reason) + 160)
	b.WriteString(verb)
	if d.Pattern != "" {
		b.WriteString(": ")
		b.WriteString(d.Key)
		b.WriteByte(' ')
		b.WriteString(strconv.Quote(d.Pattern))
	}
	if d.Rule != nil {
		b.WriteString(" — ")
		b.WriteString(describeRule(d.Rule))
	}
	if d.Approved {
		b.WriteString("; approved for this session")
	} else if d.Reason != "" && !d.DontAsk {
		b.WriteString("; ")
		b.WriteString(d.Reason)
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
	s := "rule " + r.String()
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
	return "to allow it, add \"permission\": {" + jsonString(key) + ": {" + jsonString(pat) + ": \"allow\"}} (the rule " + r.Spec() + ")"
}
