package mcp

import (
	"context"
	"fmt"
	"time"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/tools"
)

// Event is the server's state as a session event (type mcp, Key the
// server's name).
func (s Status) Event() agent.Event {
	text := fmt.Sprintf("MCP server %s (%s): %s", s.Name, s.Origin, s.State)
	switch {
	case s.State == StateConnected:
		text += fmt.Sprintf(", %d tools (started in %v)", len(s.Tools), s.Took.Round(time.Millisecond))
		if s.Reason != "" {
			text += "; " + s.Reason
		}
	case s.Reason != "":
		text += ": " + s.Reason
	}
	return agent.Event{Type: agent.EventMCP, Key: s.Name, Text: text}
}

// Events turns the state changes not told yet (Drain) into events.
func (m *Manager) Events() []agent.Event {
	var evs []agent.Event
	for _, st := range m.Drain() {
		evs = append(evs, st.Event())
	}
	return evs
}

// Extra is the turn loop's Extra hook (agent.Config.Extra) over m: the
// tools once listed, and an event for each state change not told yet.
func (m *Manager) Extra(ctx context.Context) ([]tools.Tool, []agent.Event) {
	return m.Tools(ctx), m.Events()
}
