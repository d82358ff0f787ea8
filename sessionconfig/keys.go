package sessionconfig

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"

	"github.com/knadh/koanf/v2"

	"github.com/oceancode/oceancode/agent/childenv"
	"github.com/oceancode/oceancode/agent/mcp"
	"github.com/oceancode/oceancode/agent/sandbox"
	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/provenance"
)

// Type is a key's JSON Schema type.
type Type string

// The schema types a key can have.
const (
	String  Type = "string"
	Integer Type = "integer"
	Boolean Type = "boolean"
	Object  Type = "object"
	Array   Type = "array"
)

// Name stands for a name segment in a registered key's path: the agent of
// agents.NAME.permission_mode, the provider of provider.NAME. The schema
// test matches it against the object's patternProperties.
const Name = "*"

// Key is one configuration key the runtime reads, declared once in this
// file. TestRegistryMatchesSchema checks every one against the embedded
// config schema: the path exists, the type and the enum agree.
type Key interface {
	// Path is the dotted key (provenance.KeyPath form), e.g. limits.max_turns.
	Path() string
	// Segments are the path's segments; Name stands for a name in a
	// registered per-name key.
	Segments() []string
	Type() Type
	// Enum is the values the schema allows (nil: any of the type).
	Enum() []string
}

type spec struct {
	segs []string
	typ  Type
	enum []string
}

func (s spec) Path() string       { return provenance.KeyPath(s.segs...) }
func (s spec) Segments() []string { return s.segs }
func (s spec) Type() Type         { return s.typ }
func (s spec) Enum() []string     { return s.enum }

// named is the spec with each Name segment replaced by name, in order.
func (s spec) named(names ...string) spec {
	out := s
	out.segs = append([]string(nil), s.segs...)
	for i, seg := range out.segs {
		if seg == Name && len(names) > 0 {
			out.segs[i], names = names[0], names[1:]
		}
	}
	return out
}

// registry is every declared key, per-name keys with their Name segments.
var registry []Key

func register[K Key](k K) K {
	registry = append(registry, k)
	return k
}

// Registry returns every key the runtime reads, in declaration order.
func Registry() []Key { return append([]Key(nil), registry...) }

// StringKey is a string-valued key.
type StringKey struct{ spec }

// IntKey is an integer-valued key.
type IntKey struct{ spec }

// BoolKey is a boolean key.
type BoolKey struct{ spec }

// ListKey is a list of strings whose elements each carry their own origin.
type ListKey struct{ spec }

// ObjectKey is an object decoded into T through T's json field tags (the
// config's snake_case names).
type ObjectKey[T any] struct{ spec }

func stringKey(enum []string, segs ...string) StringKey {
	return register(StringKey{spec{segs: segs, typ: String, enum: enum}})
}
func intKey(segs ...string) IntKey   { return register(IntKey{spec{segs: segs, typ: Integer}}) }
func boolKey(segs ...string) BoolKey { return register(BoolKey{spec{segs: segs, typ: Boolean}}) }
func listKey(segs ...string) ListKey { return register(ListKey{spec{segs: segs, typ: Array}}) }
func objectKey[T any](segs ...string) ObjectKey[T] {
	return register(ObjectKey[T]{spec{segs: segs, typ: Object}})
}

// Value enumerations the schema declares.
var (
	permissionModes = []string{"default", "acceptEdits", "plan", "dontAsk", "bypassPermissions"}
	sandboxModes    = []string{"read-only", "workspace-write", "danger-full-access"}
	networkModes    = []string{"off", "allowlist", "on"}
)

