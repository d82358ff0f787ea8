package layers

import (
	"encoding/json"
	"slices"
	"strconv"
)

// TrustClass says what a project-layer key does to the session: tighten it
// (always applied), leave safety alone (neutral, always applied), or loosen
// it or run code (applied only in a trusted workspace).
type TrustClass int

// The classes. The zero value is Loosen: a key nobody classified is
// treated as one that loosens (fail closed).
const (
	Loosen TrustClass = iota
	Tighten
	Neutral
)

func (c TrustClass) String() string {
	switch c {
	case Tighten:
		return "tighten"
	case Neutral:
		return "neutral"
	}
	return "loosen"
}

// classRow classifies the keys a pattern matches ("*" matches one segment;
// subtree rows match every key below the pattern too). fn sees the value
// and returns the class and, for Loosen, what the key would do.
type classRow struct {
	pattern []string
	subtree bool
	fn      func(v any) (TrustClass, string)
}

func fixed(c TrustClass, why string) func(any) (TrustClass, string) {
	return func(any) (TrustClass, string) { return c, why }
}

// ruleClass: deny and ask rules tighten, allow rules loosen.
func ruleClass(v any) (TrustClass, string) {
	if a, ok := v.(string); ok && (a == "deny" || a == "ask") {
		return Tighten, ""
	}
	return Loosen, "an allow rule approves tool calls without asking"
}

// modeClass: plan and dontAsk are stricter than default, default changes
// nothing, the others approve more.
func modeClass(v any) (TrustClass, string) {
	switch v {
	case "plan", "dontAsk":
		return Tighten, ""
	case "default":
		return Neutral, ""
	}
	return Loosen, "a permission mode that approves more than default"
}

// whenTrue: a switch that loosens when on (true), tightens when off.
func whenTrue(why string) func(any) (TrustClass, string) {
	return func(v any) (TrustClass, string) {
		if v == false {
			return Tighten, ""
		}
		return Loosen, why
	}
}

// oneOf: the listed values tighten, any other loosens.
func oneOf(why string, tight ...string) func(any) (TrustClass, string) {
	return func(v any) (TrustClass, string) {
		if s, ok := v.(string); ok && slices.Contains(tight, s) {
			return Tighten, ""
		}
		return Loosen, why
	}
}

