package permission

import (
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Scope is how far an approval reaches.
type Scope int

// The approval scopes.
const (
	// Once approves only the pending call, which the runtime then runs;
	// nothing is remembered, so the same call asks again next time.
	Once Scope = iota + 1
	// Always approves the call for the rest of the session (see Approve
	// for what exactly is remembered).
	Always
)

// Approval is one remembered "always" answer, as the session store keeps it.
type Approval struct {
	Key     string `json:"key"`
	Pattern string `json:"pattern"`
	// Server is true for an approval of a whole MCP server (Pattern is the
	// server's name).
	Server bool `json:"server,omitempty"`
	// Identity is the MCP server's definition digest the approval is bound
	// to ("" for other keys, and for a server approved by name alone).
	Identity string `json:"identity,omitempty"`
}

type approvalKey struct{ key, pattern, identity string }

type serverKey struct{ name, identity string }

// Approvals is a session's memory of "always" answers. The zero value is
// ready to use; it is safe for concurrent use. Approvals only turn an ask
// into allow: never a deny, never the dangerous floor, and never an ask
// that a requirements rule imposes (the administrator asked for a prompt
// every time).
type Approvals struct {
	mu      sync.RWMutex
	exact   map[approvalKey]struct{}
	servers map[serverKey]struct{}
}

// Approve records the user's answer to an ask for c. Once remembers nothing.
// Always remembers:
//   - bash: each segment's exact argv (not a prefix: approving "npm test"
//     does not approve "npm publish"; a prefix is a rule, "Bash(npm:*)");
//   - mcp: the tool "<server>/<tool>", and, for a server whose origin asks
//     (project .mcp.json, plugin, runtime add, unknown), the whole server;
//   - other tools: the exact pattern under the tool's key;
//   - every outside path the call names, under external_directory, with
//     everything below it.
func (a *Approvals) Approve(c Call, s Scope) {
	if s != Always {
		return
	}
	list := a.Would(c)
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.exact == nil {
		a.exact = map[approvalKey]struct{}{}
		a.servers = map[serverKey]struct{}{}
	}
	for _, ap := range list {
		if ap.Server {
			a.servers[serverKey{ap.Pattern, ap.Identity}] = struct{}{}
			continue
		}
		a.exact[approvalKey{ap.Key, ap.Pattern, ap.Identity}] = struct{}{}
	}
}

// Would lists what Approve(c, Always) adds, without adding it (the ask
// shows it before the user answers): nil for what cannot be remembered (a
// bash command the floor or the shell guard denies). The order is
// Approve's: the call's own approvals, then its outside paths.
func (a *Approvals) Would(c Call) []Approval {
	key := Key(c.Tool)
	var out []Approval
	switch {
	case key == "bash":
		if c.Shell != nil && (c.Shell.Verdict == VerdictFloor || c.Shell.Verdict == VerdictDeny) {
			return nil
		}
		if c.Shell != nil && len(c.Shell.Segments) > 0 {
			for _, seg := range c.Shell.Segments {
				out = append(out, Approval{Key: key, Pattern: seg})
			}
		} else {
			out = append(out, Approval{Key: key, Pattern: c.Pattern})
		}
	case key == "mcp":
		out = append(out, Approval{Key: key, Pattern: c.Pattern, Identity: c.MCPIdentity})
		if !c.MCPOrigin.trusted() {
			out = append(out, Approval{Key: key, Pattern: mcpServer(c.Pattern), Server: true, Identity: c.MCPIdentity})
		}
	default:
		out = append(out, Approval{Key: key, Pattern: strings.TrimPrefix(c.Pattern, "./")})
	}
	outside := c.Outside
	if c.Shell != nil && len(c.Shell.OutsidePaths) > 0 {
		outside = c.Shell.OutsidePaths
	}
	for _, p := range outside {
		out = append(out, Approval{Key: "external_directory", Pattern: strings.TrimSuffix(p, "/")})
	}
	return out
}

// Rule is the approval in the rule syntax of docs/permissions.md, the way
// an ask shows what "always" adds: `bash "git commit -m wip"` (a bash
// argv, quoted), `edit src/main.go`, `mcp github/create_issue`, `mcp
// github/*` (a whole server), `external_directory /tmp/x/**` (the path and
// everything below it). A pattern with spaces, quotes or nothing in it is
// quoted.
func (ap Approval) Rule() string {
	pat := ap.Pattern
	switch {
	case ap.Server:
		pat += "/*"
	case ap.Key == "external_directory":
		pat = strings.TrimSuffix(pat, "/") + "/**"
	}
	if ap.Key == "bash" || pat == "" || strings.ContainsAny(pat, " \t\n\"'\\") {
		pat = strconv.Quote(pat)
	}
	return ap.Key + " " + pat
}

func mcpServer(pattern string) string {
	if i := strings.IndexByte(pattern, '/'); i >= 0 {
		return pattern[:i]
	}
	return pattern
}

// covers reports whether an ask for (key, pat) is approved. fromOrigin says
// the ask came from the MCP origin fallback, which a server approval covers;
// identity is the MCP server's, which an mcp approval must match.
func (a *Approvals) covers(key, pat string, fromOrigin bool, identity string) bool {
	a.mu.RLock()
	defer a.mu.RUnlock()
	if len(a.exact) == 0 {
		return false
	}
	if key != "mcp" {
		identity = ""
	}
	if _, ok := a.exact[approvalKey{key, pat, identity}]; ok {
		return true
	}
	switch key {
	case "mcp":
		if fromOrigin {
			_, ok := a.servers[serverKey{mcpServer(pat), identity}]
			return ok
		}
	case "external_directory":
		p := strings.TrimSuffix(pat, "/")
		for {
			i := strings.LastIndexByte(p, '/')
			if i <= 0 {
				return false
			}
			p = p[:i]
			if _, ok := a.exact[approvalKey{key: key, pattern: p}]; ok {
				return true
			}
		}
	}
	return false
}

// List returns the remembered approvals, sorted, for the session store.
func (a *Approvals) List() []Approval {
	a.mu.RLock()
	defer a.mu.RUnlock()
	out := make([]Approval, 0, len(a.exact)+len(a.servers))
	for k := range a.exact {
		out = append(out, Approval{Key: k.key, Pattern: k.pattern, Identity: k.identity})
	}
	for s := range a.servers {
		out = append(out, Approval{Key: "mcp", Pattern: s.name, Server: true, Identity: s.identity})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Key != out[j].Key {
			return out[i].Key < out[j].Key
		}
		if out[i].Pattern != out[j].Pattern {
			return out[i].Pattern < out[j].Pattern
		}
		if out[i].Server != out[j].Server {
			return !out[i].Server
		}
		return out[i].Identity < out[j].Identity
	})
	return out
}

// Restore adds approvals read back from the session store (a resumed
// session).
func (a *Approvals) Restore(list []Approval) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.exact == nil {
		a.exact = map[approvalKey]struct{}{}
		a.servers = map[serverKey]struct{}{}
	}
	for _, ap := range list {
		if ap.Server {
			a.servers[serverKey{ap.Pattern, ap.Identity}] = struct{}{}
			continue
		}
		k := approvalKey{key: Key(ap.Key), pattern: ap.Pattern}
		if k.key == "mcp" {
			k.identity = ap.Identity
		}
		a.exact[k] = struct{}{}
	}
}
