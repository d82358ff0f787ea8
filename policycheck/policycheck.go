// Package policycheck holds the semantic checks that decide whether a
// requirements policy or a config file can take effect: the checks beyond
// the JSON Schema that every oceancode applies before a session starts. The
// agent's side (requirements.Parse, layers.Resolve) and the administrators'
// tools (oceanadmin validate, sign, verify, simulate) call the same
// functions, so a file oceanadmin approves is never refused by an agent, and
// a policy that would stop sessions is refused before it is signed.
//
// Every function returns every problem it finds (never only the first), each
// as a schema.Violation naming the file, the JSON Pointer, its line and
// column, what is wrong and what to do.
//
// It imports only the schema and provenance vocabulary, so both the admin
// packages and the runtime's bridge may use it.
package policycheck

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/oceancode/oceancode/internal/jsonpos"
	"github.com/oceancode/oceancode/internal/mcplaunch"
	"github.com/oceancode/oceancode/provenance"
	"github.com/oceancode/oceancode/schema"
)

// Keywords of the violations this package reports (schema.Violation.Keyword).
const (
	KeywordPins          = "pins"          // a pin names no config key or has a value invalid for it
	KeywordRule          = "rule"          // a permission rule the engine cannot compile
	KeywordAllow         = "allow"         // requirements that would add an allow rule
	KeywordContradiction = "contradiction" // two parts of a policy that cannot both hold
	KeywordMCPIdentity   = "mcp-identity"  // an MCP allow-list entry that does not pin what its command runs
)

// sandboxStrength orders sandbox modes, weakest first.
var sandboxStrength = map[string]int{"danger-full-access": 0, "workspace-write": 1, "read-only": 2}

type checker struct {
	file string
	doc  *jsonpos.Doc
	out  []schema.Violation
}

func (c *checker) add(ptr, keyword, format string, a ...any) {
	pos, ok := c.doc.Pos(ptr)
	if !ok {
		pos, _ = c.doc.Pos("")
	}
	c.out = append(c.out, schema.Violation{File: c.file, Pointer: ptr, Line: pos.Line, Column: pos.Column,
		Keyword: keyword, Message: fmt.Sprintf(format, a...)})
}

// pin is one entry of "pins", split into its key path.
type pin struct {
	key  string
	segs []string
	ptr  string
	val  any
}

// Payload returns the semantic problems of a requirements payload (a policy
// being edited or a signed payload): pins that name no config key or carry a
// value invalid for it, rules the permission engine cannot compile, pins that
// would add allow rules (requirements can only narrow), and contradictions —
// parts of the policy that cannot both hold, whichever one an agent applied.
// It expects doc to be a JSON object; members with the wrong type (which the
// schema reports) are skipped.
func Payload(file string, doc *jsonpos.Doc) []schema.Violation {
	root, _ := doc.Value.(map[string]any)
	if root == nil {
		return nil
	}
	c := &checker{file: file, doc: doc}
	pins := c.pins(root)
	c.pinnedAllow(pins)
	c.overlappingPins(pins)
	rules := c.rulesAt(root, "")
	c.rulesUnderPins(rules, pins)
	c.modes(root, pins)
	c.sandbox(root, pins)
	c.mcp(root, pins)
	c.kinds(root, pins)
	c.projectConfig(root)
	sortViolations(c.out)
	return c.out
}

func sortViolations(v []schema.Violation) {
	sort.SliceStable(v, func(i, j int) bool {
		if v[i].Line != v[j].Line {
			return v[i].Line < v[j].Line
		}
		return v[i].Column < v[j].Column
	})
}

