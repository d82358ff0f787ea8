package pager

import (
	"fmt"
	"strings"

	"github.com/oceancode/oceancode/agent/engineapi"
)

// Custom commands (docs/commands.md) are the session's: its State lists
// them, the / menu offers them after the built-in ones, and a line naming
// one is sent to the engine as a prompt, which expands it (so the pager in
// process and attached to serve run them alike). A built-in command of
// the same name wins.

// SetCustom sets the custom commands the / menu offers.
func (c *Composer) SetCustom(cmds []engineapi.CommandInfo) {
	c.custom = c.custom[:0]
	for _, k := range cmds {
		if _, builtin := LookupCommand(k.Name); builtin {
			continue
		}
		c.custom = append(c.custom, Command{Name: k.Name, Args: k.ArgumentHint, Help: k.Description})
	}
}

// customCommand reports whether name is one of the session's custom
// commands (and no built-in one).
func (m *model) customCommand(name string) bool {
	if _, builtin := LookupCommand(name); builtin {
		return false
	}
	for _, k := range m.state.Commands {
		if k.Name == name {
			return true
		}
	}
	return false
}

// commandLines are a command event in the scrollback: which custom
// command ran and from where, then each notice (what was not honoured).
func (m *model) commandLines(e engineapi.Event) string {
	c := e.Command
	if c == nil {
		return ""
	}
	out := m.th.Muted.Render(clean("/" + c.Name + " (" + c.Layer + " " + c.Path + ")"))
	for _, n := range c.Notices {
		out += "\n" + m.th.Warn.Render("  "+clean(n))
	}
	return out
}

// customHelp is /help's list of the session's custom commands.
func (m *model) customHelp() string {
	out := ""
	for _, k := range m.composer.custom {
		out += fmt.Sprintf("\n  /%-26s %s", clean(strings.TrimSpace(k.Name+" "+k.Args)), clean(k.Help))
	}
	if out == "" {
		return ""
	}
	return "\ncustom commands (docs/commands.md):" + out
}
