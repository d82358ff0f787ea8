package pager

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/oceancode/oceancode/agent/engineapi"
	"github.com/oceancode/oceancode/agent/permission"
)

// command runs a slash command (its name and help are pager.Commands').
// What it prints goes to the scrollback; every change goes to the engine.
func (m *model) command(name string, args []string) tea.Cmd {
	switch name {
	case "auto":
		return m.requestMode(permission.AcceptEdits, "auto")
	case "always-approve":
		return m.requestMode(permission.BypassPermissions, "always-approve")
	case "mode":
		if len(args) == 0 {
			m.print(m.modeList())
			return nil
		}
		pm, err := permission.ParseMode(args[0])
		if err != nil {
			m.print(m.th.Error.Render("/mode: " + err.Error()))
			return nil
		}
		return m.requestMode(pm, "mode")
	case "model":
		return m.reconfigure("model", m.state.Model, args, m.eng.SetModel)
	case "agent":
		return m.reconfigure("agent", m.state.Agent, args, m.eng.SetAgent)
	case "permissions":
		if len(m.denied.Items()) > 0 {
			m.showDenied = true
		}
		return m.withInspect("/permissions", func(d inspectDoc) string { return m.permissionsText(d) })
	case "inspect":
		if len(args) != 1 {
			m.print(m.th.Error.Render("/inspect: give one KEY (e.g. /inspect permission_mode)"))
			return nil
		}
		return m.withInspect("/inspect", func(d inspectDoc) string { return inspectText(d, args[0]) })
	case "mcp":
		return m.mcpCommand(args)
	case "sessions":
		return m.sessionsCommand(args)
	case "instructions":
		return m.withInspect("/instructions", instructionsText)
	case "undo", "redo", "checkpoints":
		return m.undoCommand(name, args)
	case "sandbox":
		return m.withInspect("/sandbox", func(d inspectDoc) string { return sandboxText(m.state.Sandbox, d) })
	case "compact":
		return m.compactCommand(args)
	case "cost":
		m.print(m.costText())
		return nil
	case "clear":
		if m.o.New == nil {
			m.print(m.th.Error.Render("/clear: a new session is unavailable here"))
			return nil
		}
		newFn, ctx := m.o.New, m.ctx
		return func() tea.Msg {
			eng, err := newFn(ctx)
			if err != nil {
				err = fmt.Errorf("/clear: %w", err)
			}
			return switchMsg{eng: eng, err: err}
		}
	case "help":
		m.print(helpText() + m.customHelp())
		return nil
	case "exit", "quit":
		return tea.Quit
	}
	m.print(m.th.Error.Render(fmt.Sprintf("unknown command /%s (/help lists them)", name)))
	return nil
}

// requestMode asks the engine for mode. A mode the state says is locked is
// refused here with the lock's reason (nothing is sent: nothing changes).
func (m *model) requestMode(mode permission.Mode, via string) tea.Cmd {
	if o := modeOption(m.state, mode); o.Locked {
		m.refuseMode(mode, o.Reason, via)
		return nil
	}
	return m.setMode(mode, via)
}

func (m *model) setMode(mode permission.Mode, via string) tea.Cmd {
	eng, ctx, prev, inputs := m.eng, m.ctx, m.state.Mode.Mode, m.inputs
	return func() tea.Msg {
		res, err := eng.SetMode(ctx, mode)
		return modeMsg{res: res, err: err, via: via, prev: prev, inputs: inputs}
	}
}

func (m *model) refuseMode(mode permission.Mode, reason, via string) {
	if via == "cycle" {
		m.notice = lockedNotice(mode, reason)
		m.cycleAt = mode // the next press goes on from here
		return
	}
	if reason == "" {
		reason = "not allowed"
	}
	m.notice = "refused: " + reason
}