// pins checks each pin names a real config key with a valid value (by
// validating it as a config document) and returns the well-formed ones.
func (c *checker) pins(root map[string]any) []pin {
	m, _ := root["pins"].(map[string]any)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []pin
	for _, k := range keys {
		ptr := jsonpos.Pointer("pins", k)
		segs, err := provenance.SplitKey(k)
		if err != nil {
			c.add(ptr, KeywordPins, "pin %q: %v: write the key as oceancode inspect prints it, e.g. sandbox.mode or permission.bash[\"git push:*\"]", k, err)
			continue
		}
		cdoc, err := nestDoc(segs, m[k])
		if err != nil {
			c.add(ptr, KeywordPins, "pin %q: %v", k, err)
			continue
		}
		ok := true
		for _, v := range schema.ValidateValue(schema.Config, c.file, cdoc) {
			ok = false
			if v.UnknownKey {
				c.add(ptr, KeywordPins, "pin %q names no config key (%s): 'oceanadmin schema config' lists the keys", k, v.Message)
			} else {
				c.add(ptr, KeywordPins, "pin %q: %s at %s", k, v.Message, v.Pointer)
			}
		}
		if !ok {
			continue
		}
		p := pin{key: k, segs: segs, ptr: ptr, val: m[k]}
		out = append(out, p)
		// Rules a pin sets must compile in the engine and the shell guard.
		croot, _ := cdoc.Value.(map[string]any)
		for _, pr := range configProblems(croot) {
			c.add(ptr, KeywordRule, "pin %q: %s (at %s)", k, pr.msg, pr.ptr)
		}
	}
	return out
}

// nestDoc wraps v at segs into a config document.
func nestDoc(segs []string, v any) (*jsonpos.Doc, error) {
	m := map[string]any{segs[len(segs)-1]: v}
	for i := len(segs) - 2; i >= 0; i-- {
		m = map[string]any{segs[i]: m}
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	return jsonpos.Parse(b, jsonpos.Options{MaxDepth: schema.MaxConfigDepth})
}

// forLeaves calls f for every leaf under v (at path): objects are walked,
// everything else (lists included) is a leaf.
func forLeaves(path []string, v any, f func(path []string, v any)) {
	if m, ok := v.(map[string]any); ok {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			forLeaves(append(path[:len(path):len(path)], k), m[k], f)
		}
		return
	}
	f(path, v)
}

// permissionRule says whether a config leaf path is a permission rule
// (permission.TOOL, permission.TOOL.PATTERN, agents.NAME.permission.…) and
// returns its tool and pattern.
func permissionRule(path []string) (tool, pattern string, ok bool) {
	rest := path
	switch {
	case len(path) >= 2 && path[0] == "permission":
		rest = path[1:]
	case len(path) >= 4 && path[0] == "agents" && path[2] == "permission":
		rest = path[3:]
	default:
		return "", "", false
	}
	switch len(rest) {
	case 1:
		return rest[0], "*", true
	case 2:
		return rest[0], rest[1], true
	}
	return "", "", false
}

// pinnedAllow refuses pins that would add allow rules: requirements can only
// narrow, and every oceancode refuses a policy that allows.
func (c *checker) pinnedAllow(pins []pin) {
	for _, p := range pins {
		forLeaves(p.segs, p.val, func(path []string, v any) {
			if _, _, ok := permissionRule(path); ok && v == "allow" {
				c.add(p.ptr, KeywordAllow, "pin %q sets the allow rule %s: requirements can only narrow (deny or ask), so every oceancode would refuse this policy and no session could start; put allow rules in the managed config (managed.json), or pin the rule to \"ask\"", p.key, provenance.KeyPath(path...))
			}
			if len(path) == 2 && path[0] == "shell" && path[1] == "allow" {
				if list, _ := v.([]any); len(list) > 0 {
					c.add(p.ptr, KeywordAllow, "pin %q adds %d shell allow rule(s): requirements can only narrow (deny or ask), so every oceancode would refuse this policy; put shell.allow in the managed config (managed.json), or pin it to [] to remove the lower layers' allow rules", p.key, len(list))
				}
			}
		})
	}
}

// overlappingPins refuses a pin inside another pin: the later one would
// silently replace part of the earlier one.
func (c *checker) overlappingPins(pins []pin) {
	for _, inner := range pins {
		for _, outer := range pins {
			if outer.key != inner.key && provenance.HasPrefix(inner.key, outer.key) {
				c.add(inner.ptr, KeywordContradiction, "pin %q lies inside pin %q, which already fixes everything below %s: keep one of the two (put the value into %q's object)", inner.key, outer.key, outer.key, outer.key)
			}
		}
	}
}