// The keys. Per-name keys are reached through the functions below them.
var (
	Model          = stringKey(nil, "model")
	PermissionMode = stringKey(permissionModes, "permission_mode")

	Sandbox        = objectKey[sandbox.Policy]("sandbox")
	SandboxEnabled = boolKey("sandbox", "enabled")
	SandboxMode    = stringKey(sandboxModes, "sandbox", "mode")
	SandboxNetwork = stringKey(networkModes, "sandbox", "network")
	// SandboxAllowHosts is read through Sandbox; declared for its messages.
	SandboxAllowHosts = listKey("sandbox", "allow_hosts")

	ChildEnv = objectKey[childenv.Config]("child_env")

	ShellSafeListExtra = listKey("shell", "safe_list_extra")
	ShellAllow         = listKey("shell", "allow")
	ShellDeny          = listKey("shell", "deny")

	Refs = objectKey[map[string]string]("refs")

	LimitsMaxTurns  = intKey("limits", "max_turns")
	LimitsMaxTokens = intKey("limits", "max_tokens")
	LimitsTimeout   = intKey("limits", "timeout_s")

	// MCPServers is read through MCPServersOf, with ~/.claude.json and
	// the project's .mcp.json.
	MCPServers             = objectKey[map[string]mcp.Server]("mcp", "servers")
	MCPStartTimeout        = intKey("mcp", "startup_timeout_s")
	MCPCallTimeout         = intKey("mcp", "call_timeout_s")
	TelemetryEnabled       = boolKey("telemetry", "enabled")
	TelemetryIncludeInputs = boolKey("telemetry", "include_inputs")

	CheckpointsEnabled    = boolKey("checkpoints", "enabled")
	CheckpointsMaxMB      = intKey("checkpoints", "max_mb")
	CheckpointsMaxFileMB  = intKey("checkpoints", "max_file_mb")
	CheckpointsMaxAgeDays = intKey("checkpoints", "max_age_days")

	JEVPermissions = stringKey([]string{"shadow", "act"}, "jev", "permissions")

	// Hooks are hooks.EVENT, one per event, read through HooksOf.
	Hooks = hookKeys()

	InstructionsEnabled       = boolKey("instructions", "enabled")
	InstructionsMaxFileBytes  = intKey("instructions", "max_file_bytes")
	InstructionsMaxTotalBytes = intKey("instructions", "max_total_bytes")

	agentPermissionMode = stringKey(permissionModes, "agents", Name, "permission_mode")
	agentPrompt         = stringKey(nil, "agents", Name, "prompt")
	providerKey         = objectKey[ProviderSettings]("provider", Name)
)

// AgentPermissionMode is agents.NAME.permission_mode.
func AgentPermissionMode(name string) StringKey { return StringKey{agentPermissionMode.named(name)} }

// AgentPrompt is agents.NAME.prompt.
func AgentPrompt(name string) StringKey { return StringKey{agentPrompt.named(name)} }

// Provider is provider.NAME.
func Provider(name string) ObjectKey[ProviderSettings] {
	return ObjectKey[ProviderSettings]{providerKey.named(name)}
}

// ProviderSettings is one provider.NAME object.
type ProviderSettings struct {
	Type      string            `json:"type"`
	BaseURL   string            `json:"base_url"`
	APIKeyEnv string            `json:"api_key_env"`
	Headers   map[string]string `json:"headers"`
	Stream    *bool             `json:"stream"`
	// Models are the per-model settings (compaction.go).
	Models map[string]ModelSettings `json:"models"`
}

// entry is the key's resolved entry, nil when no layer sets it.
func entry(r *layers.Resolved, k Key) *provenance.Entry {
	if r == nil {
		return nil
	}
	return r.Entries[k.Path()]
}

func typeError(k Key, e *provenance.Entry) error {
	return fmt.Errorf("read %s: %s holds %s (%T), want %s", k.Path(), where(e.Origin), render(e.Value), e.Value, k.Type())
}

// where names an origin for an error: "env:OC_X" or "~/.config/…/config.json:3:5 (user)".
func where(o provenance.Origin) string {
	if loc := o.Location(); loc != "" {
		return loc
	}
	return o.Layer.String() + " layer"
}

// Get returns the key's value and where it came from; ok is false when no
// layer sets it. A value of another type is an error naming its origin.
func (k StringKey) Get(r *layers.Resolved) (v string, origin provenance.Origin, ok bool, err error) {
	e := entry(r, k)
	if e == nil {
		return "", provenance.Origin{}, false, nil
	}
	s, isString := e.Value.(string)
	if !isString {
		return "", e.Origin, false, typeError(k, e)
	}
	return s, e.Origin, true, nil
}

