package pager

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/oceancode/oceancode/agent/engineapi"
	"github.com/oceancode/oceancode/internal/termtext"
)

// DiffLines is how many lines of a diff the dialog shows at once (fewer
// under SetHeight); PgUp and PgDn scroll the rest. (Additive to the
// contract.)
const DiffLines = 16

// Dialog is the approval dialog for one pending ask.
type Dialog struct {
	Ask   engineapi.PendingAsk // read-only after NewDialog (the view caches it)
	theme Theme
	width int

	queued  int      // how many more asks wait after this one
	choices []string // the answers offered, in display order
	sel     int      // the highlighted choice (or question option)
	noting  bool     // the one-line note to the model is open (deny)
	note    textinput.Model
	text    textinput.Model // a question's free-text answer
	scroll  int             // first diff line shown
	flash   string          // a one-off message ("always is not offered")
	diffN   int             // the diff's lines
	diffRaw []string        // the diff's lines, unstyled (only the shown ones are styled)

	height int    // the most rows the dialog may take (0: any)
	window int    // the diff lines shown at once
	fitKey [2]int // the width and height window was fitted to

	// head caches the rendered part above the choices, for headKey.
	head    []string
	headKey [3]int
}

// NewDialog returns the dialog for ask (queued is how many more asks wait).
//
// The highlighted choice starts on "once", as Claude Code and Codex do,
// except when Jev advised the call unsafe: an unsafe advice never
// pre-selects an approval, so "deny" is highlighted then.
func NewDialog(ask engineapi.PendingAsk, queued int, th Theme, width int) *Dialog {
	d := &Dialog{Ask: ask, theme: th, width: width, queued: queued, window: DiffLines}
	d.diffRaw = splitDiff(ask.Diff)
	d.diffN = len(d.diffRaw)
	d.note = newInput(th, "why not? (Enter sends, Esc skips)")
	d.text = newInput(th, "your answer")
	if ask.Kind == engineapi.KindQuestion {
		d.choices = ask.Choices
		if len(ask.Choices) == 0 {
			d.text.Focus()
		}
		return d
	}
	for _, c := range []engineapi.Answer{engineapi.Once, engineapi.Always, engineapi.Deny} {
		if slices.Contains(ask.Choices, string(c)) || c == engineapi.Deny {
			d.choices = append(d.choices, string(c)) // deny is always possible
		}
	}
	d.sel = slices.Index(d.choices, string(engineapi.Once))
	if d.sel < 0 || unsafeAdvice(ask.Advice) {
		d.sel = slices.Index(d.choices, string(engineapi.Deny))
	}
	return d
}

// unsafeAdvice reports whether a is Jev's advice that the call is unsafe.
func unsafeAdvice(a *engineapi.Advice) bool {
	return a != nil && (a.Status == engineapi.AdviceUnsafe || a.Injection)
}

func newInput(th Theme, placeholder string) textinput.Model {
	in := textinput.New()
	in.Prompt = "› "
	in.Placeholder = placeholder
	in.CharLimit = 2000
	st := textinput.DefaultStyles(th.Dark)
	st.Focused.Prompt = th.Accent
	st.Focused.Text = th.Text
	st.Focused.Placeholder = th.Muted
	st.Blurred = st.Focused
	in.SetStyles(st)
	return in
}

// Selected is the highlighted choice (for a question, its option; "" for
// free text). (Additive to the contract.)
func (d *Dialog) Selected() string {
	if d.sel < 0 || d.sel >= len(d.choices) {
		return ""
	}
	return d.choices[d.sel]
}

// Noting reports whether the deny note is open. (Additive to the contract.)
func (d *Dialog) Noting() bool { return d.noting }

