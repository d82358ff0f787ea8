package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/oceancode/oceancode/agent/gate"
	"github.com/oceancode/oceancode/agent/mcp"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/internal/atomicfile"
	"github.com/oceancode/oceancode/internal/exitcode"
	"github.com/oceancode/oceancode/internal/termtext"
	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/layers/report"
	"github.com/oceancode/oceancode/sessionconfig"
)

func newMCPCmd(app *App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "List, add, trust, remove and check MCP servers",
		Long: `MCP servers come from config (mcp.servers in the project's
.oceancode/oceancode.json or your oceancode.json; ~/.claude.json), which run
without asking and are not trust-gated, and from the project's .mcp.json,
whose servers start only once trusted ('oceancode mcp trust NAME') and whose
calls ask. Trust is kept in your state directory, bound to the server's
definition and its executable's SHA-256: any change asks again. The
requirements' MCP allow-list is checked before every start. See docs/mcp.md.`,
	}
	cmd.AddCommand(newMCPListCmd(app), newMCPAddCmd(app), newMCPTrustCmd(app), newMCPRemoveCmd(app), newMCPCheckCmd(app))
	return cmd
}

// mcpEnv is what every mcp subcommand needs: the resolved layers, the
// servers and the start policy, for the project in the working directory.
type mcpEnv struct {
	res     *layers.Resolved
	root    string
	servers []mcp.Server
	cfg     mcp.Config
}

func loadMCP(app *App) (*mcpEnv, error) {
	res, err := loadConfig(app, nil)
	if err != nil {
		return nil, err
	}
	if err := sessionGate(res); err != nil {
		return nil, err
	}
	cwd, err := app.WorkDir()
	if err != nil {
		return nil, err
	}
	cfg, err := sessionconfig.MCPStandalone(res, sessionconfig.Host{Getenv: app.Getenv, WorkDir: cwd})
	if err != nil {
		return nil, exitcode.With(exitcode.Invalid, err)
	}
	return &mcpEnv{res: res, root: sessionconfig.MCPRoot(res, cwd), servers: cfg.Servers, cfg: cfg}, nil
}

func (e *mcpEnv) find(name string) (mcp.Server, bool) {
	for _, s := range e.servers {
		if s.Name == name {
			return s, true
		}
	}
	return mcp.Server{}, false
}

// decide is the start decision for s without starting it.
func (e *mcpEnv) decide(s mcp.Server) (state, reason string, fp mcp.Fingerprint) {
	if s.Disabled() {
		return mcp.StateDisabled, "enabled is false", fp
	}
	fp, err := e.cfg.Policy.Admit(s, e.cfg.Sandbox.Dir, envPathOf(e.cfg.Env))
	var ae *mcp.AdmitError
	switch {
	case err == nil:
		return "ready", "", fp
	case errors.As(err, &ae) && ae.Kind == mcp.ErrRefused:
		return mcp.StateRefused, ae.Reason, fp
	case errors.As(err, &ae) && ae.Kind == mcp.ErrDenied:
		return mcp.StateDenied, ae.Reason, fp
	case errors.As(err, &ae):
		return mcp.StateUntrusted, ae.Reason, fp
	}
	return mcp.StateFailed, err.Error(), fp
}

func envPathOf(env []string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], "PATH="); ok {
			return v
		}
	}
	return ""
}

// mcpOrigins maps each declared server to its origin, for permission check.
type mcpOrigins map[string]permission.MCPOrigin

func (o mcpOrigins) of(tool, input string) permission.MCPOrigin {
	if permission.Key(tool) != "mcp" {
		return permission.MCPOriginUnknown
	}
	srv, _, _ := strings.Cut(input, "/")
	return o[srv]
}

