package mcp

import (
	"context"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/tools"
)

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