// Update takes a key. done reports the user answered: reply is the answer
// (y once, a always, n deny — n first opens a one-line note to the model,
// Enter sends it; arrows + Enter choose too; Esc on the note sends deny
// without one).
func (d *Dialog) Update(msg tea.KeyPressMsg) (done bool, reply engineapi.Reply) {
	d.flash = ""
	if d.Ask.Kind == engineapi.KindQuestion {
		return d.updateQuestion(msg)
	}
	if d.noting {
		switch msg.String() {
		case "enter":
			return true, d.reply(engineapi.Deny, strings.TrimSpace(d.note.Value()))
		case "esc":
			return true, d.reply(engineapi.Deny, "")
		}
		d.note, _ = d.note.Update(msg)
		return false, engineapi.Reply{}
	}
	switch msg.String() {
	case "y", "Y":
		return true, d.reply(engineapi.Once, "")
	case "a", "A":
		if !slices.Contains(d.choices, string(engineapi.Always)) {
			d.flash = "always is not offered: this call cannot be remembered"
			return false, engineapi.Reply{}
		}
		return true, d.reply(engineapi.Always, "")
	case "n", "N":
		d.openNote()
	case "esc":
		return true, d.reply(engineapi.Deny, "")
	case "left", "up", "shift+tab", "h", "k":
		d.sel = (d.sel + len(d.choices) - 1) % len(d.choices)
	case "right", "down", "tab", "l", "j":
		d.sel = (d.sel + 1) % len(d.choices)
	case "pgdown", "space":
		d.scrollBy(d.window - 1)
	case "pgup":
		d.scrollBy(-(d.window - 1))
	case "enter":
		switch c := engineapi.Answer(d.Selected()); c {
		case engineapi.Deny:
			d.openNote()
		case engineapi.Once, engineapi.Always:
			return true, d.reply(c, "")
		}
	}
	return false, engineapi.Reply{}
}

// Paste puts pasted text into the open note or a question's free-text
// answer (newlines become spaces); otherwise it is ignored, so a paste
// never answers an ask. (Additive to the contract.)
func (d *Dialog) Paste(msg tea.PasteMsg) {
	msg.Content = strings.Join(strings.Fields(clean(msg.Content)), " ")
	switch {
	case d.noting:
		d.note, _ = d.note.Update(msg)
	case d.Ask.Kind == engineapi.KindQuestion && len(d.choices) == 0:
		d.text, _ = d.text.Update(msg)
	}
}

func (d *Dialog) openNote() {
	d.noting = true
	d.sel = slices.Index(d.choices, string(engineapi.Deny))
	d.note.Focus()
}

func (d *Dialog) scrollBy(n int) {
	d.scroll = max(0, min(d.scroll+n, d.diffN-d.window))
}

// reply is the answer a, bound to the ask's input digest so the engine
// refuses it if the call changed under the dialog.
func (d *Dialog) reply(a engineapi.Answer, feedback string) engineapi.Reply {
	return engineapi.Reply{Answer: a, Feedback: feedback, Digest: d.Ask.InputDigest}
}

func (d *Dialog) updateQuestion(msg tea.KeyPressMsg) (bool, engineapi.Reply) {
	k := msg.String()
	if k == "esc" {
		return true, d.reply(engineapi.Deny, "")
	}
	if len(d.choices) == 0 {
		if k == "enter" {
			if t := strings.TrimSpace(d.text.Value()); t != "" {
				return true, d.reply(engineapi.Answer(t), "")
			}
			return false, engineapi.Reply{}
		}
		d.text, _ = d.text.Update(msg)
		return false, engineapi.Reply{}
	}
	switch k {
	case "up", "left", "shift+tab", "k":
		d.sel = (d.sel + len(d.choices) - 1) % len(d.choices)
	case "down", "right", "tab", "j":
		d.sel = (d.sel + 1) % len(d.choices)
	case "enter":
		return true, d.reply(engineapi.Answer(d.choices[d.sel]), "")
	default:
		if n, err := strconv.Atoi(k); err == nil && n >= 1 && n <= len(d.choices) {
			return true, d.reply(engineapi.Answer(d.choices[n-1]), "")
		}
	}
	return false, engineapi.Reply{}
}

// SetWidth re-flows the dialog.
func (d *Dialog) SetWidth(w int) { d.width = w }

// SetHeight bounds the dialog's rows (0: unbounded): a long diff then
// shows fewer lines at once (at least 3) so the choices stay on the
// screen. (Additive to the contract.)
func (d *Dialog) SetHeight(h int) { d.height = h }

// labelWidth is the width of the dialog's row labels.
const labelWidth = 11