func loadMCPOrigins(app *App, res *layers.Resolved) (mcpOrigins, error) {
	cwd, err := app.WorkDir()
	if err != nil {
		return nil, err
	}
	servers, err := sessionconfig.MCPServersOf(res, sessionconfig.MCPRoot(res, cwd), app.Getenv("HOME"))
	if err != nil {
		return nil, err
	}
	o := mcpOrigins{}
	for _, s := range servers {
		o[s.Name] = s.Origin
	}
	return o, nil
}

type mcpListJSON struct {
	Name     string `json:"name"`
	Origin   string `json:"origin"`
	Source   string `json:"source"`
	Identity string `json:"identity"`
	State    string `json:"state"`
	Reason   string `json:"reason,omitempty"`
	SHA256   string `json:"sha256,omitempty"`
	// What an interpreter or launcher runs (docs/mcp.md).
	Script       string   `json:"script,omitempty"`
	ScriptSHA256 string   `json:"script_sha256,omitempty"`
	Packages     []string `json:"packages,omitempty"`
}

func newMCPListCmd(app *App) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the MCP servers, their origin and whether they would start (starts none)",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			e, err := loadMCP(app)
			if err != nil {
				return err
			}
			var rows []mcpListJSON
			for _, s := range e.servers {
				state, reason, fp := e.decide(s)
				rows = append(rows, mcpListJSON{Name: s.Name, Origin: s.Origin.String(), Source: s.Source, Identity: s.Identity(), State: state, Reason: reason, SHA256: fp.SHA256,
					Script: fp.Script, ScriptSHA256: fp.ScriptSHA256, Packages: fp.Packages})
			}
			if asJSON {
				if rows == nil {
					rows = []mcpListJSON{}
				}
				return writeJSON(app, rows)
			}
			if len(rows) == 0 {
				fmt.Fprintln(app.Stdout, "no MCP servers are declared")
				return nil
			}
			tw := tabwriter.NewWriter(app.Stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tORIGIN\tSTATE\tCOMMAND/URL")
			for _, r := range rows {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", termtext.Line(r.Name), r.Origin, r.State, termtext.Line(r.Identity))
			}
			tw.Flush()
			for _, r := range rows {
				if r.Reason != "" {
					fmt.Fprintf(app.Stdout, "%s: %s\n", termtext.Line(r.Name), termtext.Line(r.Reason))
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the servers as JSON")
	return cmd
}

// projectFile is the project's .mcp.json, kept whole (keys other than
// mcpServers survive an edit).
type projectFile struct {
	path string
	raw  map[string]json.RawMessage
	srv  map[string]json.RawMessage
}

func readProjectFile(root string) (*projectFile, error) {
	p := &projectFile{path: filepath.Join(root, sessionconfig.ProjectMCPFile), raw: map[string]json.RawMessage{}, srv: map[string]json.RawMessage{}}
	b, err := os.ReadFile(p.path)
	if errors.Is(err, fs.ErrNotExist) {
		return p, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p.path, err)
	}
	if err := json.Unmarshal(b, &p.raw); err != nil {
		return nil, exitcode.With(exitcode.Invalid, fmt.Errorf("read %s: %w", p.path, err))
	}
	if s, ok := p.raw["mcpServers"]; ok {
		if err := json.Unmarshal(s, &p.srv); err != nil {
			return nil, exitcode.With(exitcode.Invalid, fmt.Errorf("read %s mcpServers: %w", p.path, err))
		}
	}
	return p, nil
}

func (p *projectFile) write() error {
	s, err := json.Marshal(p.srv)
	if err != nil {
		return err
	}
	p.raw["mcpServers"] = s
	b, err := json.MarshalIndent(p.raw, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(p.path, append(b, '\n'), 0o644)
}

func newMCPAddCmd(app *App) *cobra.Command {
	var url string
	var env, headers []string
	cmd := &cobra.Command{
		Use:   "add NAME [--url URL | -- COMMAND [ARG…]]",
		Short: "Add a server to the project's .mcp.json and trust exactly that definition",
		Long: `Writes the server to the project's .mcp.json (created if missing) and
records your trust in that definition and its executable, so it starts in
the next session; its calls ask like every .mcp.json server's. A server of
that name must not exist yet ('oceancode mcp remove NAME' first).`,
		Example: `  oceancode mcp add github -- github-mcp-server stdio
  oceancode mcp add docs --url https://mcp.example.com/docs --header 'Authorization=Bearer ${DOCS_TOKEN}'
  oceancode mcp add db --env 'DB_URL=${DB_URL}' -- ./tools/db-mcp`,
		Args: args(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			s := mcp.Server{Name: a[0], URL: url, Origin: permission.MCPProjectFile}
			if len(a) > 1 {
				s.Command, s.Args = a[1], a[2:]
			}
			if url != "" {
				s.Type = "http"
			}
			var err error
			if s.Env, err = pairs("--env", env); err != nil {
				return err
			}
			if s.Headers, err = pairs("--header", headers); err != nil {
				return err
			}
			if err := s.Validate(); err != nil {
				return exitcode.With(exitcode.Usage, err)
			}
			e, err := loadMCP(app)
			if err != nil {
				return err
			}
			if old, ok := e.find(s.Name); ok {
				return exitcode.With(exitcode.Usage, fmt.Errorf("mcp add %s: a server of that name is declared in %s", s.Name, old.Source))
			}
			fp, err := mcp.Identify(s, e.root, envPathOf(e.cfg.Env))
			if errors.Is(err, mcp.ErrUnpinned) {
				return exitcode.With(exitcode.Denied, fmt.Errorf("mcp add %s: %w", s.Name, err))
			}
			if err != nil {
				return err
			}
			pf, err := readProjectFile(e.root)
			if err != nil {
				return err
			}
			b, err := json.Marshal(s)
			if err != nil {
				return err
			}
			pf.srv[s.Name] = b
			if err := keepTrust(app, filepath.Dir(pf.path), pf.write); err != nil {
				return err
			}
			if err := e.cfg.Policy.Trust.Trust(e.root, s.Name, fp); err != nil {
				return err
			}
			fmt.Fprintf(app.Stdout, "added %s to %s and trusted it (%s)\n", s.Name, pf.path, identityLine(s, fp))
			if state, reason, _ := e.decide(s); state == mcp.StateRefused {
				fmt.Fprintf(app.Stderr, "oceancode: %s will not start: %s\n", s.Name, reason)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&url, "url", "", "the server's streamable-HTTP endpoint")
	f.StringArrayVar(&env, "env", nil, "NAME=VALUE for the server's environment (${VAR} names your variable)")
	f.StringArrayVar(&headers, "header", nil, "NAME=VALUE HTTP header (${VAR} names your variable)")
	return cmd
}

func pairs(flag string, in []string) (map[string]string, error) {
	if len(in) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	for _, kv := range in {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, exitcode.With(exitcode.Usage, fmt.Errorf("%s %q: want NAME=VALUE", flag, kv))
		}
		out[k] = v
	}
	return out, nil
}

func identityLine(s mcp.Server, fp mcp.Fingerprint) string {
	if s.Remote() {
		return "url " + s.URL
	}
	line := strings.Join(append([]string{s.Command}, s.Args...), " ")
	out := fmt.Sprintf("command %q, executable %s, sha256 %s", line, fp.Executable, fp.SHA256) + fp.RunsSummary()
	if e := mcp.EnvSummary(s); e != "" {
		out += ", env " + e
	}
	return out
}

func newMCPTrustCmd(app *App) *cobra.Command {
	return &cobra.Command{
		Use:   "trust NAME",
		Short: "Trust a .mcp.json server's current definition and executable",
		Long: `Shows what the server runs and records your trust in exactly that: a
later change of its command, arguments, environment, URL or executable
(content included) keeps it from starting until you trust it again.`,
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			e, err := loadMCP(app)
			if err != nil {
				return err
			}
			s, ok := e.find(a[0])
			if !ok {
				return exitcode.With(exitcode.Usage, fmt.Errorf("mcp trust %s: no such server ('oceancode mcp list' shows them)", a[0]))
			}
			if !mcp.NeedsTrust(s.Origin) {
				fmt.Fprintf(app.Stdout, "%s is declared in %s (%s): config servers are not trust-gated\n", s.Name, s.Source, s.Origin)
				return nil
			}
			fp, err := mcp.Identify(s, e.root, envPathOf(e.cfg.Env))
			if errors.Is(err, mcp.ErrUnpinned) {
				// Nothing pins what it would run: trusting it would trust
				// whatever it runs tomorrow.
				return exitcode.With(exitcode.Denied, fmt.Errorf("mcp trust %s: %w", s.Name, err))
			}
			if err != nil {
				return err
			}
			if rec, ok, err := e.cfg.Policy.Trust.Lookup(e.root, s.Name); err == nil && ok && !rec.Same(fp) {
				fmt.Fprintf(app.Stdout, "changed since trusted on %s: %s\n", rec.TrustedAt.Format(time.RFC3339), fp.Changes(rec.Fingerprint))
			}
			if err := e.cfg.Policy.Trust.Trust(e.root, s.Name, fp); err != nil {
				return err
			}
			fmt.Fprintf(app.Stdout, "trusted %s from %s: %s\n", s.Name, s.Source, identityLine(s, fp))
			if state, reason, _ := e.decide(s); state == mcp.StateRefused {
				fmt.Fprintf(app.Stderr, "oceancode: %s will still not start: %s\n", s.Name, reason)
			}
			return nil
		},
	}
}

func newMCPRemoveCmd(app *App) *cobra.Command {
	return &cobra.Command{
		Use:   "remove NAME",
		Short: "Remove a server from the project's .mcp.json and forget its trust",
		Args:  args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			e, err := loadMCP(app)
			if err != nil {
				return err
			}
			name := a[0]
			pf, err := readProjectFile(e.root)
			if err != nil {
				return err
			}
			if _, ok := pf.srv[name]; !ok {
				if s, ok := e.find(name); ok {
					return exitcode.With(exitcode.Usage, fmt.Errorf("mcp remove %s: it is declared in %s; edit that file", name, s.Source))
				}
				return exitcode.With(exitcode.Usage, fmt.Errorf("mcp remove %s: no such server in %s", name, pf.path))
			}
			delete(pf.srv, name)
			if err := keepTrust(app, filepath.Dir(pf.path), pf.write); err != nil {
				return err
			}
			if err := e.cfg.Policy.Trust.Forget(e.root, name); err != nil {
				return err
			}
			fmt.Fprintf(app.Stdout, "removed %s from %s\n", name, pf.path)
			return nil
		},
	}
}

func newMCPCheckCmd(app *App) *cobra.Command {
	var agentName string
	cmd := &cobra.Command{
		Use:   "check NAME",
		Short: "Start a server under the policy, list its tools with the decision for each, and stop it",
		Long: `Runs the same start check as a session (the requirements' allow-list, trust
for .mcp.json servers), starts the server as a session would (child
environment, sandbox), lists its tools with the permission decision for a
call to each (under --agent's rules and the server's origin; "hidden" when a
deny rule keeps the tool from the model), and stops it. Exit status 5 when
the server may not start.`,
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			e, err := loadMCP(app)
			if err != nil {
				return err
			}
			s, ok := e.find(a[0])
			if !ok {
				return exitcode.With(exitcode.Usage, fmt.Errorf("mcp check %s: no such server ('oceancode mcp list' shows them)", a[0]))
			}
			gc, err := sessionconfig.GateConfig(e.res, agentName, app.Getenv("HOME"))
			if err != nil {
				return exitcode.With(exitcode.Invalid, err)
			}
			g, err := gate.New(gc)
			if err != nil {
				return exitcode.With(exitcode.Invalid, err)
			}
			c := e.cfg
			c.Policy.Denied = mcp.DeniedBy(g.Engine().OfferedMCP)
			s.Enabled = nil // check a disabled server too
			c.Servers = []mcp.Server{s}
			if c.StartTimeout <= 0 {
				c.StartTimeout = mcp.DefaultStartTimeout // the wait below is the start's bound plus a margin
			}
			m := mcp.Start(c)
			defer m.Close()
			ctx, cancel := context.WithTimeout(cmd.Context(), c.StartTimeout+5*time.Second)
			defer cancel()
			m.Wait(ctx)
			st := m.Statuses()[0]
			fmt.Fprintf(app.Stdout, "%s (%s, %s): %s\n", s.Name, s.Origin, s.Source, st.State)
			if st.State != mcp.StateConnected {
				fmt.Fprintf(app.Stdout, "  %s\n", termtext.Line(st.Reason))
				return &exitcode.Err{Code: exitcode.Denied, Err: fmt.Errorf("mcp check %s: %s", s.Name, st.State), Silent: true}
			}
			names := append([]string(nil), st.Tools...)
			sort.Strings(names)
			tw := tabwriter.NewWriter(app.Stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "  TOOL\tNAME\tDECISION\tRULE")
			for _, t := range names {
				pat := s.Name + "/" + t
				r := g.Check(gate.Call{Tool: "mcp", Input: pat, MCPOrigin: s.Origin})
				decision := r.Decision.Action.String()
				if !g.Engine().OfferedMCP(s.Name, t) {
					decision = "hidden"
				}
				fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", termtext.Line(pat), termtext.Line(mcp.ToolName(s.Name, t)), decision, termtext.Line(r.Decider()))
			}
			tw.Flush()
			return nil
		},
	}
	cmd.Flags().StringVar(&agentName, "agent", "build", "the agent whose rules apply")
	return cmd
}