// cycleMode is Shift+Tab: the next mode of the cycle; a locked one is not
// entered (the status line says why) and the next press goes on.
func (m *model) cycleMode() tea.Cmd {
	from := m.cycleAt
	if from == "" {
		from = m.state.Mode.Mode
	}
	next := cycle(m.state, from)
	if next.Locked {
		m.refuseMode(next.Mode, next.Reason, "cycle")
		return nil
	}
	m.cycleAt = ""
	return m.setMode(next.Mode, "cycle")
}

// modeResult is the engine's answer to a mode request. A downgraded one
// (the engine's locks) is refused: the pager goes back to where it was.
func (m *model) modeResult(msg modeMsg) tea.Cmd {
	if msg.err != nil {
		m.notice = "mode: " + msg.err.Error()
		return nil
	}
	m.state.Mode = msg.res
	current := msg.inputs == m.inputs // no newer input since the request
	if msg.res.Downgraded {
		cycleAt := m.cycleAt
		m.refuseMode(msg.res.Requested, msg.res.Reason, msg.via) // a refusal is always said
		if !current {
			m.cycleAt = cycleAt // a newer press has moved the cycle on
		}
		if msg.prev != "" && msg.res.Mode != msg.prev {
			return m.setMode(msg.prev, "restore")
		}
		return m.fetchState()
	}
	if msg.via != "restore" && current {
		m.notice = "mode: " + modeLabel(msg.res.Mode)
	}
	return m.fetchState()
}

func (m *model) modeList() string {
	var b strings.Builder
	fmt.Fprintf(&b, "modes (now %s; Shift+Tab cycles default → acceptEdits → plan):", modeLabel(m.state.Mode.Mode))
	for _, o := range modeOptions(m.state) {
		mark := "  "
		if o.Mode == m.state.Mode.Mode {
			mark = "● "
		}
		line := "\n  " + mark + modeLabel(o.Mode)
		if o.Locked {
			line += m.th.Warn.Render("  locked: " + o.Reason)
		}
		b.WriteString(line)
	}
	return b.String()
}

// reconfigure is /model and /agent: without a name, the current one.
func (m *model) reconfigure(what, current string, args []string, set func(context.Context, string) (engineapi.State, error)) tea.Cmd {
	if len(args) == 0 {
		if current == "" {
			current = "(unknown)"
		}
		m.print(fmt.Sprintf("%s: %s", what, current))
		return nil
	}
	ctx, gen, name := m.ctx, m.gen, args[0]
	return func() tea.Msg {
		st, err := set(ctx, name)
		switch {
		case errors.Is(err, engineapi.ErrUnsupported):
			return outputMsg{err: fmt.Errorf("/%s: %s switching unavailable in this session", what, what)}
		case err != nil:
			return outputMsg{err: fmt.Errorf("/%s %s: %w", what, name, err)}
		}
		text := fmt.Sprintf("%s → %s (from the next turn)", what, name)
		return tea.BatchMsg{
			func() tea.Msg { return outputMsg{text: text} },
			func() tea.Msg { return stateMsg{gen: gen, st: st} },
		}
	}
}

// withInspect fetches the inspect document and prints what text makes of
// it.
func (m *model) withInspect(op string, text func(inspectDoc) string) tea.Cmd {
	eng, ctx := m.eng, m.ctx
	return func() tea.Msg {
		raw, err := eng.Inspect(ctx)
		if err != nil {
			return outputMsg{err: fmt.Errorf("%s: %w", op, err)}
		}
		var d inspectDoc
		if err := json.Unmarshal(raw, &d); err != nil {
			return outputMsg{err: fmt.Errorf("%s: read the inspect document: %w", op, err)}
		}
		return outputMsg{text: text(d)}
	}
}