// View renders the dialog: the tool and target, the parsed segments (which
// asked and why) or the coloured diff, the rule that asked with its layer
// and file:line, what "always" adds and where, Jev's advice, the choices.
func (d *Dialog) View() string {
	w := max(d.width, 32)
	inner := w - 4 // border and padding
	th := d.theme
	var b []string
	if d.Ask.Kind == engineapi.KindQuestion {
		b = append(d.title(inner), d.questionBody(inner)...)
	} else {
		// A bounded height shows fewer diff lines (at least 3), so the
		// choices stay on the screen.
		if fit := [2]int{w, d.height}; fit != d.fitKey {
			d.window, d.fitKey = DiffLines, fit
		}
		for {
			if key := [3]int{w, d.scroll, d.window}; d.head == nil || d.headKey != key {
				d.head, d.headKey = append(d.title(inner), d.permissionHead(inner)...), key
			}
			b = append(slices.Clip(d.head), d.permissionTail(inner)...)
			rows := strings.Count(strings.Join(b, "\n"), "\n") + 3 // and the borders
			if d.height <= 0 || rows <= d.height || d.window <= 3 || d.diffN <= d.window {
				break
			}
			d.window = max(3, min(d.window-(rows-d.height), d.diffN-1))
		}
		d.scroll = max(0, min(d.scroll, d.diffN-d.window))
	}
	if d.flash != "" {
		b = append(b, "", th.Warn.Render(wrap(d.flash, inner)))
	}
	return frame(th, w, b)
}

// title is the title row: the kind, the tool (and a short target), the
// queued count.
func (d *Dialog) title(inner int) []string {
	th := d.theme
	title := th.Accent.Render("Permission · " + clean(d.Ask.Tool))
	if d.Ask.Kind == engineapi.KindQuestion {
		title = th.Accent.Render("Question")
	} else if t := d.inlineTarget(inner - lipgloss.Width(title) - len(d.counter()) - 3); t != "" {
		title += "  " + th.Header.Render(t)
	}
	return []string{titleRow(title, d.counter(), inner, th)}
}

// frame draws a rounded border around lines (each at most w-4 columns
// wide; wider ones are clipped), with a column of padding on each side.
func frame(th Theme, w int, lines []string) string {
	inner := w - 4
	var b strings.Builder
	b.WriteString(th.Border.Render("╭" + strings.Repeat("─", w-2) + "╮"))
	left, right := th.Border.Render("│")+" ", " "+th.Border.Render("│")
	for _, l := range lines {
		for s := range strings.SplitSeq(l, "\n") {
			sw := ansi.StringWidth(s)
			if sw > inner {
				s = ansi.Truncate(s, inner, "…")
				sw = ansi.StringWidth(s)
			}
			b.WriteString("\n" + left + s + strings.Repeat(" ", inner-sw) + right)
		}
	}
	b.WriteString("\n" + th.Border.Render("╰"+strings.Repeat("─", w-2)+"╯"))
	return b.String()
}

// inlineTarget is the target when it goes on the title row (a file
// tool's single-line target that fits in room columns), else "".
func (d *Dialog) inlineTarget(room int) string {
	t := clean(d.Ask.Target)
	if d.Ask.Tool == "bash" || t == "" || strings.Contains(t, "\n") || ansi.StringWidth(t) > room {
		return ""
	}
	return t
}

// counter is "1 of N" when more asks wait.
func (d *Dialog) counter() string {
	if d.queued <= 0 {
		return ""
	}
	return fmt.Sprintf("1 of %d", d.queued+1)
}

// titleRow puts left and the muted right at the row's two ends.
func titleRow(left, right string, width int, th Theme) string {
	if right == "" {
		return left
	}
	gap := width - lipgloss.Width(left) - lipgloss.Width(right)
	if gap < 1 {
		return left + " " + th.Muted.Render(right)
	}
	return left + strings.Repeat(" ", gap) + th.Muted.Render(right)
}

// permissionHead is the ask: the target, the segments, the diff, the rule,
// what "always" adds, Jev's advice.
func (d *Dialog) permissionHead(inner int) []string {
	th, a := d.theme, d.Ask
	var b []string
	if a.Target != "" && d.inlineTarget(inner-lipgloss.Width("Permission · "+clean(a.Tool))-len(d.counter())-3) == "" {
		prefix := ""
		if a.Tool == "bash" {
			prefix = "$ "
		}
		b = append(b, th.Header.Render(wrap(prefix+clean(a.Target), inner)))
	}
	if len(a.Segments) > 0 {
		if len(b) > 0 {
			b = append(b, "")
		}
		b = append(b, d.segments(inner)...)
	}
	if a.Diff != "" {
		b = append(b, "")
		b = append(b, d.diff(inner)...)
	}
	b = append(b, "")
	b = append(b, row(th, "asked by", d.decision(), inner))
	if a.Decision != nil && a.Decision.Reason != "" {
		b = append(b, row(th, "because", th.Text.Render(clean(a.Decision.Reason)), inner))
	}
	b = append(b, row(th, "always", d.always(), inner))
	if a.Advice != nil {
		b = append(b, row(th, "Jev", d.advice(inner-labelWidth), inner))
	}
	return b
}

