package pager

import (
	"encoding/json"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/oceancode/oceancode/agent/engineapi"
)

// DeniedMax is how many denied calls the list keeps. (Additive.)
const DeniedMax = 10

// Denied is the recently-denied list (the last 10 denied calls).
type Denied struct {
	theme Theme
	items []DeniedCall // newest first
	sel   int
	width int
	// asks maps an open ask's id to its call and target, feedback a
	// resolved ask's call to the user's note, until the permission event
	// of that call arrives.
	asks     map[string]askRef
	feedback map[string]string
}

type askRef struct{ callID, target string }

// DeniedCall is one denied call.
type DeniedCall struct {
	Tool, Target, Reason string
	Seq                  int64
	// CallID and Input are the call's, for a retry. By is who denied:
	// "rule", "floor" or "you". (Additive to the contract.)
	CallID string
	Input  json.RawMessage
	By     string
}

// NewDenied returns an empty list.
func NewDenied(th Theme) *Denied {
	return &Denied{theme: th, asks: map[string]askRef{}, feedback: map[string]string{}}
}

// mapLimit bounds the bookkeeping maps (asks are answered one by one; a
// stream that never resolves them must not grow them without end).
const mapLimit = 64

// Observe takes every event; a permission event whose decision denied (a
// rule, the floor, or the user) adds the call.
func (d *Denied) Observe(ev engineapi.SessionEvent) {
	e := ev.Event
	switch e.Type {
	case engineapi.EventAsk:
		if e.Ask != nil && len(d.asks) < mapLimit {
			d.asks[e.Ask.ID] = askRef{callID: e.Ask.CallID, target: e.Ask.Target}
		}
		return
	case engineapi.EventResolved:
		if ref, ok := d.asks[e.AskID]; ok && e.Feedback != "" && len(d.feedback) < mapLimit {
			d.feedback[ref.callID] = e.Feedback
		}
		return
	case engineapi.EventPermission:
	default:
		return
	}
	dec := e.Decision
	if dec == nil || e.ToolCall == nil {
		return
	}
	c := DeniedCall{Tool: e.ToolCall.Name, Seq: ev.Seq, CallID: e.ToolCall.ID, Input: e.ToolCall.Input}
	switch {
	case dec.Action == "deny" && dec.Floor:
		c.By, c.Reason = "floor", "the dangerous floor"
		if dec.Reason != "" {
			c.Reason += ": " + dec.Reason
		}
	case dec.Action == "deny":
		c.By, c.Reason = "rule", ruleText(dec)
	case dec.Answer == "user:deny":
		c.By, c.Reason = "you", "denied by you"
		if f := d.feedback[c.CallID]; f != "" {
			c.Reason += ": " + f
		}
		c.Reason += " (asked by " + ruleText(dec) + ")"
	case dec.Answer == "refused":
		c.By, c.Reason = "rule", "refused: no one could answer the ask of "+ruleText(dec)
	default:
		d.forget(c.CallID)
		return
	}
	c.Target = d.target(c.CallID, e.ToolCall.Input)
	d.forget(c.CallID)
	for _, old := range d.items {
		if old.Seq == c.Seq && old.CallID == c.CallID {
			return // a replayed event (a resubscription)
		}
	}
	d.items = append([]DeniedCall{c}, d.items...)
	if len(d.items) > DeniedMax {
		d.items = d.items[:DeniedMax]
	}
	d.sel = 0
}

// forget drops the bookkeeping of a settled call.
func (d *Denied) forget(callID string) {
	delete(d.feedback, callID)
	for id, ref := range d.asks {
		if ref.callID == callID {
			delete(d.asks, id)
		}
	}
}

// target is what the call was about: its ask's target, else the input's
// command, path or url, else the input itself.
func (d *Denied) target(callID string, input json.RawMessage) string {
	for _, ref := range d.asks {
		if ref.callID == callID && ref.target != "" {
			return ref.target
		}
	}
	var m map[string]any
	if json.Unmarshal(input, &m) == nil {
		for _, k := range []string{"command", "file_path", "path", "url", "pattern", "name"} {
			if s, ok := m[k].(string); ok && s != "" {
				return s
			}
		}
	}
	return string(input)
}

// ruleText names the rule of a decision with its layer and file:line.
func ruleText(dec *engineapi.Decision) string {
	s := "the default"
	if dec.Rule != "" {
		s = "rule " + dec.Rule
	}
	var where []string
	if dec.Layer != "" {
		where = append(where, "layer "+dec.Layer)
	}
	if dec.Source != "" {
		src := dec.Source
		if dec.Line > 0 {
			src = fmt.Sprintf("%s:%d", src, dec.Line)
		}
		where = append(where, src)
	}
	if len(where) > 0 {
		s += " (" + strings.Join(where, ", ") + ")"
	}
	return s
}

// Items are the denied calls, newest first.
func (d *Denied) Items() []DeniedCall { return append([]DeniedCall(nil), d.items...) }

// Update takes a key while the list is shown; retry is the call the user
// asked to run again (r or Enter), done that the list closed (Esc).
func (d *Denied) Update(msg tea.KeyPressMsg) (retry *DeniedCall, done bool) {
	switch msg.String() {
	case "up", "k":
		if d.sel > 0 {
			d.sel--
		}
	case "down", "j":
		if d.sel < len(d.items)-1 {
			d.sel++
		}
	case "r", "enter":
		if d.sel < len(d.items) {
			c := d.items[d.sel]
			return &c, true
		}
	case "esc", "q":
		return nil, true
	}
	return nil, false
}

// SetWidth re-flows the list. (Additive to the contract.)
func (d *Denied) SetWidth(w int) { d.width = w }

// View renders the list.
func (d *Denied) View() string {
	th := d.theme
	w := d.width
	if w <= 0 {
		w = 80
	}
	w = max(w, 32)
	inner := w - 4
	b := []string{th.Accent.Render("Recently denied")}
	if len(d.items) == 0 {
		b = append(b, th.Muted.Render("no call was denied in this session"), "", th.Muted.Render("Esc close"))
	}
	for i, c := range d.items {
		head := fmt.Sprintf("%s  %s", clean(c.Tool), clean(strings.ReplaceAll(c.Target, "\n", " ⏎ ")))
		head = ansi.Truncate(head, inner-2, "…")
		if i == d.sel {
			b = append(b, th.Selected.Render("› "+head))
		} else {
			b = append(b, th.Text.Render("  "+head))
		}
		style := th.Muted
		if c.By == "floor" {
			style = th.Error
		}
		b = append(b, lipgloss.NewStyle().PaddingLeft(4).Width(inner).Render(style.Render(clean(c.Reason))))
	}
	if len(d.items) > 0 {
		b = append(b, "", th.Muted.Render(wrap("↑/↓ select · r or Enter retry (asks again) · Esc close", inner)))
	}
	return frame(th, w, b)
}
