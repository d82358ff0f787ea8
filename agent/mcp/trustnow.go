package mcp

import (
	"context"
	"errors"
	"fmt"
)

// Errors of Manager.Trust.
var (
	// ErrNoServer: the session has no server of that name.
	ErrNoServer = errors.New("no such MCP server in this session")
	// ErrNotWaiting: the server is not waiting for trust (it is connected,
	// refused, or of an origin that needs none).
	ErrNotWaiting = errors.New("not waiting for trust")
)

// Trust is a trust prompt answered yes (the pager's, for a project's
// .mcp.json server): the same decision as `oceancode mcp trust NAME`. The
// server's definition as it is now (its fingerprint: command, arguments,
// environment names, the executable's digest) is recorded in the trust
// store, and the server starts at once, through Admit like every start (the
// allow-list still applies); its tools are offered from the next turn. Only
// a server in state untrusted can be trusted.
func (m *Manager) Trust(ctx context.Context, name string) (Status, error) {
	m.mu.Lock()
	var s *server
	for _, x := range m.servers {
		if x.def.Name == name {
			s = x
		}
	}
	m.mu.Unlock()
	if s == nil {
		return Status{}, fmt.Errorf("trust mcp server %s: %w", name, ErrNoServer)
	}
	if st := s.status(); st.State != StateUntrusted {
		return st, fmt.Errorf("trust mcp server %s: it is %s, %w", name, st.State, ErrNotWaiting)
	}
	cfg := m.cfg
	fp, err := Identify(s.def, cfg.Sandbox.Dir, envPath(cfg.Env))
	if err != nil {
		return s.status(), fmt.Errorf("trust mcp server %s: %w", name, err)
	}
	if err := cfg.Policy.Trust.Trust(cfg.Policy.Project, name, fp); err != nil {
		return s.status(), err
	}
	err = s.connect(ctx)
	return s.status(), err
}
