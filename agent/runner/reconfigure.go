package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/engineapi"
	"github.com/oceancode/oceancode/agent/mcp"
	"github.com/oceancode/oceancode/agent/permission"
)

// ErrUnsupported is returned by a switch the session was not given the
// means for (Options without the hook it needs).
var ErrUnsupported = engineapi.ErrUnsupported

// SetModel switches the model for the next turn; the running turn keeps
// its model. The requirements' allowed_models and allowed_providers apply
// (Options.Reconfigure builds the config through them). Emits a
// mode_change event with Key "model" and records the model as asked
// (PROVIDER/MODEL: a resumed session takes it up).
func (s *Session) SetModel(ctx context.Context, model string) (State, error) {
	if strings.TrimSpace(model) == "" {
		return s.State(), errors.New("runner: set model: empty: want PROVIDER/MODEL")
	}
	return s.reconfigure(ctx, "", model)
}

// SetAgent switches the agent (its prompt, tools and permission rules) for
// the next turn; the running turn keeps its agent. The new agent's gate
// takes the mode switched to live, if one was, through its locks; else the
// mode configured for that agent, as a new session would start. Emits a
// mode_change event with Key "agent" (and one with Key "permission_mode"
// when the mode changes with it) and records the agent.
func (s *Session) SetAgent(ctx context.Context, name string) (State, error) {
	if strings.TrimSpace(name) == "" {
		return s.State(), errors.New("runner: set agent: empty: want an agent's name (build, plan, …)")
	}
	return s.reconfigure(ctx, name, "")
}

func (s *Session) reconfigure(ctx context.Context, name, model string) (State, error) {
	what, asked := "agent", name
	if name == "" {
		what, asked = "model", model
	}
	if s.o.Reconfigure == nil {
		return s.State(), fmt.Errorf("runner: set %s %s: %w", what, asked, ErrUnsupported)
	}
	// One switch at a time: each builds on the config the last one left.
	s.reMu.Lock()
	defer s.reMu.Unlock()
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return s.State(), ErrClosed
	}
	c, err := s.o.Reconfigure(ctx, name, model)
	if err != nil {
		return s.State(), fmt.Errorf("runner: set %s %s: %w", what, asked, err)
	}
	if (name == "" && c.Provider == nil) || (name != "" && c.Gate == nil) {
		return s.State(), fmt.Errorf("runner: set %s %s: the new config has no provider or gate", what, asked)
	}
	var modeEv *agent.Event
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return s.State(), ErrClosed
	}
	if name == "" {
		s.cfg.Model, s.cfg.Provider = c.Model, c.Provider
		s.cfg.Compaction, s.cfg.Price = c.Compaction, c.Price
		s.recModel = model
	} else {
		s.cfg.Agent, s.cfg.System, s.cfg.Tools, s.cfg.Extra = c.Agent, c.System, c.Tools, c.Extra
		g := c.Gate
		res := bootMode(g)
		if s.modeSet {
			res = modeIn(g, s.mode.Requested, g.SetMode(s.mode.Requested))
		}
		if res.Mode != s.mode.Mode {
			modeEv = &agent.Event{Type: agent.EventModeChange, Key: "permission_mode", Requested: string(res.Requested), Mode: string(res.Mode), Text: res.Reason}
		}
		s.cfg.Gate, s.mode = g, res
	}
	ag, now, recModel := s.cfg.Agent, s.cfg.Agent, s.recModel
	if name == "" {
		now = s.cfg.Model
	}
	s.mu.Unlock()
	s.emit(agent.Event{Type: agent.EventModeChange, Key: what, Requested: asked, Mode: now})
	if modeEv != nil {
		s.emit(*modeEv)
	}
	if s.rec != nil {
		s.rec.setAgentModel(ag, recModel)
		if modeEv != nil {
			s.rec.setMode(modeEv.Mode)
		}
	}
	return s.State(), nil
}

// modes is State.Modes: every mode in the cycle's order and whether the
// locks rule it out, as the gate's engine says without switching to it
// (ModeLock: no engine is built per mode).
// Called with mu held.
func (s *Session) modes() []ModeOption {
	eng := s.cfg.Gate.Engine()
	out := make([]ModeOption, 0, 5)
	for _, m := range permission.Modes() {
		o := ModeOption{Mode: m}
		o.Locked, o.Reason = eng.ModeLock(m)
		out = append(out, o)
	}
	return out
}

// MCPServers lists the session's MCP servers and their state (none when it
// has no MCP client).
func (s *Session) MCPServers() []mcp.Status {
	if s.o.MCP == nil {
		return nil
	}
	return s.o.MCP.Statuses()
}