// permissionTail is the choices and the note or the keys.
func (d *Dialog) permissionTail(inner int) []string {
	th := d.theme
	b := []string{"", d.choiceRow()}
	if d.noting {
		d.note.SetWidth(max(inner-3, 10))
		b = append(b, th.Text.Render("note to the model:"), d.note.View())
		b = append(b, th.Muted.Render(wrap("Enter deny with this note · Esc deny without one", inner)))
	} else {
		help := "y once · a always · n deny (with a note) · ←/→ Tab Enter choose · Esc deny"
		if !slices.Contains(d.choices, string(engineapi.Always)) {
			help = "y once · n deny (with a note) · ←/→ Tab Enter choose · Esc deny"
		}
		if d.diffN > d.window {
			help += " · PgUp/PgDn scroll the diff"
		}
		b = append(b, th.Muted.Render(wrap(help, inner)))
	}
	return b
}

// segments are the bash command's segments, one a line, with the verdict;
// the ones that asked are marked and say why.
func (d *Dialog) segments(inner int) []string {
	th := d.theme
	var b []string
	for _, s := range d.Ask.Segments {
		mark := "  "
		vs := verdictStyle(th, s.Verdict)
		text := th.Text.Render(clean(s.Text))
		if s.Asked {
			mark = th.Warn.Render("▶ ")
			text = th.Warn.Render(clean(s.Text))
		}
		line := mark + vs.Render(fmt.Sprintf("%-5s", clean(s.Verdict))) + " " + text
		if s.Reason != "" && (s.Asked || s.Verdict == "deny" || s.Verdict == "floor") {
			line += th.Muted.Render(" — " + clean(s.Reason))
		}
		b = append(b, lipgloss.NewStyle().Width(inner).Render(line))
	}
	return b
}

func verdictStyle(th Theme, v string) lipgloss.Style {
	switch v {
	case "safe", "allow":
		return th.OK
	case "ask":
		return th.Warn
	case "deny", "floor":
		return th.Error
	}
	return th.Muted
}

// diff is the coloured diff's visible window with what lies above and below.
func (d *Dialog) diff(inner int) []string {
	th := d.theme
	lines := d.diffRaw
	from, to := 0, len(lines)
	if len(lines) > d.window {
		from = max(0, min(d.scroll, len(lines)-d.window))
		to = from + d.window
	}
	var b []string
	if from > 0 {
		b = append(b, th.Muted.Render(fmt.Sprintf("… %d more above (PgUp)", from)))
	}
	for _, l := range lines[from:to] {
		b = append(b, diffLine(l, th, inner))
	}
	if rest := len(lines) - to; rest > 0 {
		b = append(b, th.Muted.Render(fmt.Sprintf("… %d more (PgDn)", rest)))
	}
	return b
}

// decision is the rule that asked, its layer and file:line.
func (d *Dialog) decision() string {
	th, dec := d.theme, d.Ask.Decision
	if dec == nil {
		return th.Muted.Render("no rule recorded")
	}
	var parts []string
	switch {
	case dec.Floor:
		parts = append(parts, th.Error.Render("the dangerous floor"))
	case dec.Rule != "":
		parts = append(parts, th.Text.Render(clean(dec.Rule)))
	default:
		parts = append(parts, th.Text.Render("the default"))
	}
	if dec.Layer != "" {
		parts = append(parts, th.Muted.Render("layer ")+th.Text.Render(clean(dec.Layer)))
	}
	if dec.Source != "" {
		src := clean(dec.Source)
		if dec.Line > 0 {
			src += ":" + strconv.Itoa(dec.Line)
		}
		parts = append(parts, th.Accent.UnsetBold().Render(src))
	}
	return strings.Join(parts, th.Muted.Render(" · "))
}

