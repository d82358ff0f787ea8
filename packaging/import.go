package packaging

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/oceancode/oceancode/internal/hostrule"
)

// ErrImport is returned for an input file that cannot be read as the
// format it was given as.
var ErrImport = errors.New("cannot import")

// Imported is another agent's managed policy turned into ours: a managed
// config, an unsigned requirements policy for oceanadmin sign, and every
// key of the input that did not map.
type Imported struct {
	Managed []byte
	Policy  []byte
	// Unmapped lists the input's keys (as dotted paths) that have no
	// OceanCode meaning, or only in part, with the reason; sorted by key.
	Unmapped []Unmapped
}

// Unmapped is one key of the input that was not carried over (or only in
// part: Partial).
type Unmapped struct {
	Key     string
	Reason  string
	Partial bool
}

func (u Unmapped) String() string {
	if u.Partial {
		return "partly mapped: " + u.Key + ": " + u.Reason
	}
	return "not mapped: " + u.Key + ": " + u.Reason
}

// importer accumulates the two outputs and the report.
type importer struct {
	managed  map[string]any
	policy   map[string]any
	unmapped []Unmapped
}

func newImporter() *importer {
	return &importer{managed: map[string]any{}, policy: map[string]any{"schema_version": 1}}
}

func (im *importer) skip(key, reason string) {
	im.unmapped = append(im.unmapped, Unmapped{Key: key, Reason: reason})
}
func (im *importer) partly(key, reason string) {
	im.unmapped = append(im.unmapped, Unmapped{Key: key, Reason: reason, Partial: true})
}

// set puts v at a dotted path of the managed config.
func set(m map[string]any, dotted string, v any) {
	parts := strings.Split(dotted, ".")
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	m[parts[len(parts)-1]] = v
}

func (im *importer) rule(list, r string) {
	rules, _ := im.policy["rules"].(map[string]any)
	if rules == nil {
		rules = map[string]any{}
		im.policy["rules"] = rules
	}
	cur, _ := rules[list].([]string)
	if !slices.Contains(cur, r) {
		rules[list] = append(cur, r)
	}
}

func (im *importer) allowRule(key, pattern string) {
	perm, _ := im.managed["permission"].(map[string]any)
	if perm == nil {
		perm = map[string]any{}
		im.managed["permission"] = perm
	}
	m, _ := perm[key].(map[string]any)
	if m == nil {
		m = map[string]any{}
		perm[key] = m
	}
	m[pattern] = "allow"
}

func (im *importer) result() (*Imported, error) {
	sort.SliceStable(im.unmapped, func(i, j int) bool { return im.unmapped[i].Key < im.unmapped[j].Key })
	managed, err := marshal(im.managed)
	if err != nil {
		return nil, err
	}
	policy, err := marshal(im.policy)
	if err != nil {
		return nil, err
	}
	return &Imported{Managed: managed, Policy: policy, Unmapped: im.unmapped}, nil
}

func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("import: encode: %w", err)
	}
	return b.Bytes(), nil
}

// Claude Code's permission modes that mean the same here.
var sameModes = []string{"default", "acceptEdits", "plan", "dontAsk", "bypassPermissions"}

// ImportClaude maps a Claude Code managed-settings.json: permission allow
// rules into the managed config's permission map, ask and deny rules into
// the requirements (managed settings are enforced there, as requirements
// are here), the bypass lock-out, MCP allow- and deny-lists, sandbox
// settings and env. Everything else is reported.
func ImportClaude(data []byte) (*Imported, error) {
	var in map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&in); err != nil {
		return nil, fmt.Errorf("%w: not a JSON object: %v", ErrImport, err)
	}
	im := newImporter()
	for _, k := range sortedKeys(in) {
		v := in[k]
		switch k {
		case "$schema":
		case "permissions":
			im.claudePermissions(v)
		case "allowedMcpServers":
			im.claudeAllowedMCP(v)
		case "deniedMcpServers":
			im.claudeDeniedMCP(v)
		case "sandbox":
			im.claudeSandbox(v)
		case "env":
			im.claudeEnv(v)
		case "model":
			im.skip(k, "OceanCode names models PROVIDER/MODEL with the provider defined in config: set model and provider in managed.json by hand")
		case "availableModels":
			im.claudeModels(v)
		case "enforceAvailableModels":
			im.skip(k, "allowed_models is always enforced: nothing to switch on")
		case "requiredMinimumVersion", "requiredMaximumVersion":
			im.skip(k, "a Claude Code version is not an OceanCode version: set the policy's min_version by hand (docs/requirements-format.md)")
		case "hooks":
			im.claudeHooks(v) // importhooks.go
		case "allowManagedHooksOnly":
			if v == true {
				im.policy["allow_managed_hooks_only"] = true
			}
		case "allowManagedPermissionRulesOnly", "allowManagedMcpServersOnly":
			im.skip(k, "OceanCode keeps user and project rules under the managed ones (last match wins) and requirements rules over all; there is no switch that drops the lower layers")
		default:
			im.skip(k, "no OceanCode equivalent")
		}
	}
	return im.result()
}

