package layers

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/oceancode/oceancode/internal/mcplaunch"
	"github.com/oceancode/oceancode/provenance"
	"github.com/oceancode/oceancode/requirements"
)

// applyRequirements applies the verified policy: pins, extra rules, mode
// locks, the minimum sandbox mode and the MCP allow-list.
func (m *merger) applyRequirements(p *requirements.Policy, path string) {
	r := m.r
	r.Locks.Policy = p
	o := provenance.Origin{Layer: provenance.Requirements, Source: path}

	// Extra rules first, so pins on permission keys still win.
	if p.Rules != nil {
		m.cur = map[string]any{}
		for _, pair := range []struct {
			action string
			rules  []string
		}{{"deny", p.Rules.Deny}, {"ask", p.Rules.Ask}} {
			for _, rule := range pair.rules {
				tool, pat := splitToolRule(rule)
				m.leaf(o, []string{"permission", tool, pat}, pair.action)
			}
		}
		m.load(provenance.Requirements)
	}

	// Pins: exact values no lower layer can change.
	pinKeys := make([]string, 0, len(p.Pins))
	for k := range p.Pins {
		pinKeys = append(pinKeys, k)
	}
	sort.Strings(pinKeys)
	po := o
	po.Pinned = true
	for _, k := range pinKeys {
		segs, err := provenance.SplitKey(k)
		if err != nil {
			continue // Parse already refused such a policy
		}
		m.pin(po, segs, p.Pins[k])
	}

	// Permission mode locks, for the top level and every agent.
	r.Locks.DisallowedModes = map[string]string{}
	for _, mode := range []string{"default", "acceptEdits", "plan", "dontAsk", "bypassPermissions"} {
		if ok, why := p.ModeAllowed(mode); !ok {
			r.Locks.DisallowedModes[mode] = why
		}
	}
	for _, key := range r.Entries.Keys() {
		if key != "permission_mode" && !(strings.HasPrefix(key, "agents.") && strings.HasSuffix(key, ".permission_mode")) {
			continue
		}
		e := r.Entries[key]
		mode, _ := e.Value.(string)
		if why, locked := r.Locks.DisallowedModes[mode]; locked {
			fallback := "default"
			if ok, _ := p.ModeAllowed("default"); !ok && len(p.AllowedPermissionModes) > 0 {
				fallback = p.AllowedPermissionModes[0]
			}
			segs, _ := provenance.SplitKey(key)
			m.refuse(segs, o, fallback, why+"; downgraded to "+fallback)
		}
	}

	// Minimum sandbox mode.
	if min := p.MinSandboxMode; min != "" {
		r.Locks.MinSandboxMode = min
		cur, _ := m.value("sandbox.mode").(string)
		enabled, _ := m.value("sandbox.enabled").(bool)
		why := fmt.Sprintf("requirements set min_sandbox_mode %q", min)
		if !enabled {
			m.refuse([]string{"sandbox", "enabled"}, o, true, why+": the sandbox is always on")
		}
		switch {
		case cur == "":
			m.refuse([]string{"sandbox", "mode"}, o, min, why)
		case requirements.SandboxStronger(min, cur):
			m.refuse([]string{"sandbox", "mode"}, o, min, fmt.Sprintf("%s; %q confines less", why, cur))
		}
	}

	if p.AllowManagedHooksOnly {
		m.dropUnmanagedHooks() // hooks.go
	}

	// MCP allow-list: configured servers that may not start.
	if p.MCP != nil {
		r.Locks.MCPRefused = map[string]string{}
		servers, _ := m.get([]string{"mcp", "servers"}).(map[string]any)
		names := make([]string, 0, len(servers))
		for n := range servers {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, name := range names {
			s, _ := servers[name].(map[string]any)
			cmd, _ := s["command"].(string)
			url, _ := s["url"].(string)
			c, decidable := mcpCandidate(p, name, cmd, url, s["args"])
			if ok, why := p.MCPAllowed(c); !ok && decidable {
				r.Locks.MCPRefused[name] = why
				m.diag(Diagnostic{Severity: Warning, Layer: provenance.Requirements, Source: path,
					Message: why + ": the server will not be started"})
			}
		}
	}
}

// pin sets segs to v as a pinned leaf, replacing whatever lower layers set
// there (lists are replaced, not appended).
func (m *merger) pin(o provenance.Origin, segs []string, v any) {
	r := m.r
	key := provenance.KeyPath(segs...)
	// Entries below the pinned key are replaced by the pin's own leaves.
	var shadowed []provenance.Value
	for _, k := range r.Entries.WithPrefix(key) {
		e := r.Entries[k]
		shadowed = append(shadowed, provenance.Value{Value: e.Value, Origin: e.Origin})
		shadowed = append(shadowed, e.Overrides...)
		if k != key {
			delete(r.Entries, k)
		}
		delete(r.Lists, k)
	}
	var kept []Rule
	for _, rule := range r.Rules {
		if !provenance.HasPrefix(provenance.KeyPath(rule.Path...), key) {
			kept = append(kept, rule)
		}
	}
	r.Rules = kept
	delete(r.Entries, key)
	m.delete(segs)
	m.cur = map[string]any{}
	m.walk(o, segs[:len(segs)-1:len(segs)-1], map[string]any{segs[len(segs)-1]: v}, nil)
	m.load(provenance.Requirements)
	// A pin replaces lists rather than appending to them: reset to the pin.
	for _, k := range r.Entries.WithPrefix(key) {
		e := r.Entries[k]
		e.Contributors = nil
		e.Overrides = nil
		if list, ok := e.Value.([]any); ok {
			items := make([]Item, 0, len(list))
			for _, it := range list {
				items = append(items, Item{Value: it, Origin: o})
			}
			r.Lists[k] = items
		}
		r.Locks.Pinned = append(r.Locks.Pinned, k)
	}
	if e := r.Entries[key]; e != nil {
		e.Overrides = shadowed
	} else if len(shadowed) > 0 {
		// The pin is an object: attach what it shadowed to its first leaf.
		if ks := r.Entries.WithPrefix(key); len(ks) > 0 {
			r.Entries[ks[0]].Overrides = shadowed
		}
	}
}

// refuse replaces the effective value of a leaf with v (from requirements)
// and records the value that was asked for and why it was refused.
func (m *merger) refuse(segs []string, o provenance.Origin, v any, why string) {
	key := provenance.KeyPath(segs...)
	e := m.r.Entries[key]
	m.delete(segs)
	m.cur = map[string]any{}
	setNested(m.cur, segs, v)
	m.load(provenance.Requirements)
	if e == nil {
		m.r.Entries[key] = &provenance.Entry{Key: key, Value: v, Origin: o, Merge: "replace",
			Refused: []provenance.Refusal{{Value: nil, Origin: provenance.Origin{Layer: provenance.Default, Source: "builtin"}, Reason: why}}}
		return
	}
	e.Refused = append(e.Refused, provenance.Refusal{Value: e.Value, Origin: e.Origin, Reason: why})
	e.Overrides = append([]provenance.Value{{Value: e.Value, Origin: e.Origin}}, e.Overrides...)
	e.Value, e.Origin = v, o
}

func (m *merger) value(key string) any {
	segs, err := provenance.SplitKey(key)
	if err != nil {
		return nil
	}
	return m.get(segs)
}

// splitToolRule splits "Bash(git push:*)" into ("bash", "git push:*");
// "Read" alone is ("read", "*").
func splitToolRule(s string) (string, string) {
	i := strings.IndexByte(s, '(')
	if i < 0 || !strings.HasSuffix(s, ")") {
		return strings.ToLower(s), "*"
	}
	pat := s[i+1 : len(s)-1]
	if pat == "" {
		pat = "*"
	}
	return strings.ToLower(s[:i]), pat
}

// mcpCandidate is a configured server as the allow-list sees it before
// anything starts: the executable hashed when an entry pins its digest, an
// absolute script likewise (a relative one is the runtime's to hash, in the
// project it runs in: inspect's own start check reports it).
func mcpCandidate(p *requirements.Policy, name, cmd, url string, rawArgs any) (requirements.MCPCandidate, bool) {
	c := requirements.MCPCandidate{Name: name, Command: cmd, URL: url}
	list, _ := rawArgs.([]any)
	for _, a := range list {
		s, _ := a.(string)
		c.Args = append(c.Args, s)
	}
	var pinsExe, pinsScript bool
	for _, e := range p.MCP.AllowedServers {
		if e.Name == name {
			pinsExe, pinsScript = e.SHA256 != "", e.ScriptSHA256 != ""
		}
	}
	if cmd == "" {
		return c, true
	}
	if pinsExe {
		c.SHA256 = fileSHA256(cmd)
	}
	if l, err := mcplaunch.Analyze(cmd, c.Args); err == nil && l.Kind != mcplaunch.Program {
		c.Runner = l.Runner
		if l.Kind == mcplaunch.Script && mcplaunch.AbsolutePath(l.Script) {
			c.Script = l.Script
			if pinsScript || pinsExe {
				c.ScriptSHA256 = fileSHA256(l.Script)
			}
		} else if l.Kind == mcplaunch.Script && (pinsScript || pinsExe) {
			return c, false
		}
	}
	return c, true
}

func fileSHA256(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}
