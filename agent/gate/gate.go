// Package gate is the one place every tool call passes before it runs: it
// puts the shell guard (for bash), the filesystem guards (for file tools)
// and the permission engine together and returns one decision that names the
// rule, and the config layer, file and line, that decided.
//
// It holds no state of its own beyond what it is built from, takes its
// configuration as plain values (never a config file) and never executes
// anything, so `oceancode permission check` and the agent's tool loop decide
// identically.
package gate

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/oceancode/oceancode/agent/fsguard"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/shellguard"
	"github.com/oceancode/oceancode/internal/secret"
	"github.com/oceancode/oceancode/provenance"
)

// Config is what a Gate is built from.
type Config struct {
	Permission permission.Config
	Shell      shellguard.Config
	// Boundary is the project root and the @ref aliases.
	Boundary fsguard.Boundary
}

// Gate decides tool calls. It is safe for concurrent use.
type Gate struct {
	// engine is swapped whole by SetMode, so a decision under way keeps
	// the engine it started with and the next one sees the new mode.
	engine   atomic.Pointer[permission.Engine]
	shell    *shellguard.Classifier
	boundary fsguard.Boundary
}

// New builds a Gate; a bad rule or pattern is an error naming it.
func New(c Config) (*Gate, error) {
	e, err := permission.New(c.Permission)
	if err != nil {
		return nil, err
	}
	// oceancode's state and config directories are secrets paths for the
	// shell as for the read and grep tools (agent/fsguard).
	c.Shell.SecretDirs = append(fsguard.SecretDirs(), c.Shell.SecretDirs...)
	s, err := shellguard.New(c.Shell)
	if err != nil {
		return nil, err
	}
	g := &Gate{shell: s, boundary: c.Boundary}
	g.engine.Store(e)
	return g, nil
}

// Engine returns the permission engine (its mode, offered tools, …).
func (g *Gate) Engine() *permission.Engine { return g.engine.Load() }

// SetMode switches the permission mode live, through the engine's WithMode:
// a mode the locks rule out becomes default, and the ModeChange says why.
// Safe while other goroutines decide calls; the next Check uses the mode.
func (g *Gate) SetMode(m permission.Mode) permission.ModeChange {
	for {
		old := g.engine.Load()
		n, ch := old.WithMode(m)
		if g.engine.CompareAndSwap(old, n) {
			return ch
		}
	}
}

// Kind is what a call's Input names, which decides the guard that reads it
// before the rules do. Each tool declares its own (tools.Tool's Kind).
type Kind uint8

const (
	// KindUnset: the caller names the tool without asking it (permission
	// check, doctor): the kind its permission key implies (keyKind).
	KindUnset   Kind = iota
	KindNone         // nothing a guard reads (question, todo, task, an MCP tool): the rules alone decide
	KindPath         // a file path: the filesystem guards resolve it and judge where it lands
	KindCommand      // a shell command: the shell guard classifies it, and the bash rules decide
	KindURL          // a URL: the rules match it as written
)

// Call is one tool call as the model makes it.
type Call struct {
	Tool string
	// Kind is what Input names, as the tool declares it.
	Kind Kind
	// Input is the command for bash, the path for file tools, and
	// "<server>/<tool>" for mcp.
	Input string
	// Cwd is the working directory ("" = the project root).
	Cwd string
	// MCPOrigin is where an MCP server was declared; MCPIdentity is its
	// definition digest (an "always" is bound to it).
	MCPOrigin   permission.MCPOrigin
	MCPIdentity string
	// Approvals is the session's memory of "always" answers.
	Approvals *permission.Approvals
}

// Result is the decision and what the guards found on the way.
type Result struct {
	permission.Decision
	// Guard names the guard that refused before the rules were consulted
	// ("fsguard"), or "".
	Guard string
	// Shell is the shell guard's classification, for bash.
	Shell *shellguard.Result
	// Path is the resolved path, for file tools.
	Path *fsguard.Resolved
	// Call is the call the engine decided (resolved path, shell segments,
	// outside paths): an "always" answer is recorded against it.
	Call permission.Call
}