// inspectDoc is the part of the `oceancode inspect --json` document the
// pager shows (docs/configuration.md has it all).
type inspectDoc struct {
	Requirements struct {
		Status string `json:"status"`
		Serial int64  `json:"serial"`
	} `json:"requirements"`
	Keys  map[string]inspectKey `json:"keys"`
	Locks *struct {
		DisallowedModes map[string]string `json:"disallowed_modes"`
		Pinned          []string          `json:"pinned"`
	} `json:"locks"`
	Sandbox *struct {
		Configured string   `json:"configured"`
		Available  bool     `json:"available"`
		Problem    string   `json:"problem"`
		Warnings   []string `json:"warnings"`
	} `json:"sandbox"`
	Instructions *instructionsDoc `json:"instructions"`
}

type inspectStep struct {
	Value  any    `json:"value"`
	Layer  string `json:"layer"`
	Source string `json:"source"`
	Line   int    `json:"line"`
	Reason string `json:"reason"`
}

type inspectKey struct {
	inspectStep
	Pinned    bool          `json:"pinned"`
	Overrides []inspectStep `json:"overrides"`
	Merged    []inspectStep `json:"merged_from"`
	Refused   []inspectStep `json:"refused"`
}

func (s inspectStep) from() string {
	w := strings.TrimSpace(s.Layer + " " + s.Source)
	if s.Line > 0 {
		w += ":" + strconv.Itoa(s.Line)
	}
	return clean(w)
}