func (im *importer) claudePermissions(v any) {
	p, ok := v.(map[string]any)
	if !ok {
		im.skip("permissions", "not an object")
		return
	}
	for _, k := range sortedKeys(p) {
		key := "permissions." + k
		switch k {
		case "allow", "ask", "deny":
			list, ok := p[k].([]any)
			if !ok {
				im.skip(key, "not an array of rules")
				continue
			}
			for i, r := range list {
				s, _ := r.(string)
				tool, pattern, reason := claudeRule(s)
				if reason != "" {
					im.skip(fmt.Sprintf("%s[%d] %q", key, i, s), reason)
					continue
				}
				if k == "allow" {
					// Requirements can only narrow: allow rules live in the
					// managed config.
					im.allowRule(tool, pattern)
				} else {
					im.rule(k, toolRule(tool, pattern))
				}
			}
		case "defaultMode":
			mode, _ := p[k].(string)
			if !slices.Contains(sameModes, mode) {
				im.skip(key, fmt.Sprintf("mode %q has no OceanCode equivalent (modes: %s)", mode, strings.Join(sameModes, ", ")))
				continue
			}
			im.managed["permission_mode"] = mode
		case "disableBypassPermissionsMode":
			if s, _ := p[k].(string); s == "disable" {
				im.policy["disable_bypass_permissions"] = true
			} else {
				im.skip(key, `only "disable" has a meaning`)
			}
		case "additionalDirectories":
			im.skip(key, "OceanCode has no extra working directories; sandbox.writable in managed.json is the closest (extra writable roots): add it by hand if that is meant")
		default:
			im.skip(key, "no OceanCode equivalent")
		}
	}
}

// claudeTools maps Claude Code tool names to OceanCode permission keys.
var claudeTools = map[string]string{
	"bash": "bash", "read": "read", "edit": "edit", "write": "edit", "multiedit": "edit", "notebookedit": "edit",
	"grep": "grep", "glob": "glob", "ls": "list", "webfetch": "webfetch", "task": "task",
}

// claudeRule turns one Claude Code permission rule into an OceanCode
// permission key and pattern, or says why it cannot.
func claudeRule(s string) (key, pattern, reason string) {
	name, arg, hasArg := strings.Cut(s, "(")
	if hasArg {
		if !strings.HasSuffix(arg, ")") {
			return "", "", "not a Tool(pattern) rule"
		}
		arg = strings.TrimSuffix(arg, ")")
	}
	if server, rest, ok := strings.Cut(name, "__"); ok && server == "mcp" {
		srv, tool, _ := strings.Cut(rest, "__")
		if srv == "" || hasArg {
			return "", "", "not an MCP rule OceanCode can read (mcp__server or mcp__server__tool)"
		}
		if tool == "" {
			tool = "*"
		}
		return "mcp", srv + "/" + tool, ""
	}
	key, ok := claudeTools[strings.ToLower(name)]
	if !ok {
		return "", "", fmt.Sprintf("OceanCode has no tool %q", name)
	}
	if arg == "" {
		return key, "*", ""
	}
	switch key {
	case "bash":
		return key, arg, ""
	case "webfetch":
		return "", "", "WebFetch domain rules have no OceanCode equivalent; use sandbox.allow_hosts for the network"
	}
	// Paths: //abs is absolute, ~/ is the home, /x is relative to the
	// settings file (meaningless once imported), others are project paths.
	switch {
	case strings.HasPrefix(arg, "//"):
		return key, path.Clean(arg[1:]), ""
	case strings.HasPrefix(arg, "~"):
		return "", "", "OceanCode rules do not expand ~: write the absolute path"
	case strings.HasPrefix(arg, "/"):
		return "", "", "a path relative to the settings file has no meaning once imported: write the absolute path as //path"
	}
	return key, strings.TrimPrefix(arg, "./"), ""
}