// rule is one entry of rules.deny or rules.ask.
type rule struct {
	action, tool, pattern, ptr, text string
}

// rulesAt checks the syntax of rules.deny and rules.ask in obj (the
// payload, or a scope's require block at prefix) and returns them.
func (c *checker) rulesAt(obj map[string]any, prefix string) []rule {
	m, _ := obj["rules"].(map[string]any)
	var out []rule
	for _, action := range []string{"deny", "ask"} {
		list, _ := m[action].([]any)
		for i, it := range list {
			s, ok := it.(string)
			if !ok {
				continue
			}
			ptr := fmt.Sprintf("%s/rules/%s/%d", prefix, action, i)
			tool, pat, err := SplitRule(s)
			if err == nil {
				err = RuleSyntax(tool, pat)
			}
			if err != nil {
				c.add(ptr, KeywordRule, "rule %q: %v: every oceancode refuses it; write Tool(pattern), e.g. Bash(git push:*) or Edit(src/**)", s, err)
				continue
			}
			out = append(out, rule{action: action, tool: ToolKey(tool), pattern: pat, ptr: ptr, text: s})
		}
	}
	// The same rule under deny and ask: the later (ask) silently wins.
	deny := map[[2]string]rule{}
	for _, r := range out {
		if r.action == "deny" {
			deny[[2]string{r.tool, r.pattern}] = r
		}
	}
	for _, r := range out {
		if d, ok := deny[[2]string{r.tool, r.pattern}]; ok && r.action == "ask" {
			c.add(r.ptr, KeywordContradiction, "rule %q is both in rules.deny (%s) and rules.ask: agents would apply ask, the weaker; keep it in one list", r.text, d.ptr)
		}
	}
	return out
}

// rulesUnderPins refuses rules that a pin of the same permission key would
// drop: a pin replaces everything below its key.
func (c *checker) rulesUnderPins(rules []rule, pins []pin) {
	for _, r := range rules {
		key := provenance.KeyPath("permission", r.tool, r.pattern)
		for _, p := range pins {
			if provenance.HasPrefix(key, p.key) {
				c.add(r.ptr, KeywordContradiction, "rule %q is under pin %q, which replaces every rule below %s: the rule would be dropped; move it into the pin's value or remove the pin", r.text, p.key, p.key)
			}
		}
	}
}

// pinnedAt returns the pinned value at a config key path, if a pin covers it.
func pinnedAt(pins []pin, path ...string) (any, string, bool) {
	for _, p := range pins {
		if len(p.segs) > len(path) {
			continue
		}
		match := true
		for i, s := range p.segs {
			if path[i] != s {
				match = false
				break
			}
		}
		if !match {
			continue
		}
		v := p.val
		for _, s := range path[len(p.segs):] {
			m, ok := v.(map[string]any)
			if !ok {
				v = nil
				break
			}
			v = m[s]
		}
		if v != nil {
			return v, p.key, true
		}
	}
	return nil, "", false
}

// pinnedModes returns every pinned permission mode: the top-level one and
// each agent's, keyed by their config key.
func pinnedModes(pins []pin) map[string]pinnedValue {
	out := map[string]pinnedValue{}
	for _, p := range pins {
		forLeaves(p.segs, p.val, func(path []string, v any) {
			s, ok := v.(string)
			if !ok {
				return
			}
			if len(path) == 1 && path[0] == "permission_mode" || len(path) == 3 && path[0] == "agents" && path[2] == "permission_mode" {
				out[provenance.KeyPath(path...)] = pinnedValue{value: s, pin: p}
			}
		})
	}
	return out
}

type pinnedValue struct {
	value string
	pin   pin
}