// valueText is a configured value, shown as text (a project's config is
// untrusted: its escape sequences are dropped).
func valueText(v any) string {
	if s, ok := v.(string); ok {
		return clean(s)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func (d inspectDoc) locked(key string) bool {
	if k, ok := d.Keys[key]; ok && k.Pinned {
		return true
	}
	if d.Locks != nil {
		for _, p := range d.Locks.Pinned {
			if p == key {
				return true
			}
		}
	}
	return false
}

// ruleOf splits `permission.bash["git status"]` into bash and git status.
func ruleOf(key string) (tool, pattern string, ok bool) {
	rest, ok := strings.CutPrefix(key, "permission.")
	if !ok {
		return "", "", false
	}
	i := strings.IndexByte(rest, '[')
	if i < 0 || !strings.HasSuffix(rest, "]") {
		return rest, "*", true
	}
	p, err := strconv.Unquote(rest[i+1 : len(rest)-1])
	if err != nil {
		p = rest[i+1 : len(rest)-1]
	}
	return rest[:i], p, true
}

// permissionsText is the effective permission rules, each with where it
// came from and what it overrode, then the mode's locks.
func (m *model) permissionsText(d inspectDoc) string {
	var keys []string
	for k := range d.Keys {
		if _, _, ok := ruleOf(k); ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("permission rules (last match wins; requirements and the safety floor come first):")
	if len(keys) == 0 {
		b.WriteString("\n  (none configured)")
	}
	for _, k := range keys {
		tool, pat, _ := ruleOf(k)
		v := d.Keys[k]
		fmt.Fprintf(&b, "\n  %-5s %s %q  %s", valueText(v.Value), clean(tool), pat, m.th.Muted.Render(v.from()))
		for _, o := range v.Overrides {
			fmt.Fprintf(&b, "\n      %s", m.th.Muted.Render("overrides "+valueText(o.Value)+" from "+o.from()))
		}
		if d.locked(k) {
			b.WriteString(m.th.Warn.Render("  locked"))
		}
	}
	if k, ok := d.Keys["permission_mode"]; ok {
		fmt.Fprintf(&b, "\n  permission_mode %s  %s", valueText(k.Value), m.th.Muted.Render(k.from()))
	}
	if d.Locks != nil && len(d.Locks.DisallowedModes) > 0 {
		var ms []string
		for mode := range d.Locks.DisallowedModes {
			ms = append(ms, mode)
		}
		sort.Strings(ms)
		for _, mode := range ms {
			fmt.Fprintf(&b, "\n  %s", m.th.Warn.Render(mode+" locked: "+d.Locks.DisallowedModes[mode]))
		}
	}
	items := m.denied.Items()
	if len(items) == 0 {
		b.WriteString("\nrecently denied: none")
	} else {
		fmt.Fprintf(&b, "\nrecently denied: %d (r or Enter retries one: it goes through the gate again; Esc closes)", len(items))
	}
	return b.String()
}

// inspectText is one key: its value, layer, file:line, whether it is
// locked and what it overrode; for a prefix, the keys under it.
func inspectText(d inspectDoc, key string) string {
	k, ok := d.Keys[key]
	if !ok {
		var under []string
		for name, v := range d.Keys {
			if strings.HasPrefix(name, key) {
				under = append(under, fmt.Sprintf("  %s = %s  (%s)", clean(name), valueText(v.Value), v.from()))
			}
		}
		if len(under) == 0 {
			return fmt.Sprintf("/inspect: no key %s is set (oceancode inspect lists them)", key)
		}
		sort.Strings(under)
		return strings.Join(append([]string{key + "…"}, under...), "\n")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s = %s\n  from %s", key, valueText(k.Value), k.from())
	if d.locked(key) {
		b.WriteString("\n  locked (pinned by the requirements)")
	} else {
		b.WriteString("\n  not locked")
	}
	for _, o := range k.Overrides {
		fmt.Fprintf(&b, "\n  overrides %s from %s", valueText(o.Value), o.from())
	}
	for _, o := range k.Merged {
		fmt.Fprintf(&b, "\n  merged from %s (%s)", o.from(), valueText(o.Value))
	}
	for _, o := range k.Refused {
		fmt.Fprintf(&b, "\n  refused %s from %s: %s", valueText(o.Value), o.from(), o.Reason)
	}
	return b.String()
}

// sandboxAllows says what a sandbox mode lets bash do.
var sandboxAllows = map[string]string{
	"read-only":          "commands read the workspace; writes and the network are refused",
	"workspace-write":    "commands write inside the project (and temp); the rest is read-only; network as configured",
	"danger-full-access": "no confinement: commands reach everything you can",
	"off":                "no sandbox: bash runs unconfined",
}

func sandboxText(mode string, d inspectDoc) string {
	var b strings.Builder
	if mode == "" {
		mode = "(not reported by this session)"
	}
	fmt.Fprintf(&b, "sandbox: %s", mode)
	if a, ok := sandboxAllows[mode]; ok {
		b.WriteString("\n  " + a)
	}
	if s := d.Sandbox; s != nil {
		fmt.Fprintf(&b, "\n  configured: %s", s.Configured)
		if s.Problem != "" {
			fmt.Fprintf(&b, "\n  unavailable: %s", s.Problem)
		}
		for _, w := range s.Warnings {
			fmt.Fprintf(&b, "\n  warning: %s", w)
		}
	}
	return b.String()
}

// mcpCommand is /mcp (list), /mcp add NAME -- CMD ARGS… and /mcp add NAME
// URL.
func (m *model) mcpCommand(args []string) tea.Cmd {
	eng, ctx := m.eng, m.ctx
	if len(args) == 0 || args[0] == "list" {
		return func() tea.Msg {
			list, err := eng.MCP(ctx)
			if err != nil {
				return outputMsg{err: fmt.Errorf("/mcp: %w", err)}
			}
			return outputMsg{text: mcpText(list)}
		}
	}
	srv, name, err := parseMCPAdd(args)
	if err != nil {
		m.print(m.th.Error.Render("/mcp: " + err.Error()))
		return nil
	}
	m.print(m.th.Muted.Render("adding MCP server " + name + " (its calls will ask)…"))
	return func() tea.Msg {
		st, err := eng.AddMCP(ctx, name, srv)
		if err != nil {
			return outputMsg{err: fmt.Errorf("/mcp add %s: %w", name, err)}
		}
		return outputMsg{text: mcpText([]engineapi.MCPStatus{st})}
	}
}

func parseMCPAdd(args []string) (engineapi.MCPServer, string, error) {
	const usage = "usage: /mcp add NAME -- COMMAND ARGS… or /mcp add NAME URL"
	if args[0] != "add" || len(args) < 3 {
		return engineapi.MCPServer{}, "", errors.New(usage)
	}
	name, rest := args[1], args[2:]
	if rest[0] == "--" {
		if len(rest) < 2 {
			return engineapi.MCPServer{}, "", errors.New(usage)
		}
		return engineapi.MCPServer{Name: name, Command: rest[1], Args: rest[2:], Source: "runtime add"}, name, nil
	}
	if u, err := url.Parse(rest[0]); err == nil && (u.Scheme == "http" || u.Scheme == "https") && len(rest) == 1 {
		return engineapi.MCPServer{Name: name, URL: rest[0], Source: "runtime add"}, name, nil
	}
	return engineapi.MCPServer{}, "", errors.New(usage)
}

func mcpText(list []engineapi.MCPStatus) string {
	if len(list) == 0 {
		return "mcp: no servers"
	}
	var b strings.Builder
	b.WriteString("mcp servers:")
	for _, s := range list {
		fmt.Fprintf(&b, "\n  %-16s %-10s %s", s.Name, s.State, strings.TrimSpace(s.Origin+" "+s.Source))
		if len(s.Tools) > 0 {
			fmt.Fprintf(&b, "  %d tools", len(s.Tools))
		}
		if s.Reason != "" {
			fmt.Fprintf(&b, "  — %s", s.Reason)
		}
	}
	return cleanText(b.String()) // names and reasons come from .mcp.json
}

// sessionsCommand is /sessions (list) and /sessions ID (resume).
func (m *model) sessionsCommand(args []string) tea.Cmd {
	eng, ctx := m.eng, m.ctx
	if len(args) == 0 {
		current := eng.ID()
		return func() tea.Msg {
			list, err := eng.Sessions(ctx)
			if err != nil {
				return outputMsg{err: fmt.Errorf("/sessions: %w", err)}
			}
			if len(list) == 0 {
				return outputMsg{text: "sessions: none stored"}
			}
			var b strings.Builder
			b.WriteString("sessions (/sessions ID resumes one):")
			for _, s := range list {
				mark := "  "
				if s.ID == current {
					mark = "● "
				}
				fmt.Fprintf(&b, "\n  %s%s  %-11s %s  %d messages  %s", mark, s.ID, s.Status, s.Updated.Format("2006-01-02 15:04"), s.Messages, s.Title)
			}
			return outputMsg{text: cleanText(b.String())} // titles are prompts
		}
	}
	if m.o.Resume == nil {
		m.print(m.th.Error.Render("/sessions: resuming is unavailable here"))
		return nil
	}
	resume, id := m.o.Resume, args[0]
	return func() tea.Msg {
		eng, err := resume(ctx, id)
		if err != nil {
			err = fmt.Errorf("/sessions %s: %w", id, err)
		}
		return switchMsg{eng: eng, err: err}
	}
}

// keyHelp is the pager's own keys (the dialog's and the composer's are
// theirs: docs/pager.md lists all).
var keyHelp = [][2]string{
	{"Enter", "send the prompt (or the command)"},
	{"Shift+Tab", "cycle default → acceptEdits (auto) → plan; a locked mode says why"},
	{"Ctrl+O", "always-approve (bypassPermissions), refused with the reason when locked"},
	{"Ctrl+C", "cancel the running turn; twice within 2 s exits"},
	{"Ctrl+D", "exit (on an empty prompt)"},
	{"Esc", "decline a question; close the denied list"},
}

func helpText() string {
	var b strings.Builder
	b.WriteString("commands:")
	for _, c := range Commands {
		fmt.Fprintf(&b, "\n  /%-26s %s", strings.TrimSpace(c.Name+" "+c.Args), c.Help)
	}
	b.WriteString("\nkeys:")
	for _, k := range keyHelp {
		fmt.Fprintf(&b, "\n  %-12s %s", k[0], k[1])
	}
	return b.String()
}