// ruleNames are the tool names Tool(pattern) rules are written with (the
// name is case-insensitive; these read as the docs write them).
var ruleNames = map[string]string{"bash": "Bash", "read": "Read", "edit": "Edit", "grep": "Grep", "glob": "Glob",
	"list": "List", "webfetch": "WebFetch", "task": "Task", "mcp": "mcp"}

// toolRule writes key and pattern as a Tool(pattern) rule.
func toolRule(key, pattern string) string {
	if pattern == "*" {
		return ruleNames[key]
	}
	return ruleNames[key] + "(" + pattern + ")"
}

func (im *importer) claudeAllowedMCP(v any) {
	list, ok := v.([]any)
	if !ok {
		im.skip("allowedMcpServers", "not an array")
		return
	}
	// Fail closed: the list is there, so only what maps is allowed.
	servers := []any{}
	for i, e := range list {
		m, _ := e.(map[string]any)
		name, _ := m["serverName"].(string)
		url, _ := m["serverUrl"].(string)
		cmd, _ := m["serverCommand"].([]any)
		key := fmt.Sprintf("allowedMcpServers[%d]", i)
		switch {
		case name != "" && url != "" && !strings.Contains(url, "*"):
			servers = append(servers, map[string]any{"name": name, "url": url})
		case name != "" && len(cmd) == 1 && strings.HasPrefix(fmt.Sprint(cmd[0]), "/"):
			servers = append(servers, map[string]any{"name": name, "command": fmt.Sprint(cmd[0])})
		default:
			im.skip(key, "OceanCode allows an MCP server by its name together with its identity (an absolute command path or an exact URL); this entry has not both, so no server matches it: add {name, command|url} to mcp.allowed_servers by hand")
		}
	}
	im.policy["mcp"] = map[string]any{"allowed_servers": servers}
}

func (im *importer) claudeDeniedMCP(v any) {
	list, ok := v.([]any)
	if !ok {
		im.skip("deniedMcpServers", "not an array")
		return
	}
	for i, e := range list {
		m, _ := e.(map[string]any)
		name, _ := m["serverName"].(string)
		if name == "" || strings.ContainsAny(name, "/*") || len(m) != 1 {
			im.skip(fmt.Sprintf("deniedMcpServers[%d]", i), "only entries naming a server (serverName) map: to a requirements deny rule on all its tools")
			continue
		}
		im.rule("deny", "mcp("+name+"/*)")
	}
}

func (im *importer) claudeSandbox(v any) {
	s, ok := v.(map[string]any)
	if !ok {
		im.skip("sandbox", "not an object")
		return
	}
	for _, k := range sortedKeys(s) {
		key := "sandbox." + k
		switch k {
		case "enabled":
			if b, _ := s[k].(bool); b {
				set(im.managed, "sandbox.enabled", true)
				set(im.managed, "sandbox.mode", "workspace-write")
				im.policy["min_sandbox_mode"] = "workspace-write"
			} else {
				set(im.managed, "sandbox.enabled", false)
			}
		case "allowUnsandboxedCommands":
			if b, _ := s[k].(bool); b {
				im.skip(key, "OceanCode has no per-command escape from the sandbox")
			}
		case "network":
			n, _ := s[k].(map[string]any)
			for _, nk := range sortedKeys(n) {
				if nk != "allowedDomains" {
					im.skip(key+"."+nk, "no OceanCode equivalent")
					continue
				}
				hosts := []any{}
				for i, d := range asList(n[nk]) {
					h, _ := d.(string)
					if _, err := hostrule.Parse(h); err != nil {
						im.skip(fmt.Sprintf("%s.%s[%d] %q", key, nk, i, h), "not a sandbox.allow_hosts entry (host, host:port, *.domain or an IP): "+err.Error())
						continue
					}
					hosts = append(hosts, h)
				}
				// The egress proxy enforces the list (docs/sandbox.md); a
				// domain the list leaves out is refused, not opened.
				set(im.managed, "sandbox.network", "allowlist")
				set(im.managed, "sandbox.allow_hosts", hosts)
			}
		default:
			im.skip(key, "no OceanCode equivalent")
		}
	}
}