// modes refuses mode locks that contradict each other or a pinned mode.
func (c *checker) modes(root map[string]any, pins []pin) {
	disable, _ := root["disable_bypass_permissions"].(bool)
	var allowed []string
	list, _ := root["allowed_permission_modes"].([]any)
	for _, it := range list {
		if s, ok := it.(string); ok {
			allowed = append(allowed, s)
		}
	}
	isAllowed := func(m string) bool {
		for _, a := range allowed {
			if a == m {
				return true
			}
		}
		return len(allowed) == 0
	}
	if disable {
		for i, m := range allowed {
			if m == "bypassPermissions" {
				c.add(fmt.Sprintf("/allowed_permission_modes/%d", i), KeywordContradiction, "bypassPermissions is both in allowed_permission_modes and locked out by disable_bypass_permissions: remove it from the list, or set disable_bypass_permissions to false")
			}
		}
	}
	modes := pinnedModes(pins)
	keys := make([]string, 0, len(modes))
	for k := range modes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		pm := modes[k]
		switch {
		case disable && pm.value == "bypassPermissions":
			c.add(pm.pin.ptr, KeywordContradiction, "pin %q sets %s to bypassPermissions, which disable_bypass_permissions locks out: agents would run in another mode than the pin says; pin another mode, or set disable_bypass_permissions to false", pm.pin.key, k)
		case !isAllowed(pm.value):
			c.add(pm.pin.ptr, KeywordContradiction, "pin %q sets %s to %s, which allowed_permission_modes (%s) excludes: agents would run in another mode than the pin says; add %s to the list or pin one of the allowed modes", pm.pin.key, k, pm.value, strings.Join(allowed, ", "), pm.value)
		}
	}
}

// sandbox refuses a pinned sandbox weaker than min_sandbox_mode, or a
// pinned sandbox.enabled false under it.
func (c *checker) sandbox(root map[string]any, pins []pin) {
	min, _ := root["min_sandbox_mode"].(string)
	if _, known := sandboxStrength[min]; !known {
		return
	}
	if v, key, ok := pinnedAt(pins, "sandbox", "mode"); ok {
		if mode, _ := v.(string); mode != "" && sandboxStrength[mode] < sandboxStrength[min] {
			c.add(jsonpos.Pointer("pins", key), KeywordContradiction, "pin %q sets sandbox.mode to %s, weaker than min_sandbox_mode %s: agents would raise it to %s against the pin; pin %s or a stronger mode, or lower min_sandbox_mode", key, mode, min, min, min)
		}
	}
	if v, key, ok := pinnedAt(pins, "sandbox", "enabled"); ok && v == false {
		c.add(jsonpos.Pointer("pins", key), KeywordContradiction, "pin %q turns the sandbox off (sandbox.enabled false), but min_sandbox_mode %s keeps it on: remove the pin or min_sandbox_mode", key, min)
	}
}