// always says what "always" adds and where it is kept, or why it is not
// offered.
func (d *Dialog) always() string {
	th, r := d.theme, d.Ask.Remember
	if !slices.Contains(d.choices, string(engineapi.Always)) {
		return th.Muted.Render("not offered: cannot be remembered")
	}
	if r == nil || len(r.Rules) == 0 {
		return th.Text.Render("remembers this approval for the session")
	}
	rules := make([]string, len(r.Rules))
	for i, x := range r.Rules {
		rules[i] = th.Text.Render(clean(x))
	}
	where := "for this session (stored with it)"
	if r.Scope != "" && r.Scope != "session" {
		where = "in " + clean(r.Scope)
	}
	return th.Muted.Render("adds ") + strings.Join(rules, th.Muted.Render(", ")) + th.Muted.Render(" "+where)
}

// advice is Jev's advice: its status, the four scores and its reasons. An
// advisor that could not answer is "advice unavailable", never unsafe.
func (d *Dialog) advice(width int) string {
	th, a := d.theme, d.Ask.Advice
	var status string
	switch a.Status {
	case engineapi.AdviceSafe:
		status = th.OK.Render("safe")
	case engineapi.AdviceUnsafe:
		status = th.Error.Render("unsafe")
	case engineapi.AdviceTimeout:
		status = th.Muted.Render("advice unavailable (timeout)")
	default:
		status = th.Muted.Render("advice unavailable")
	}
	if a.Injection && a.Status != engineapi.AdviceUnsafe {
		status = th.Error.Render("unsafe")
	}
	if unsafeAdvice(a) {
		status += th.Muted.Render(" · deny is pre-selected")
	}
	if a.Cached {
		status += th.Muted.Render(" (cached)")
	}
	lines := []string{status}
	answered := a.Status == engineapi.AdviceSafe || a.Status == engineapi.AdviceUnsafe
	if s := a.Scores; s != nil && answered {
		lines = append(lines, th.Text.Render(wrap(fmt.Sprintf("destructive %d%% · egress %d%% · undoable %d%% · blast %s",
			s.Destructive, s.Egress, s.Undoable, clean(s.Blast)), width)))
	}
	for _, r := range a.Reasons {
		lines = append(lines, th.Muted.Render(wrap(clean(r), width)))
	}
	return strings.Join(lines, "\n")
}

// choiceRow is the choices with the highlighted one marked.
func (d *Dialog) choiceRow() string {
	th := d.theme
	labels := map[string]string{"once": "y yes, once", "always": "a yes, always", "deny": "n no, deny"}
	var parts []string
	for i, c := range d.choices {
		l := labels[c]
		if i == d.sel {
			parts = append(parts, th.Selected.Render("› "+l+" "))
		} else {
			parts = append(parts, th.Text.Render("  "+l+" "))
		}
	}
	return strings.Join(parts, " ")
}

func (d *Dialog) questionBody(inner int) []string {
	th := d.theme
	b := []string{th.Header.Render(wrap(clean(d.Ask.Target), inner)), ""}
	if len(d.choices) == 0 {
		d.text.SetWidth(max(inner-3, 10))
		b = append(b, d.text.View(), "", th.Muted.Render(wrap("Enter send · Esc decline", inner)))
		return b
	}
	for i, o := range d.choices {
		l := fmt.Sprintf("%d. %s", i+1, clean(o))
		if i == d.sel {
			b = append(b, th.Selected.Render(wrap("› "+l, inner)))
		} else {
			b = append(b, th.Text.Render(wrap("  "+l, inner)))
		}
	}
	keys := "1-9 choose · ↑/↓ Enter choose · Esc decline"
	if len(d.choices) == 1 {
		keys = "1 choose · Enter choose · Esc decline"
	}
	b = append(b, "", th.Muted.Render(wrap(keys, inner)))
	return b
}

// row is a label and its value, the value wrapped with a hanging indent.
func row(th Theme, label, value string, width int) string {
	l := th.Muted.Render(fmt.Sprintf("%-*s", labelWidth, label))
	v := lipgloss.NewStyle().Width(max(width-labelWidth, 10)).Render(value)
	return lipgloss.JoinHorizontal(lipgloss.Top, l, v)
}

// wrap wraps plain text at width columns.
func wrap(s string, width int) string {
	return ansi.Wrap(s, max(width, 1), "")
}

// clean makes text from the model or a tool safe to show: escape sequences
// and control characters are dropped (a command cannot restyle or hide
// itself), tabs become spaces.
func clean(s string) string { return sanitize(s, false) }

// sanitize drops escape sequences and control characters but newlines
// (and tabs when keepTabs; otherwise they become spaces): the one
// sanitiser the CLI's text output shares (internal/termtext).
func sanitize(s string, keepTabs bool) string { return termtext.Sanitize(s, keepTabs) }
