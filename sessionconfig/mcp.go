package sessionconfig

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/childenv"
	"github.com/oceancode/oceancode/agent/gate"
	"github.com/oceancode/oceancode/agent/mcp"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/internal/secretenv"
	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/requirements"
)

// ProjectMCPFile is the project's MCP server file (Claude Code's format:
// {"mcpServers": {NAME: {command, args, env} | {type: "http", url, headers}}}).
const ProjectMCPFile = ".mcp.json"

// MCPServersOf lists the session's MCP servers with their origins:
//   - config (runs without asking): mcp.servers of every config layer —
//     the project's only in a trusted workspace (docs/trust.md) — and
//     Claude Code's ~/.claude.json (the user tier's "mcpServers" and the
//     project-local tier's projects[ROOT].mcpServers);
//   - the project's .mcp.json (only in a trusted workspace; asks; starts
//     only once the server is trusted).
//
// A name declared in several places takes the first of: oceancode config,
// ~/.claude.json project-local, ~/.claude.json user, .mcp.json — the
// user's own declaration wins over the repository's.
func MCPServersOf(res *layers.Resolved, root, home string) ([]mcp.Server, error) {
	byName := map[string]mcp.Server{}
	add := func(m map[string]mcp.Server, o permission.MCPOrigin, source string) {
		for n, s := range m {
			if _, ok := byName[n]; ok {
				continue
			}
			s.Name, s.Origin, s.Source = n, o, source
			byName[n] = s
		}
	}
	cfg, _, err := MCPServers.Decode(res)
	if err != nil {
		return nil, err
	}
	add(cfg, permission.MCPConfig, "config (mcp.servers)")
	if home != "" {
		p := filepath.Join(home, ".claude.json")
		var cj struct {
			MCPServers map[string]mcp.Server `json:"mcpServers"`
			Projects   map[string]struct {
				MCPServers map[string]mcp.Server `json:"mcpServers"`
			} `json:"projects"`
		}
		if err := readJSON(p, &cj); err != nil {
			return nil, err
		}
		add(cj.Projects[root].MCPServers, permission.MCPConfig, p+" (project-local)")
		add(cj.MCPServers, permission.MCPConfig, p)
	}
	// The project's .mcp.json runs code: only in a trusted workspace (the
	// loader named its servers as ignored otherwise).
	if res != nil && res.Workspace.TrustedRoot(root) {
		servers, p, err := projectMCPServers(root)
		if err != nil {
			return nil, err
		}
		add(servers, permission.MCPProjectFile, p)
	}
	out := make([]mcp.Server, 0, len(byName))
	for _, s := range byName {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// projectMCPServers reads the project's .mcp.json with the parser the
// trust split listed its servers with (layers.ReadProjectMCP), so what
// starts is what was trusted: the exact member "mcpServers", and of each
// definition only the fields spelled exactly as mcp.Server's (a decoder
// that matched "Command" too would run what a reviewer read past).
func projectMCPServers(root string) (map[string]mcp.Server, string, error) {
	pm, err := layers.ReadProjectMCP(root)
	if err != nil || pm == nil {
		return nil, "", err
	}
	out := make(map[string]mcp.Server, len(pm.Servers))
	for name, def := range pm.Servers {
		s, err := mcpServerOf(def.(map[string]any))
		if err != nil {
			return nil, "", fmt.Errorf("read %s: mcpServers[%q]: %w", pm.Path, name, err)
		}
		out[name] = s
	}
	return out, pm.Path, nil
}

// mcpServerFields are mcp.Server's JSON field names.
var mcpServerFields = []string{"type", "command", "args", "env", "url", "headers", "enabled"}

// mcpServerOf decodes one .mcp.json definition from its exactly spelled
// fields; any other member is ignored.
func mcpServerOf(def map[string]any) (mcp.Server, error) {
	exact := map[string]any{}
	for _, f := range mcpServerFields {
		if v, ok := def[f]; ok {
			exact[f] = v
		}
	}
	var s mcp.Server
	b, err := json.Marshal(exact)
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, err
	}
	return s, nil
}

// readJSON decodes path into v; a missing file leaves v as it is.
func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return nil
}

// MCPTrust is the user's MCP trust store (in the state directory); nil
// when the environment names no home.
func MCPTrust(getenv func(string) string) *mcp.TrustStore {
	d := layers.StateDir(getenv)
	if d == "" {
		return nil
	}
	return &mcp.TrustStore{Path: filepath.Join(d, mcp.TrustFile)}
}