// Get returns the key's value and where it came from; ok is false when no
// layer sets it. A value that is not an integer is an error naming its origin.
func (k IntKey) Get(r *layers.Resolved) (v int, origin provenance.Origin, ok bool, err error) {
	e := entry(r, k)
	if e == nil {
		return 0, provenance.Origin{}, false, nil
	}
	switch x := e.Value.(type) {
	case json.Number:
		if n, err := x.Int64(); err == nil && n >= math.MinInt && n <= math.MaxInt {
			return int(n), e.Origin, true, nil
		}
	case int:
		return x, e.Origin, true, nil
	case int64:
		if x >= math.MinInt && x <= math.MaxInt {
			return int(x), e.Origin, true, nil
		}
	case float64:
		if x == math.Trunc(x) && x >= math.MinInt && x <= math.MaxInt {
			return int(x), e.Origin, true, nil
		}
	}
	return 0, e.Origin, false, typeError(k, e)
}

// Get returns the key's value and where it came from; ok is false when no
// layer sets it.
func (k BoolKey) Get(r *layers.Resolved) (v bool, origin provenance.Origin, ok bool, err error) {
	e := entry(r, k)
	if e == nil {
		return false, provenance.Origin{}, false, nil
	}
	b, isBool := e.Value.(bool)
	if !isBool {
		return false, e.Origin, false, typeError(k, e)
	}
	return b, e.Origin, true, nil
}

// Item is one element of a list key with the origin of the layer that
// contributed it.
type Item struct {
	Value  string
	Origin provenance.Origin
}

// Items returns the list's elements in merge order (none when unset). An
// element that is not a string is an error naming its origin.
func (k ListKey) Items(r *layers.Resolved) ([]Item, error) {
	if r == nil {
		return nil, nil
	}
	var out []Item
	for _, it := range r.Lists[k.Path()] {
		s, ok := it.Value.(string)
		if !ok {
			return nil, fmt.Errorf("read %s: %s holds %s (%T), want a string", k.Path(), where(it.Origin), render(it.Value), it.Value)
		}
		out = append(out, Item{Value: s, Origin: it.Origin})
	}
	return out, nil
}

// Values returns the list's elements without their origins.
func (k ListKey) Values(r *layers.Resolved) ([]string, error) {
	items, err := k.Items(r)
	var out []string
	for _, it := range items {
		out = append(out, it.Value)
	}
	return out, err
}

// Decode returns the object decoded into T; ok is false (and the value
// T's zero) when no layer sets any of it. A value that does not decode is
// an error naming the key and where its values came from.
func (k ObjectKey[T]) Decode(r *layers.Resolved) (v T, ok bool, err error) {
	if r == nil || r.K == nil {
		return v, false, nil
	}
	path := strings.Join(k.segs, layers.Delim)
	if !r.K.Exists(path) {
		return v, false, nil
	}
	if err := r.K.UnmarshalWithConf(path, &v, koanf.UnmarshalConf{Tag: "json"}); err != nil {
		var zero T
		return zero, false, fmt.Errorf("decode %s%s: %w", k.Path(), origins(r, k.Path()), err)
	}
	return v, true, nil
}

// goType is T, for the schema test's field check.
func (k ObjectKey[T]) goType() reflect.Type { return reflect.TypeFor[T]() }

// origins lists where the values below key came from: " (set in A, B)".
func origins(r *layers.Resolved, key string) string {
	seen := map[string]bool{}
	var locs []string
	for _, k := range r.Entries.Keys() {
		if !provenance.HasPrefix(k, key) {
			continue
		}
		if loc := where(r.Entries[k].Origin); !seen[loc] {
			seen[loc] = true
			locs = append(locs, loc)
		}
	}
	if len(locs) == 0 {
		return ""
	}
	return " (set in " + strings.Join(locs, ", ") + ")"
}

// Lookup returns the resolved value of a key named by data rather than by
// code — a requirements pin, which can name any key — and its origin. Code
// that reads a key it knows declares it above instead.
func Lookup(r *layers.Resolved, path string) (any, provenance.Origin, bool) {
	if r == nil {
		return nil, provenance.Origin{}, false
	}
	e := r.Entries[path]
	if e == nil {
		return nil, provenance.Origin{}, false
	}
	return e.Value, e.Origin, true
}

// EnumOf returns the values the schema allows for the registered key at
// path (nil when it is not registered or has no enum).
func EnumOf(path string) []string {
	for _, k := range registry {
		if k.Path() == path {
			return k.Enum()
		}
	}
	return nil
}

// Render shows a config value in a message: strings quoted, the rest as Go prints them.
func Render(v any) string { return render(v) }

func render(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprint(v)
}
