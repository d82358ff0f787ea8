package runner

import (
	"context"
	"errors"

	"github.com/oceancode/oceancode/agent/mcp"
)

// ErrUnsupported is returned by a switch the session was not given the
// means for (Options without the hook it needs).
var ErrUnsupported = errors.New("not supported by this session")

// SetModel switches the model for the next turn; the running turn keeps
// its model. The requirements' allowed_models apply (through the hook the
// bridge supplies). CONTRACT stub: the engine's author implements it.
func (s *Session) SetModel(ctx context.Context, model string) (State, error) {
	return s.State(), ErrUnsupported
}

// SetAgent switches the agent (its prompt, tools and permission rules) for
// the next turn. CONTRACT stub.
func (s *Session) SetAgent(ctx context.Context, agent string) (State, error) {
	return s.State(), ErrUnsupported
}

// MCPServers lists the session's MCP servers and their state (none when it
// has no MCP client).
func (s *Session) MCPServers() []mcp.Status {
	if s.o.MCP == nil {
		return nil
	}
	return s.o.MCP.Statuses()
}