// mcp refuses duplicate allow-list names (only the first entry would ever
// be consulted) and pinned MCP servers the allow-list refuses.
func (c *checker) mcp(root map[string]any, pins []pin) {
	section, ok := root["mcp"].(map[string]any)
	if !ok {
		return
	}
	list, _ := section["allowed_servers"].([]any)
	type entry struct {
		command, url string
		args         []any
		hasArgs      bool
		ptr          string
	}
	allowed := map[string]entry{}
	for i, it := range list {
		s, _ := it.(map[string]any)
		name, _ := s["name"].(string)
		if name == "" {
			continue
		}
		ptr := fmt.Sprintf("/mcp/allowed_servers/%d", i)
		if first, dup := allowed[name]; dup {
			c.add(ptr, KeywordContradiction, "MCP server %q is listed twice (first at %s): agents consult only the first entry; merge the two", name, first.ptr)
			continue
		}
		cmd, _ := s["command"].(string)
		url, _ := s["url"].(string)
		args, hasArgs := s["args"].([]any)
		allowed[name] = entry{command: cmd, url: url, args: args, hasArgs: hasArgs, ptr: ptr}
		c.mcpPinsRuns(name, ptr, s)
	}
	v, key, ok := pinnedAt(pins, "mcp", "servers")
	servers, _ := v.(map[string]any)
	if !ok {
		// Pins of single servers (mcp.servers.NAME).
		servers = map[string]any{}
		for _, p := range pins {
			if len(p.segs) >= 3 && p.segs[0] == "mcp" && p.segs[1] == "servers" {
				if sv, _, ok := pinnedAt(pins, "mcp", "servers", p.segs[2]); ok {
					servers[p.segs[2]] = sv
				}
			}
		}
	}
	names := make([]string, 0, len(servers))
	for n := range servers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		pk := key
		if pk == "" {
			_, pk, _ = pinnedAt(pins, "mcp", "servers", name)
		}
		ptr := jsonpos.Pointer("pins", pk)
		s, _ := servers[name].(map[string]any)
		e, listed := allowed[name]
		if !listed {
			c.add(ptr, KeywordContradiction, "pin %q configures MCP server %q, which mcp.allowed_servers does not list: agents would never start it; add it to the allow-list or remove it from the pin", pk, name)
			continue
		}
		cmd, _ := s["command"].(string)
		url, _ := s["url"].(string)
		if cmd != "" && e.command != cmd || url != "" && e.url != url {
			c.add(ptr, KeywordContradiction, "pin %q configures MCP server %q with an identity (command or url) other than its mcp.allowed_servers entry (%s): agents would never start it; make the two the same", pk, name, e.ptr)
			continue
		}
		if cmd != "" && e.hasArgs && !sameJSON(s["args"], e.args) {
			c.add(ptr, KeywordContradiction, "pin %q configures MCP server %q with arguments other than the ones its mcp.allowed_servers entry pins (%s/args): agents would never start it; make the two the same", pk, name, e.ptr)
		}
	}
}

// sameJSON reports whether a and b encode to the same JSON.
func sameJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}

// mcpPinsRuns checks that an allow-list entry pins what its command runs:
// an interpreter or launcher must have "args" (else the entry would admit
// python3 -c ANY), those arguments must run something pinnable (a script,
// code in the arguments, a package at an exact version), and a script named
// by a relative path, or behind a pinned interpreter digest, needs its own
// "script_sha256".
func (c *checker) mcpPinsRuns(name, ptr string, s map[string]any) {
	cmd, _ := s["command"].(string)
	rawArgs, hasArgs := s["args"].([]any)
	scriptSum, _ := s["script_sha256"].(string)
	if cmd == "" {
		return
	}
	if !hasArgs {
		if mcplaunch.IsRunner(cmd) {
			c.add(ptr, KeywordMCPIdentity, "MCP server %q runs %s, an interpreter or launcher whose arguments decide what runs: pin them with \"args\" (the exact argument vector, e.g. [\"/opt/mcp/srv.py\"] or [\"-y\", \"pkg@1.2.3\"]); without them the entry would admit %s with any arguments, inline code included", name, mcplaunch.Base(cmd), mcplaunch.Base(cmd))
		}
		if scriptSum != "" {
			c.add(ptr+"/script_sha256", KeywordMCPIdentity, "MCP server %q: script_sha256 pins a script, but the entry has no \"args\" naming one", name)
		}
		return
	}
	args := make([]string, 0, len(rawArgs))
	for _, a := range rawArgs {
		str, _ := a.(string)
		args = append(args, str)
	}
	l, err := mcplaunch.Analyze(cmd, args)
	switch {
	case err != nil:
		c.add(ptr+"/args", KeywordMCPIdentity, "MCP server %q: %v", name, err)
	case l.Kind != mcplaunch.Script && scriptSum != "":
		c.add(ptr+"/script_sha256", KeywordMCPIdentity, "MCP server %q: script_sha256 is set but %s runs %s, not a script file: remove it", name, mcplaunch.Base(cmd), l.Kind)
	case l.Kind == mcplaunch.Script && scriptSum == "" && !mcplaunch.AbsolutePath(l.Script):
		c.add(ptr+"/args", KeywordMCPIdentity, "MCP server %q runs the script %q by a relative path, a file of whichever project it runs in: give its absolute path or pin its content with \"script_sha256\"", name, l.Script)
	case l.Kind == mcplaunch.Script && scriptSum == "" && s["sha256"] != nil:
		c.add(ptr, KeywordMCPIdentity, "MCP server %q pins the interpreter's sha256 but not the script %s it runs: add \"script_sha256\" (sha256sum %s)", name, l.Script, l.Script)
	}
}

