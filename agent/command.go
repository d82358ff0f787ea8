package agent

import (
	"context"

	"github.com/oceancode/oceancode/agent/commands"
	"github.com/oceancode/oceancode/agent/engineapi"
	"github.com/oceancode/oceancode/agent/tools"
)

// expandCommand runs a prompt that names a custom command as the
// command's expansion: the text the model gets, the tools narrowed to its
// allowed-tools (never widened: a tool the session lacks stays out), the
// model it names when the command set allowed it. The command event says
// which command ran, from where, and what of it was not honoured. Any
// other prompt, and a Continue (nil), pass unchanged.
func expandCommand(c Config, prompt *string) (Config, *string, *Event) {
	if prompt == nil || c.Commands == nil {
		return c, prompt, nil
	}
	e, ok := c.Commands.Expand(*prompt)
	if !ok {
		return c, prompt, nil
	}
	text := e.Text
	if e.Tools != nil {
		c.Tools = keep(c.Tools, e)
		if extra := c.Extra; extra != nil {
			c.Extra = func(ctx context.Context) ([]tools.Tool, []Event) {
				ts, evs := extra(ctx)
				return keep(ts, e), evs
			}
		}
	}
	if e.Model != "" {
		c.Model = e.Model
	}
	ev := &Event{Type: EventCommand, Command: &engineapi.CommandUse{Name: e.Command.Name, Layer: e.Command.Layer.String(),
		Path: e.Command.Path, Args: e.Args, Tools: e.Tools, Model: e.Model, Notices: e.Notices}}
	return c, &text, ev
}

// keep is the tools an expansion keeps.
func keep(ts []tools.Tool, e commands.Expansion) []tools.Tool {
	out := make([]tools.Tool, 0, len(ts))
	for _, t := range ts {
		name := t.Def().Name
		if _, ok := t.(tools.MCPTool); ok {
			name = "mcp" // allowed-tools names mcp__server__tool; the key is mcp
		}
		if e.Keeps(name) {
			out = append(out, t)
		}
	}
	return out
}
