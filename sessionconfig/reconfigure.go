package sessionconfig

import (
	"context"
	"fmt"
	"time"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/fsguard"
	"github.com/oceancode/oceancode/agent/gate"
	"github.com/oceancode/oceancode/agent/mcp"
	"github.com/oceancode/oceancode/agent/sandbox"
	"github.com/oceancode/oceancode/agent/tools"
	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/requirements"
)

// agentBuild is what one agent brings to a session: its gate (its rules
// within the session's boundary, the locks) and its system prompt.
type agentBuild struct {
	res       *layers.Resolved
	home      string
	boundary  fsguard.Boundary
	root, cwd string
	// tools are the session's tools (the built-in ones and the skill
	// tool), which an agent switch keeps.
	tools func() []tools.Tool
	// instructions are the rendered instruction files (agent/instructions).
	instructions string
}

func (b agentBuild) parts(name string) (*gate.Gate, string, error) {
	gc, err := GateConfig(b.res, name, b.home)
	if err != nil {
		return nil, "", invalid(err)
	}
	gc.Boundary = b.boundary
	g, err := gate.New(gc)
	if err != nil {
		return nil, "", invalid(err)
	}
	system, err := b.system(name)
	if err != nil {
		return nil, "", err
	}
	return g, system, nil
}

// system is the agent's system prompt: its own (agents.NAME.prompt) within
// the built-in one, the locked instructions, the project and directory.
func (b agentBuild) system(name string) (string, error) {
	prompt, _, _, err := AgentPrompt(name).Get(b.res)
	if err != nil {
		return "", invalid(err)
	}
	return agent.SystemPrompt(name, prompt, b.instructions, b.res.Locks.Instructions, b.root, b.cwd, time.Now()), nil
}

// known reports whether name is an agent: a built-in one or one the
// configuration defines (agents.NAME).
func (b agentBuild) known(name string) bool {
	switch name {
	case agent.Build, agent.Plan, agent.Explore:
		return true
	}
	for _, k := range []StringKey{AgentPrompt(name), AgentPermissionMode(name)} {
		if _, _, ok, _ := k.Get(b.res); ok {
			return true
		}
	}
	for _, r := range b.res.Rules {
		if len(r.Path) > 1 && r.Path[0] == "agents" && r.Path[1] == name {
			return true
		}
	}
	return false
}

// reconfigurer is Session.Reconfigure: another model (through the same
// allowed_models / allowed_providers checks as Build, and the host's
// provider) or another agent (its gate, prompt, the built-in and MCP
// tools) for a running session.
func reconfigurer(b agentBuild, via string, h Host, m *mcp.Manager) func(ctx context.Context, name, model string) (agent.Config, error) {
	return func(ctx context.Context, name, model string) (agent.Config, error) {
		if model != "" {
			prov, modelName, err := providerFor(b.res, model, via, h)
			if err != nil {
				return agent.Config{}, err
			}
			c := agent.Config{Model: modelName, Provider: prov}
			return c, withModel(b.res, model, &c)
		}
		if !b.known(name) {
			return agent.Config{}, usage(fmt.Errorf("agent %q: no such agent: use build, plan, or one defined under \"agents\" in the config", name))
		}
		g, system, err := b.parts(name)
		if err != nil {
			return agent.Config{}, err
		}
		c := agent.Config{Agent: name, Gate: g, System: system, Tools: b.tools()}
		if m != nil {
			c.Extra = m.Extra
		}
		return c, nil
	}
}

// SandboxStatus is the sandbox mode in effect as one word (read-only,
// workspace-write, danger-full-access), "off" without a sandbox.
func SandboxStatus(p sandbox.Policy) string {
	if m := p.EffectiveMode(); m != "" {
		return string(m)
	}
	return "off"
}

// PolicyStatus is the requirements' status as one line for a status bar:
// "signed, serial 7", "none" (no trusted key), "refused: …".
func PolicyStatus(res *layers.Resolved) string {
	r := res.Requirements
	if r == nil || r.Status == requirements.NotEnforced {
		return "none"
	}
	serial := int64(0)
	if r.Policy != nil {
		serial = r.Policy.Serial
	}
	switch r.Status {
	case requirements.Verified:
		return fmt.Sprintf("signed, serial %d", serial)
	case requirements.ExpiredWarn:
		return fmt.Sprintf("expired (applied: on_expiry warn), serial %d", serial)
	case requirements.LastKnownGood:
		return fmt.Sprintf("last known good, serial %d", serial)
	}
	return "refused: " + r.Reason
}