// Config returns the semantic problems of a config document (managed,
// drop-in, user or project): permission rules, shell rules, safe-list
// entries and sandbox.allow_hosts entries the permission engine, the shell
// guard and the egress proxy cannot compile. Members
// with the wrong type (which the schema reports) are skipped.
func Config(file string, doc *jsonpos.Doc) []schema.Violation {
	root, _ := doc.Value.(map[string]any)
	if root == nil {
		return nil
	}
	c := &checker{file: file, doc: doc}
	for _, p := range configProblems(root) {
		c.add(p.ptr, KeywordRule, "%s", p.msg)
	}
	sortViolations(c.out)
	return c.out
}

// problem is one semantic problem of a config value, at a JSON Pointer
// relative to the config document.
type problem struct{ ptr, msg string }

func configProblems(root map[string]any) []problem {
	var out []problem
	forLeaves(nil, root, func(path []string, v any) {
		if _, ok := v.(string); !ok {
			return
		}
		if tool, pat, ok := permissionRule(path); ok {
			if err := RuleSyntax(tool, pat); err != nil {
				out = append(out, problem{jsonpos.Pointer(path...), fmt.Sprintf("rule %s: %v: every oceancode refuses it", provenance.KeyPath(path...), err)})
			}
		}
	})
	shell, _ := root["shell"].(map[string]any)
	for _, list := range []string{"allow", "deny"} {
		items, _ := shell[list].([]any)
		for i, it := range items {
			s, ok := it.(string)
			if !ok {
				continue
			}
			ptr := fmt.Sprintf("/shell/%s/%d", list, i)
			tool, pat, err := ParseRule(s)
			if err == nil && ToolKey(tool) != "bash" {
				err = fmt.Errorf("shell.%s holds Bash(…) rules; put %s rules under \"permission\"", list, ToolKey(tool))
			}
			if err == nil {
				err = shellPattern(pat)
			}
			if err != nil {
				out = append(out, problem{ptr, fmt.Sprintf("shell rule %q: %v: every oceancode refuses it; write Bash(pattern), e.g. Bash(make test:*)", s, err)})
			}
		}
	}
	sandbox, _ := root["sandbox"].(map[string]any)
	hosts, _ := sandbox["allow_hosts"].([]any)
	for i, it := range hosts {
		if s, ok := it.(string); ok {
			if err := HostRule(s); err != nil {
				out = append(out, problem{fmt.Sprintf("/sandbox/allow_hosts/%d", i), fmt.Sprintf("allow_hosts entry %q: %v: every oceancode refuses it; write a host, *.domain or host:port, e.g. api.example.com:443", s, err)})
			}
		}
	}
	extra, _ := shell["safe_list_extra"].([]any)
	for i, it := range extra {
		s, ok := it.(string)
		if !ok {
			continue
		}
		if len(strings.Fields(s)) == 0 || strings.ContainsAny(s, "*\x00\n") {
			out = append(out, problem{fmt.Sprintf("/shell/safe_list_extra/%d", i), fmt.Sprintf("safe_list_extra entry %q: want \"cmd\" or \"cmd sub\" without wildcards: every oceancode refuses it", s)})
		}
	}
	return out
}

// shellPattern checks a Bash rule's pattern as the shell guard compiles it.
func shellPattern(s string) error {
	if strings.ContainsAny(s, "\x00\n\r") {
		return fmt.Errorf("control character in pattern")
	}
	t := strings.Join(strings.Fields(s), " ")
	if pre, ok := strings.CutSuffix(t, ":*"); ok {
		t = pre
	}
	if strings.Contains(t, ":*") {
		return fmt.Errorf(`":*" may appear only at the end`)
	}
	return nil
}