// classTable classifies every key of the config schema. layers'
// TestClassTableCoversSchema walks the schema and sessionconfig's
// TestRegistryKeysClassified the typed key registry: a key added to either
// without a row here fails them (and, until then, counts as Loosen).
var classTable = []classRow{
	{pattern: []string{"$schema"}, fn: fixed(Neutral, "")},
	{pattern: []string{"permission_mode"}, fn: modeClass},
	{pattern: []string{"permission", "*", "*"}, fn: ruleClass},
	{pattern: []string{"shell", "deny"}, fn: fixed(Tighten, "")},
	{pattern: []string{"shell", "allow"}, fn: fixed(Loosen, "shell allow rules approve commands without asking")},
	{pattern: []string{"shell", "safe_list_extra"}, fn: fixed(Loosen, "adds commands to the read-only safe list, which run without asking")},
	{pattern: []string{"child_env", "strip"}, fn: fixed(Tighten, "")},
	{pattern: []string{"child_env", "keep"}, fn: fixed(Loosen, "keeps secret-named variables in the commands' environment")},
	{pattern: []string{"child_env", "set"}, subtree: true, fn: fixed(Loosen, "sets variables in the commands' environment")},
	{pattern: []string{"sandbox", "enabled"}, fn: whenTrueInverse("turns the sandbox off")},
	{pattern: []string{"sandbox", "mode"}, fn: oneOf("runs commands outside the sandbox", "read-only", "workspace-write")},
	{pattern: []string{"sandbox", "deny"}, fn: fixed(Tighten, "")},
	{pattern: []string{"sandbox", "deny_read"}, fn: fixed(Tighten, "")},
	{pattern: []string{"sandbox", "writable"}, fn: fixed(Loosen, "makes more paths writable inside the sandbox")},
	{pattern: []string{"sandbox", "network"}, fn: oneOf("opens the sandbox's network", "off")},
	{pattern: []string{"sandbox", "allow_hosts"}, fn: fixed(Loosen, "lets commands reach more hosts")},
	{pattern: []string{"sandbox", "limits", "processes"}, fn: atMost("sandbox.limits.processes", "lets sandboxed commands start more processes")},
	{pattern: []string{"sandbox", "limits", "address_space_mb"}, fn: atMost("sandbox.limits.address_space_mb", "lets sandboxed commands use more memory")},
	{pattern: []string{"sandbox", "limits", "file_size_mb"}, fn: atMost("sandbox.limits.file_size_mb", "lets sandboxed commands write larger files")},
	{pattern: []string{"sandbox", "limits", "open_files"}, fn: atMost("sandbox.limits.open_files", "lets sandboxed commands open more files")},
	{pattern: []string{"refs"}, subtree: true, fn: fixed(Loosen, "reference aliases open directories outside the project without asking")},
	{pattern: []string{"mcp", "servers"}, subtree: true, fn: fixed(Loosen, "an MCP server runs a program when the session opens")},
	{pattern: []string{"mcp", "startup_timeout_s"}, fn: fixed(Neutral, "")},
	{pattern: []string{"mcp", "call_timeout_s"}, fn: fixed(Neutral, "")},
	{pattern: []string{"jev", "enabled"}, fn: whenTrue("turns the Jev advisor on")},
	{pattern: []string{"jev", "permissions"}, fn: oneOf("lets the Jev advisor approve commands", "shadow")},
	{pattern: []string{"jev", "deadline_ms"}, fn: atMost("jev.deadline_ms", "in act mode, waits longer for advice, so the advisor approves more commands unasked")},
	{pattern: []string{"provider"}, subtree: true, fn: fixed(Loosen, "a provider endpoint receives the conversation and the code")},
	{pattern: []string{"model"}, fn: fixed(Loosen, "chooses the provider that receives the conversation and the code")},
	{pattern: []string{"agents", "*", "description"}, fn: fixed(Neutral, "")},
	{pattern: []string{"agents", "*", "mode"}, fn: fixed(Neutral, "")},
	{pattern: []string{"agents", "*", "prompt"}, fn: fixed(Neutral, "")},
	{pattern: []string{"agents", "*", "model"}, fn: fixed(Loosen, "chooses the provider that receives the conversation and the code")},
	{pattern: []string{"agents", "*", "tools"}, fn: fixed(Loosen, "names the tools the agent is offered")},
	{pattern: []string{"agents", "*", "permission_mode"}, fn: modeClass},
	{pattern: []string{"agents", "*", "permission", "*", "*"}, fn: ruleClass},
	{pattern: []string{"limits", "max_turns"}, fn: atMost("limits.max_turns", "lets a task run more model turns, each acting on its own")},
	{pattern: []string{"limits", "timeout_s"}, fn: fixed(Tighten, "")},
	{pattern: []string{"limits", "max_tokens"}, fn: fixed(Neutral, "")},
	{pattern: []string{"compaction"}, subtree: true, fn: fixed(Neutral, "")},
	{pattern: []string{"telemetry", "enabled"}, fn: whenTrue("sends telemetry out")},
	{pattern: []string{"telemetry", "include_inputs"}, fn: whenTrue("puts tool inputs into telemetry")},
	{pattern: []string{"hooks"}, subtree: true, fn: fixed(Loosen, "a hook runs a program at the session's events and can approve tool calls")},
	// Instruction files are prompt text, never policy (docs/instructions.md).
	{pattern: []string{"instructions", "enabled"}, fn: fixed(Neutral, "")},
	{pattern: []string{"instructions", "max_file_bytes"}, fn: fixed(Neutral, "")},
	{pattern: []string{"instructions", "max_total_bytes"}, fn: fixed(Neutral, "")},
	{pattern: []string{"checkpoints", "enabled"}, fn: whenTrueInverse("turns checkpoints off, so the agent's changes cannot be undone")},
	{pattern: []string{"checkpoints", "max_mb"}, fn: fixed(Neutral, "")},
	{pattern: []string{"checkpoints", "max_file_mb"}, fn: fixed(Neutral, "")},
	{pattern: []string{"checkpoints", "max_age_days"}, fn: fixed(Neutral, "")},
}