// Decider names what decided, the way every output shows it: "dangerous
// floor", the guard that refused ("fsguard"), or the rule ("Bash(*) ask").
func (r Result) Decider() string {
	switch {
	case r.Floor:
		return "dangerous floor"
	case r.Guard != "":
		return r.Guard
	case r.Rule != nil:
		return r.Rule.String()
	}
	return ""
}

// keyKind is the Kind a tool's permission key implies, for a call whose
// caller did not ask the tool: bash is a command; read, edit (write,
// apply_patch, …), grep, glob and list are paths; webfetch is a URL. The
// tools' own declarations agree (TestKindsAgreeWithKeys).
func keyKind(tool string) Kind {
	switch permission.Key(tool) {
	case "bash":
		return KindCommand
	case "read", "edit", "grep", "glob", "list":
		return KindPath
	case "webfetch":
		return KindURL
	}
	return KindNone
}

// readTools read file contents into the model.
var readTools = map[string]bool{"read": true}

var fsguardOrigin = provenance.Origin{Layer: provenance.Default, Source: "builtin"}

// Check decides one call.
func (g *Gate) Check(c Call) Result {
	tool := strings.ToLower(c.Tool)
	call := permission.Call{Tool: tool, Pattern: c.Input, MCPOrigin: c.MCPOrigin, MCPIdentity: c.MCPIdentity, Approvals: c.Approvals}
	kind := c.Kind
	if kind == KindUnset {
		kind = keyKind(tool)
	}
	var res Result
	switch {
	case kind == KindCommand:
		call.Tool = "bash"
		sc := &shellCall{sr: g.shell.Classify(c.Input, c.Cwd)}
		res.Shell = &sc.sr
		call.Shell = sc.verdict()
		if d, ok := secretFileRefusal(&sc.sr, c.Input, g.cwd(c.Cwd)); ok {
			res.Decision, res.Guard, res.Call = d, "fsguard", call
			return res
		}
	case kind == KindPath:
		p, err := g.boundary.Resolve(c.Input, c.Cwd)
		if err != nil {
			res.Decision = permission.Decision{Action: permission.Deny, Key: tool, Pattern: c.Input, Origin: fsguardOrigin,
				Reason: fmt.Sprintf("the path cannot be resolved safely: %v", err)}
			res.Guard = "fsguard"
			return res
		}
		res.Path = &p
		if readTools[tool] {
			if err := fsguard.CheckRead(p.Abs); err != nil {
				res.Decision = permission.Decision{Action: permission.Deny, Key: tool, Pattern: c.Input, Origin: fsguardOrigin, Reason: err.Error()}
				res.Guard = "fsguard"
				return res
			}
		}
		if p.Outside {
			call.Pattern = p.Abs
			call.Outside = []string{p.Abs}
		} else if p.Rel != "" {
			call.Pattern = p.Rel
		}
	}
	res.Decision = g.engine.Load().Evaluate(call)
	res.Call = call
	return res
}

// secretFileRefusal refuses a command that names a secrets file the way
// the read tool refuses to read one: by the filesystem guard, before any
// rule or mode is consulted, so nothing reopens it.
func secretFileRefusal(sr *shellguard.Result, input, dir string) (permission.Decision, bool) {
	if sr.Verdict != shellguard.Floor {
		if seg, file := secretGlob(sr, dir); file != "" {
			return permission.Decision{Action: permission.Deny, Key: "bash", Pattern: input, Origin: fsguardOrigin,
				Reason: "fsguard: \"" + seg + "\" expands to the secrets file " + file + ": " + secret.FileRefusal}, true
		}
		return permission.Decision{}, false
	}
	for i := range sr.Segments {
		if s := &sr.Segments[i]; s.Shape == shellguard.ShapeSecretFile {
			return permission.Decision{Action: permission.Deny, Key: "bash", Pattern: input, Origin: fsguardOrigin,
				Reason: "fsguard: " + strings.TrimPrefix(s.Reason, "floor: ")}, true
		}
	}
	return permission.Decision{}, false
}

// cwd is a call's working directory: as given if absolute, else under the
// project root.
func (g *Gate) cwd(dir string) string {
	switch {
	case filepath.IsAbs(dir):
		return dir
	case g.boundary.ProjectRoot == "":
		return ""
	}
	return filepath.Join(g.boundary.ProjectRoot, dir)
}