// mcpProblems are doctor's lines for the declared MCP servers that will
// not start (refused, denied, or a command that cannot be found), decided
// without starting any; a server waiting for trust is not a problem.
func mcpProblems(app *App, res *layers.Resolved) []string {
	e, ok := mcpEnvOf(app, res)
	if !ok {
		return nil
	}
	var out []string
	for _, s := range e.servers {
		switch state, reason, _ := e.decide(s); state {
		case mcp.StateRefused, mcp.StateDenied, mcp.StateFailed:
			out = append(out, fmt.Sprintf("MCP server %s (%s) will not start: %s", s.Name, s.Source, reason))
		}
	}
	return out
}

// mcpEnvOf is loadMCP for a configuration already resolved (inspect,
// doctor); false when it cannot be built (a broken config says so elsewhere).
func mcpEnvOf(app *App, res *layers.Resolved) (*mcpEnv, bool) {
	cwd, err := app.WorkDir()
	if err != nil || res.Err() != nil {
		return nil, false
	}
	cfg, err := sessionconfig.MCPStandalone(res, sessionconfig.Host{Getenv: app.Getenv, WorkDir: cwd})
	if err != nil {
		return nil, false
	}
	return &mcpEnv{res: res, root: sessionconfig.MCPRoot(res, cwd), servers: cfg.Servers, cfg: cfg}, true
}

// addMCPRefusals completes inspect's "MCP server … will not start" lines
// with what the start check itself says — for every declared server
// (~/.claude.json and .mcp.json included), the executable's digest checked
// against a pinned SHA-256 — without starting any.
func addMCPRefusals(app *App, res *layers.Resolved, rep *report.Report) {
	if rep.Locks == nil || res.Locks.Policy == nil || res.Locks.Policy.MCP == nil {
		return
	}
	e, ok := mcpEnvOf(app, res)
	if !ok {
		return
	}
	for _, s := range e.servers {
		if state, reason, _ := e.decide(s); state == mcp.StateRefused {
			if rep.Locks.MCPRefused == nil {
				rep.Locks.MCPRefused = map[string]string{}
			}
			rep.Locks.MCPRefused[s.Name] = reason
		}
	}
}