func (im *importer) claudeEnv(v any) {
	env, ok := v.(map[string]any)
	if !ok {
		im.skip("env", "not an object")
		return
	}
	out := map[string]any{}
	for _, k := range sortedKeys(env) {
		s, ok := env[k].(string)
		if !ok || !validEnvName(k) {
			im.skip("env."+k, "child_env.set takes NAME → string")
			continue
		}
		out[k] = s
	}
	if len(out) > 0 {
		set(im.managed, "child_env.set", out)
	}
}

func validEnvName(s string) bool {
	for i, c := range s {
		if c != '_' && (c < 'A' || c > 'Z') && (c < 'a' || c > 'z') && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return s != ""
}

// Codex sandbox modes, weakest first; the names are ours too.
var codexSandbox = []string{"danger-full-access", "workspace-write", "read-only"}

// ImportCodex maps a Codex requirements.toml: the allowed sandbox modes to
// min_sandbox_mode, an approval list without "never" to the bypass
// lock-out, the MCP identity allow-list, exec-policy prefix rules to
// requirements deny/ask rules, and the filesystem deny_read list to the
// managed config. Everything else is reported.
func ImportCodex(data []byte) (*Imported, error) {
	var in map[string]any
	if _, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&in); err != nil {
		return nil, fmt.Errorf("%w: not TOML: %v", ErrImport, err)
	}
	im := newImporter()
	for _, k := range sortedKeys(in) {
		v := in[k]
		switch k {
		case "allowed_sandbox_modes":
			im.codexSandboxModes(v)
		case "allowed_approval_policies":
			list := strs(v)
			if !slices.Contains(list, "never") {
				im.policy["disable_bypass_permissions"] = true
				im.partly(k, "no \"never\": mapped to disable_bypass_permissions; OceanCode's other modes all ask or narrow, so the rest of the list has no equivalent")
			} else {
				im.skip(k, "\"never\" is allowed: nothing to lock out")
			}
		case "mcp_servers":
			im.codexMCP(v)
		case "rules":
			im.codexRules(v)
		case "permissions":
			im.codexPermissions(v)
		case "allowed_web_search_modes", "remote_sandbox_config", "enforce_residency", "features", "feature_requirements",
			"hooks", "allow_managed_hooks_only", "apps", "plugins", "computer_use", "allowed_approvals_reviewers",
			"allowed_permissions", "allowed_permission_profiles", "default_permissions", "experimental_network", "guardian_policy_config":
			im.skip(k, "no OceanCode equivalent")
		default:
			im.skip(k, "no OceanCode equivalent")
		}
	}
	return im.result()
}

func (im *importer) codexSandboxModes(v any) {
	modes := strs(v)
	weakest := ""
	for _, m := range codexSandbox {
		if slices.Contains(modes, m) {
			weakest = m
			break
		}
	}
	for _, m := range modes {
		if !slices.Contains(codexSandbox, m) {
			im.skip("allowed_sandbox_modes "+fmt.Sprintf("%q", m), "no OceanCode sandbox mode of that name")
		}
	}
	if weakest == "" {
		im.skip("allowed_sandbox_modes", "no known mode listed")
		return
	}
	im.policy["min_sandbox_mode"] = weakest
}

func (im *importer) codexMCP(v any) {
	servers, ok := v.(map[string]any)
	if !ok {
		im.skip("mcp_servers", "not a table")
		return
	}
	// Fail closed: the table is there, so only what maps is allowed.
	out := []any{}
	for _, name := range sortedKeys(servers) {
		key := "mcp_servers." + name
		s, _ := servers[name].(map[string]any)
		id, _ := s["identity"].(map[string]any)
		cmd, _ := id["command"].(string)
		url, _ := id["url"].(string)
		switch {
		case strings.HasPrefix(cmd, "/"):
			out = append(out, map[string]any{"name": name, "command": cmd})
		case url != "":
			out = append(out, map[string]any{"name": name, "url": url})
		case cmd != "":
			im.skip(key, fmt.Sprintf("command %q is not an absolute path, which OceanCode requires of an allowed server: no server matches until you give its path", cmd))
			continue
		default:
			im.skip(key, "no identity (command or url): no server matches it")
			continue
		}
		for _, extra := range sortedKeys(s) {
			if extra != "identity" {
				im.skip(key+"."+extra, "no OceanCode equivalent")
			}
		}
	}
	im.policy["mcp"] = map[string]any{"allowed_servers": out}
}