// shellCall is what a bash call's Result points at, in one allocation: the
// shell guard's classification, the engine's view of it and the backing
// array of that view's per-segment lists for a typical command. This runs
// on every bash call.
type shellCall struct {
	sr    shellguard.Result
	sv    permission.ShellVerdict
	lists [2 * shellCallSegs]string
}

// shellCallSegs is how many segments shellCall.lists holds without another
// allocation.
const shellCallSegs = 4

// verdict turns the shell guard's result into the engine's plain input,
// keeping each segment's shell.allow/shell.deny rule with its provenance.
func (sc *shellCall) verdict() *permission.ShellVerdict {
	r := &sc.sr
	n := len(r.Segments)
	// One backing array for both lists.
	var lists []string
	if n <= shellCallSegs {
		lists = sc.lists[: 2*n : 2*n]
	} else {
		lists = make([]string, 2*n)
	}
	sv := &sc.sv
	*sv = permission.ShellVerdict{Verdict: r.Verdict.String(), Reason: r.Reason, OutsidePaths: r.OutsidePaths,
		Segments: lists[:n:n], Verdicts: lists[n:]}
	var rules []*permission.Rule
	for i, s := range r.Segments {
		sv.Segments[i] = segmentText(s.Argv, s.Raw)
		sv.Verdicts[i] = s.Verdict.String()
		if s.Rule != nil {
			if pr, ok := s.Rule.Origin.(*permission.Rule); ok {
				if rules == nil {
					rules = make([]*permission.Rule, n)
				}
				rules[i] = pr
			}
		}
	}
	sv.Rules = rules
	return sv
}

// segmentText returns argv joined with single spaces, the segment's text.
// When raw (the segment's source) holds exactly that text, as it does for a
// plain command ("go test ./... 2>&1" holds "go test ./..."), the text is
// that part of raw and costs no allocation; otherwise it is joined.
func segmentText(argv []string, raw string) string {
	switch len(argv) {
	case 0:
		return ""
	case 1:
		return argv[0]
	}
	size := joinedLen(argv)
	if first := argv[0]; first != "" {
		for off := 0; off+size <= len(raw); {
			i := strings.Index(raw[off:], first)
			if i < 0 || off+i+size > len(raw) {
				break
			}
			if joinedAt(raw[off+i:off+i+size], argv) {
				return raw[off+i : off+i+size]
			}
			off += i + 1
		}
	}
	return strings.Join(argv, " ")
}

// joinedLen is the length of argv joined with single spaces.
func joinedLen(argv []string) int {
	if len(argv) == 0 {
		return 0
	}
	n := len(argv) - 1
	for _, a := range argv {
		n += len(a)
	}
	return n
}

// joinedAt reports whether s is exactly argv joined with single spaces.
func joinedAt(s string, argv []string) bool {
	for j, a := range argv {
		if j > 0 {
			if s == "" || s[0] != ' ' {
				return false
			}
			s = s[1:]
		}
		if len(s) < len(a) || s[:len(a)] != a {
			return false
		}
		s = s[len(a):]
	}
	return s == ""
}

// ShellRules turns shell.allow / shell.deny entries ("Bash(git push:*)")
// into shell guard rules that carry their provenance as a permission rule.
// An entry for another tool than Bash is an error: these lists are the
// shell guard's.
func ShellRules(entries []string, origins []provenance.Origin, a permission.Action, source string) ([]shellguard.Rule, error) {
	out := make([]shellguard.Rule, 0, len(entries))
	for i, e := range entries {
		var o provenance.Origin
		if i < len(origins) {
			o = origins[i]
		}
		r, err := permission.ParseRule(e, a, o)
		if err != nil {
			return nil, fmt.Errorf("read shell rule %q (%s): %w", e, o.Location(), err)
		}
		if r.Key != "bash" {
			return nil, fmt.Errorf("read shell rule %q (%s): shell.allow and shell.deny hold Bash(…) rules; put %s rules under \"permission\"", e, o.Location(), r.Key)
		}
		r.Source = source
		rule := r
		out = append(out, shellguard.Rule{Pattern: r.Pattern, Origin: &rule})
	}
	return out, nil
}