// MCPPolicy is what decides a start: the requirements' allow-list (when a
// requirements policy with an mcp section is in force) and the trust store.
func MCPPolicy(res *layers.Resolved, root string, getenv func(string) string) mcp.Policy {
	p := mcp.Policy{Trust: MCPTrust(getenv), Project: root}
	if pol := res.Locks.Policy; pol != nil && pol.MCP != nil {
		p.Allowed = func(c mcp.Candidate) (bool, string) { return pol.MCPAllowed(requirements.MCPCandidate(c)) }
	}
	return p
}

// MCPSettings builds the MCP manager's config for a session in root: the
// servers, the policy, the timeouts; the caller sets Env and Sandbox.
func MCPSettings(res *layers.Resolved, root string, getenv func(string) string) (mcp.Config, error) {
	servers, err := MCPServersOf(res, root, getenv("HOME"))
	if err != nil {
		return mcp.Config{}, invalid(err)
	}
	c := mcp.Config{Servers: servers, Policy: MCPPolicy(res, root, getenv), Getenv: getenv}
	for _, t := range []struct {
		k   IntKey
		dst *time.Duration
	}{{MCPStartTimeout, &c.StartTimeout}, {MCPCallTimeout, &c.CallTimeout}} {
		v, _, ok, err := t.k.Get(res)
		if err != nil {
			return mcp.Config{}, invalid(err)
		}
		if ok {
			*t.dst = time.Duration(v) * time.Second
		}
	}
	return c, nil
}

// MCPStandalone is the MCP manager's config as a session in h.WorkDir would
// build it — the child environment, the sandbox, the servers, the policy —
// for the CLI's `mcp check`, which starts one server outside a session.
// (A sandbox with an allowlist network gets no egress proxy here.)
func MCPStandalone(res *layers.Resolved, h Host) (mcp.Config, error) {
	if h.Getenv == nil {
		h.Getenv = func(string) string { return "" }
	}
	root := MCPRoot(res, h.WorkDir)
	c, err := MCPSettings(res, root, h.Getenv)
	if err != nil {
		return c, err
	}
	pol, _, err := Sandbox.Decode(res)
	if err != nil {
		return c, invalid(err)
	}
	pol.Workspace, pol.Dir = root, root
	envCfg, _, err := ChildEnv.Decode(res)
	if err != nil {
		return c, invalid(err)
	}
	c.Env, c.Sandbox = childenv.Compose(secretenv.Environ(), envCfg), pol
	// The build agent's rules: a server all of whose tools they deny is
	// not started.
	gc, err := GateConfig(res, agent.Build, h.Getenv("HOME"))
	if err != nil {
		return c, invalid(err)
	}
	g, err := gate.New(gc)
	if err != nil {
		return c, invalid(err)
	}
	c.Policy.Denied = mcp.DeniedBy(g.Engine().OfferedMCP)
	return c, nil
}

// MCPRoot is the project root MCP trust is keyed on: the resolved project
// root, else the working directory.
func MCPRoot(res *layers.Resolved, cwd string) string {
	if res != nil && res.ProjectRoot != "" {
		return res.ProjectRoot
	}
	return cwd
}

// withClientServers adds the servers a client passed for the session
// (origin client) to the declared ones, in name order; a name already
// declared, or one an MCP tool name cannot carry, is a usage error.
func withClientServers(declared []mcp.Server, client map[string]mcp.Server) ([]mcp.Server, error) {
	if len(client) == 0 {
		return declared, nil
	}
	have := map[string]string{}
	for _, s := range declared {
		have[s.Name] = s.Source
	}
	names := make([]string, 0, len(client))
	for n := range client {
		names = append(names, n)
	}
	sort.Strings(names)
	out := append([]mcp.Server(nil), declared...)
	for _, n := range names {
		s := client[n]
		s.Name, s.Origin, s.Source = n, permission.MCPClient, "client (POST /api/session)"
		if err := s.Check(); err != nil {
			return nil, usage(fmt.Errorf("mcp_servers: %w", err))
		}
		if have[n] != "" {
			return nil, usage(fmt.Errorf("mcp_servers.%s: a server of that name is already declared in %s: pick another name", n, have[n]))
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
