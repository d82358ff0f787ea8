package layers

import (
	"strings"

	"github.com/oceancode/oceancode/internal/jsonpos"
)

// peerKey is a top-level key another coding agent uses in its own config
// file, with OceanCode's equivalent. People copy their settings across, and
// a key we do not know would otherwise be dropped with a generic message.
type peerKey struct {
	agent string // whose spelling it is
	ours  string // what to write instead
	// permission marks permission vocabulary: settings that allow, deny or
	// ask. Ignoring them would run under rules the file meant to change —
	// possibly with fewer restrictions than it asked for — so such a key
	// makes the file invalid (sessions refused) instead of being dropped.
	permission bool
}

// peerKeys is the table of other agents' vocabulary (docs/configuration.md,
// "Other agents' keys"). Keys are matched exactly, at the top level only.
var peerKeys = map[string]peerKey{
	"permissions":                {"Claude Code", `"permission" (rules by tool, e.g. {"bash": {"git push:*": "deny"}}) and "permission_mode" (its "defaultMode")`, true},
	"allowedTools":               {"Claude Code and Gemini CLI", `allow rules under "permission", e.g. {"bash": {"git status": "allow"}}`, true},
	"disallowedTools":            {"Claude Code", `deny rules under "permission", e.g. {"bash": {"rm:*": "deny"}}`, true},
	"defaultMode":                {"Claude Code (permissions.defaultMode)", `"permission_mode"`, true},
	"dangerouslySkipPermissions": {"Claude Code", `"permission_mode": "bypassPermissions" (if your administrator allows it)`, true},
	"approval_policy":            {"Codex", `"permission_mode" (and 'oceancode run --auto' for unattended runs)`, true},
	"sandbox_mode":               {"Codex", `"sandbox": {"enabled": true, "mode": "read-only|workspace-write|danger-full-access"}`, true},
	"sandbox_workspace_write":    {"Codex", `"sandbox": {"writable": […], "network": "off|allowlist|on"}`, true},
	"autoApprove":                {"Cline and Roo Code", `allow rules under "permission", e.g. {"mcp": {"server/tool": "allow"}}`, true},
	"alwaysAllow":                {"Cline and Roo Code", `allow rules under "permission", e.g. {"mcp": {"server/tool": "allow"}}`, true},
	"coreTools":                  {"Gemini CLI", `allow rules under "permission"`, true},
	"excludeTools":               {"Gemini CLI", `deny rules under "permission"`, true},
	"autoAccept":                 {"Gemini CLI", `"permission_mode": "acceptEdits"`, true},
	"tools":                      {"OpenCode", `rules under "permission" (a tool switched off is a "*" deny rule)`, true},
	"mcpServers":                 {"Claude Code, Cursor and Gemini CLI (.mcp.json)", `"mcp": {"servers": {…}} in this file, or keep "mcpServers" in the project's .mcp.json`, false},
	"mcp_servers":                {"Codex", `"mcp": {"servers": {…}}`, false},
	"model_provider":             {"Codex", `"model": "PROVIDER/MODEL" with a "provider" entry`, false},
	"model_providers":            {"Codex", `"provider": {"NAME": {"type": "openai", "base_url": …}}`, false},
	"shell_environment_policy":   {"Codex", `"child_env"`, false},
	"env":                        {"Claude Code", `"child_env": {"set": {…}}`, false},
	"agent":                      {"OpenCode", `"agents"`, false},
}

// peerHint returns the hint for an unknown key at pointer, and whether it is
// another agent's permission vocabulary. ok is false for keys not in the
// table (ordinary typos, which the schema's did-you-mean covers).
func peerHint(pointer string) (hint string, permission, ok bool) {
	toks, err := jsonpos.Split(pointer)
	if err != nil || len(toks) != 1 {
		return "", false, false
	}
	p, ok := peerKeys[toks[0]]
	if !ok {
		return "", false, false
	}
	var b strings.Builder
	b.WriteString("\"" + toks[0] + "\" is " + p.agent + "'s spelling; OceanCode's equivalent: " + p.ours)
	if p.permission {
		b.WriteString("; the file is not applied, because dropping another agent's permission settings would run under rules this file did not mean")
	}
	return b.String(), p.permission, true
}