func (im *importer) codexRules(v any) {
	r, ok := v.(map[string]any)
	if !ok {
		im.skip("rules", "not a table")
		return
	}
	for _, k := range sortedKeys(r) {
		if k != "prefix_rules" {
			im.skip("rules."+k, "no OceanCode equivalent")
			continue
		}
		for i, e := range asList(r[k]) {
			key := fmt.Sprintf("rules.prefix_rules[%d]", i)
			rule, _ := e.(map[string]any)
			list := map[string]string{"forbidden": "deny", "prompt": "ask"}[fmt.Sprint(rule["decision"])]
			if list == "" {
				im.skip(key, "only decision \"forbidden\" (deny) and \"prompt\" (ask) map: requirements can only narrow")
				continue
			}
			prefixes, ok := prefixAlternatives(asList(rule["pattern"]))
			if !ok {
				im.skip(key, "pattern is not a list of tokens ({token = …} or {any_of = […]})")
				continue
			}
			for _, p := range prefixes {
				im.rule(list, "Bash("+p+":*)")
			}
		}
	}
}

// prefixAlternatives expands an exec-policy pattern into every command
// prefix it names ("git" then any_of push/commit: "git push", "git commit").
func prefixAlternatives(pattern []any) ([]string, bool) {
	out := []string{""}
	for _, t := range pattern {
		var alts []string
		switch t := t.(type) {
		case string:
			alts = []string{t}
		case []any:
			alts = strs(t)
		case map[string]any:
			if tok, ok := t["token"].(string); ok {
				alts = []string{tok}
			} else {
				alts = strs(t["any_of"])
			}
		}
		if len(alts) == 0 || len(out)*len(alts) > 64 {
			return nil, false
		}
		var next []string
		for _, o := range out {
			for _, a := range alts {
				if a == "" || strings.ContainsAny(a, "*()") {
					return nil, false
				}
				next = append(next, strings.TrimSpace(o+" "+a))
			}
		}
		out = next
	}
	return out, len(pattern) > 0
}

func (im *importer) codexPermissions(v any) {
	p, _ := v.(map[string]any)
	for _, k := range sortedKeys(p) {
		if k != "filesystem" {
			im.skip("permissions."+k, "no OceanCode equivalent")
			continue
		}
		fs, _ := p[k].(map[string]any)
		for _, fk := range sortedKeys(fs) {
			if fk != "deny_read" {
				im.skip("permissions.filesystem."+fk, "no OceanCode equivalent")
				continue
			}
			// A union key: a lower layer can add to it, never remove.
			set(im.managed, "sandbox.deny_read", asList(fs[fk]))
		}
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func asList(v any) []any {
	switch v := v.(type) {
	case []any:
		return v
	case []map[string]any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = e
		}
		return out
	}
	return nil
}

func strs(v any) []string {
	var out []string
	for _, e := range asList(v) {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// claudeModels maps Claude Code's availableModels (model ids such as
// "claude-sonnet-4-5", or the aliases sonnet, opus, haiku) to the policy's
// allowed_models, as anthropic/… patterns.
func (im *importer) claudeModels(v any) {
	var pats []any
	for i, m := range asList(v) {
		s, _ := m.(string)
		switch {
		case s == "sonnet" || s == "opus" || s == "haiku":
			pats = append(pats, "anthropic/claude-"+s+"-*")
		case strings.HasPrefix(s, "claude-") && !strings.ContainsAny(s, "/ \t"):
			pats = append(pats, "anthropic/"+s)
		default:
			im.skip(fmt.Sprintf("availableModels[%d] %q", i, s), "not a Claude model id or alias (sonnet, opus, haiku): add it to allowed_models as PROVIDER/MODEL by hand")
		}
	}
	if len(pats) == 0 {
		im.skip("availableModels", "no entry could be mapped: allowed_models stays unset (every model is allowed)")
		return
	}
	im.policy["allowed_models"] = pats
}
