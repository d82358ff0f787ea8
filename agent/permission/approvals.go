package permission

import (
	"sort"
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
	key := Key(c.Tool)
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.exact == nil {
		a.exact = map[approvalKey]struct{}{}
		a.servers = map[serverKey]struct{}{}
	}
	switch {
	case key == "bash":
		if c.Shell != nil && (c.Shell.Verdict == VerdictFloor || c.Shell.Verdict == VerdictDeny) {
			return
		}
		if c.Shell != nil && len(c.Shell.Segments) > 0 {
			for _, seg := range c.Shell.Segments {
				a.exact[approvalKey{key: key, pattern: seg}] = struct{}{}
			}
		} else {
			a.exact[approvalKey{key: key, pattern: c.Pattern}] = struct{}{}
		}
	case key == "mcp":
		a.exact[approvalKey{key, c.Pattern, c.MCPIdentity}] = struct{}{}
		if !c.MCPOrigin.trusted() {
			a.servers[serverKey{mcpServer(c.Pattern), c.MCPIdentity}] = struct{}{}
		}
	default:
		a.exact[approvalKey{key: key, pattern: strings.TrimPrefix(c.Pattern, "./")}] = struct{}{}
	}
	outside := c.Outside
	if c.Shell != nil && len(c.Shell.OutsidePaths) > 0 {
		outside = c.Shell.OutsidePaths
	}
	for _, p := range outside {
		a.exact[approvalKey{key: "external_directory", pattern: strings.TrimSuffix(p, "/")}] = struct{}{}
	}
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