// BoundDefaults are the built-in values of the bounds a project may only
// lower: a value at or below the default tightens, one above it loosens.
// sessionconfig's TestBoundDefaults checks them against the runtime's
// (agent/sandbox.DefaultLimits, agent/jev.DefaultDeadline; max_turns is
// agent.Config's 50). A bound with no default (limits.timeout_s) always
// tightens.
var BoundDefaults = map[string]int64{
	"sandbox.limits.processes":        1024,
	"sandbox.limits.address_space_mb": 16384,
	"sandbox.limits.file_size_mb":     8192,
	"sandbox.limits.open_files":       4096,
	"jev.deadline_ms":                 1500,
	"limits.max_turns":                50,
}

// atMost: the bound named key tightens at or below its built-in default
// (BoundDefaults) and loosens above it, or when it is not a positive
// integer (zero or less means the default or unlimited to the runtime).
func atMost(key, why string) func(any) (TrustClass, string) {
	def, ok := BoundDefaults[key]
	if !ok {
		panic("layers: no BoundDefaults entry for " + key)
	}
	return func(v any) (TrustClass, string) {
		if n, ok := intOf(v); ok && n >= 1 && n <= def {
			return Tighten, ""
		}
		return Loosen, why + " (above the default " + strconv.FormatInt(def, 10) + ")"
	}
}

// intOf returns v as an integer, when it is one.
func intOf(v any) (int64, bool) {
	switch n := v.(type) {
	case json.Number:
		i, err := n.Int64()
		return i, err == nil
	case int:
		return int64(n), true
	case int64:
		return n, true
	case float64:
		if n == float64(int64(n)) {
			return int64(n), true
		}
	}
	return 0, false
}

// whenTrueInverse is whenTrue for a switch whose "on" tightens: true
// tightens, anything else loosens.
func whenTrueInverse(why string) func(any) (TrustClass, string) {
	return func(v any) (TrustClass, string) {
		if v == true {
			return Tighten, ""
		}
		return Loosen, why
	}
}

// rowFor returns the table row for a key path, or nil.
func rowFor(path []string) *classRow {
	for i := range classTable {
		r := &classTable[i]
		n := len(r.pattern)
		if len(path) < n || (!r.subtree && len(path) != n) {
			continue
		}
		if matchSegs(r.pattern, path[:n]) {
			return r
		}
	}
	return nil
}

func matchSegs(pattern, path []string) bool {
	for i, p := range pattern {
		if p != "*" && p != path[i] {
			return false
		}
	}
	return true
}

// Classify returns what a project-layer leaf key (its path segments, a rule
// map's pattern included) with value v does, and for Loosen why. A key with
// no row loosens.
func Classify(path []string, v any) (TrustClass, string) {
	r := rowFor(path)
	if r == nil {
		return Loosen, "not classified, so treated as loosening"
	}
	return r.fn(v)
}

// Classified reports whether the key at path (segments; "*" for a name)
// has a row of its own or is inside a subtree row, or whether rows exist
// for keys below it (an object key).
func Classified(path []string) bool {
	if rowFor(path) != nil {
		return true
	}
	for _, r := range classTable {
		if len(r.pattern) > len(path) && matchSegs(path, r.pattern[:len(path)]) {
			return true
		}
	}
	return false
}
