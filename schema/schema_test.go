package schema

import (
	"encoding/json"
	"errors"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/oceancode/oceancode/internal/jsonpos"
)

func TestSchemasCompile(t *testing.T) {
	for _, k := range Kinds() {
		src, err := Source(k)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(src, &doc); err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		if doc["$id"] != k.ID() || doc["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
			t.Errorf("%s: $id = %v, $schema = %v", k, doc["$id"], doc["$schema"])
		}
		if n, err := schemaFor(k); err != nil || n == nil {
			t.Errorf("schemaFor(%s) = %v, %v", k, n, err)
		}
		// The reference library accepts the same text (it also checks it against the metaschema).
		if s, err := Compiled(k); err != nil || s == nil {
			t.Errorf("Compiled(%s) = %v, %v", k, s, err)
		}
	}
	// Patterns are compiled on first use; every one of them must compile.
	if err := checkPatterns(load().nodes); err != nil {
		t.Error(err)
	}
	if _, err := schemaFor("nope"); err == nil {
		t.Error("schemaFor(nope) succeeded")
	}
	if _, err := Compiled("nope"); err == nil {
		t.Error("Compiled(nope) succeeded")
	}
	if vs := ValidateValue("nope", "f.json", &jsonpos.Doc{}); len(vs) != 1 || vs[0].Keyword != "$schema" {
		t.Errorf("ValidateValue(nope) = %v, want one $schema violation", vs)
	}
	if _, err := Source("nope"); err == nil {
		t.Error("Source(nope) succeeded")
	}
}

// walk calls fn for every object in the schema documents, with its JSON Pointer.
func walk(t *testing.T, fn func(k Kind, ptr string, m map[string]any)) {
	t.Helper()
	var rec func(k Kind, ptr []string, v any)
	rec = func(k Kind, ptr []string, v any) {
		switch x := v.(type) {
		case map[string]any:
			fn(k, jsonpos.Pointer(ptr...), x)
			for key, sub := range x {
				rec(k, append(slices.Clone(ptr), key), sub)
			}
		case []any:
			for i, sub := range x {
				rec(k, append(slices.Clone(ptr), string(rune('0'+i))), sub)
			}
		}
	}
	c := load()
	for _, k := range Kinds() {
		rec(k, nil, c.raw[k.ID()])
	}
}

// TestDecodeMatchesJSONPos checks the compiler's decoder of the embedded documents against jsonpos,
// which parses user files.
func TestDecodeMatchesJSONPos(t *testing.T) {
	for _, k := range Kinds() {
		src, err := Source(k)
		if err != nil {
			t.Fatal(err)
		}
		want, err := jsonpos.Parse(src, jsonpos.Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeSchemaDoc(string(src))
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		if diff := cmp.Diff(want.Value, got); diff != "" {
			t.Errorf("%s: decoded documents differ (-jsonpos +ours):\n%s", k, diff)
		}
	}
	for _, in := range []string{`{"a": "\u00e9\"\/\n", "b": [1, -2.5e3, true, false, null, {}], "c": "é"}`, "[]", `"x"`, "-0",
		`"\b\f\n\r\t\\\/\"x"`, `"\ud83c\udf0a"`, `"\ud83c"`, `"\udf0a\ud83c"`, `"\ud83cx\u0041"`, `"\ud83c\u0041"`, `"a\u0000b"`, `"\u00E9\u00e9"`} {
		want, err := jsonpos.Parse([]byte(in), jsonpos.Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeSchemaDoc(in)
		if err != nil || !cmp.Equal(want.Value, got) {
			t.Errorf("decodeSchemaDoc(%s) = %#v, %v; want %#v", in, got, err, want.Value)
		}
	}
	for _, in := range []string{``, `{`, `{"a" 1}`, `{"a": 1,}`, `[1,]`, `{"a": 1, "a": 2}`, `01`, `1.`, `"\x"`, "\"a\x01\"", `tru`, `{} x`, "\"\xff\"",
		`"\u12"`, `"\u12g4"`, `"a\`, `"\"`, "\"\\u00e9\x01\""} {
		if v, err := decodeSchemaDoc(in); err == nil {
			t.Errorf("decodeSchemaDoc(%q) = %#v, want an error", in, v)
		}
	}
}

func TestAnnotations(t *testing.T) {
	c := load()
	walk(t, func(k Kind, ptr string, m map[string]any) {
		if v, ok := m["x-merge"]; ok {
			if s, _ := v.(string); s != string(Replace) && s != string(Append) && s != string(Union) {
				t.Errorf("%s#%s: x-merge %v is not replace, append or union", k, ptr, v)
			}
		}
		if pm, ok := m["x-pattern-message"]; ok && m["pattern"] == nil {
			t.Errorf("%s#%s: x-pattern-message %q without pattern", k, ptr, pm)
		}
		if km, ok := m["x-key-pattern-message"]; ok && m["patternProperties"] == nil {
			t.Errorf("%s#%s: x-key-pattern-message %q without patternProperties", k, ptr, km)
		}
		// Every property is described (they become the docs).
		if props, ok := m["properties"].(map[string]any); ok && !strings.Contains(ptr, "/properties/properties") {
			for name, p := range props {
				n := rawNode{doc: k.ID(), m: p.(map[string]any)}
				if _, _, ok := c.find(n, "description"); !ok {
					t.Errorf("%s#%s/properties/%s has no description", k, ptr, name)
				}
			}
		}
	})
}

func TestManagedHasConfigKeys(t *testing.T) {
	c := load()
	keys := func(k Kind) []string {
		props := c.raw[k.ID()].(map[string]any)["properties"].(map[string]any)
		var out []string
		for p := range props {
			out = append(out, p)
		}
		sort.Strings(out)
		return out
	}
	cfg := keys(Config)
	if diff := cmp.Diff(cfg, keys(Managed)); diff != "" {
		t.Errorf("managed keys differ from config keys (-config +managed):\n%s", diff)
	}
	// The pins key pattern names exactly the config keys.
	pins := c.raw[Requirements.ID()].(map[string]any)["properties"].(map[string]any)["pins"].(map[string]any)
	var pat string
	for p := range pins["patternProperties"].(map[string]any) {
		pat = p
	}
	alt := regexp.MustCompile(`^\^\(([^)]*)\)`).FindStringSubmatch(pat)
	if alt == nil {
		t.Fatalf("pins pattern %q has no key alternation", pat)
	}
	pinKeys := strings.Split(alt[1], "|")
	sort.Strings(pinKeys)
	want := slices.DeleteFunc(slices.Clone(cfg), func(s string) bool { return s == "$schema" })
	if diff := cmp.Diff(want, pinKeys); diff != "" {
		t.Errorf("pins pattern keys differ from config keys (-config +pins):\n%s", diff)
	}
}

func TestMergeOf(t *testing.T) {
	tests := []struct {
		path []string
		want Merge
	}{
		{nil, Replace},
		{[]string{"permission"}, Append},
		{[]string{"permission", "bash"}, Append},
		{[]string{"permission", "bash", "git status"}, Append},
		{[]string{"permission", "external_directory"}, Append},
		{[]string{"shell", "allow"}, Append},
		{[]string{"shell", "deny"}, Append},
		{[]string{"shell", "safe_list_extra"}, Union},
		{[]string{"shell"}, Replace},
		{[]string{"sandbox", "deny"}, Union},
		{[]string{"sandbox", "deny_read"}, Union},
		{[]string{"sandbox", "writable"}, Union},
		{[]string{"sandbox", "allow_hosts"}, Union},
		{[]string{"sandbox", "mode"}, Replace},
		{[]string{"sandbox", "limits", "processes"}, Replace},
		{[]string{"child_env", "strip"}, Union},
		{[]string{"child_env", "keep"}, Union},
		{[]string{"child_env", "set", "CI"}, Replace},
		{[]string{"agents", "reviewer", "permission", "edit"}, Append},
		{[]string{"agents", "reviewer", "permission", "bash", "git log:*"}, Append},
		{[]string{"agents", "reviewer", "tools"}, Replace},
		{[]string{"mcp", "servers", "github", "args"}, Replace},
		{[]string{"model"}, Replace},
		{[]string{"no_such_key", "x"}, Replace},
		{[]string{"sandbox", "deny", "0"}, Union},
	}
	for _, tt := range tests {
		if got := MergeOf(tt.path); got != tt.want {
			t.Errorf("MergeOf(%q) = %s, want %s", tt.path, got, tt.want)
		}
	}
}

func TestExamplesValid(t *testing.T) {
	tests := []struct {
		file  string
		kinds []Kind
	}{
		{"testdata/config.json", []Kind{Config, Managed}},
		{"testdata/managed.json", []Kind{Managed, Config}},
		{"testdata/requirements.json", []Kind{Requirements}},
		{"testdata/policy.json", []Kind{Requirements}},
		{"testdata/empty.json", []Kind{Config, Managed}},
	}
	for _, tt := range tests {
		data, err := os.ReadFile(tt.file)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range tt.kinds {
			vs, err := Validate(k, tt.file, data)
			if err != nil {
				t.Errorf("%s as %s: %v", tt.file, k, err)
			}
			for _, v := range vs {
				t.Errorf("%s as %s: %v", tt.file, k, v)
			}
		}
	}
}

type want struct {
	ptr       string
	line, col int
	keyword   string
	msg       string
	unknown   bool
}

// violationCases are documents with known violations; the differential test replays them too.
var violationCases = []struct {
	name string
	kind Kind
	in   string
	want []want
}{
	{
		name: "wrong type",
		kind: Config,
		in: `{
  "shell": { "allow": "Bash(ls)" },
  "sandbox": { "enabled": "yes", "network": true },
  "agents": { "r": { "tools": "read" } },
  "permission": { "read": 5 }
}`,
		want: []want{
			{"/shell/allow", 2, 14, "type", `expected an array of strings, got a string`, false},
			{"/sandbox/enabled", 3, 16, "type", `expected true or false, got a string`, false},
			{"/sandbox/network", 3, 34, "type", `expected "off", "allowlist" or "on", got true`, false},
			{"/agents/r/tools", 4, 22, "type", `expected an array of strings, got a string`, false},
			{"/permission/read", 5, 19, "type", `expected "allow", "ask" or "deny", or an object, got the integer 5`, false},
		},
	},
	{
		name: "bad enum",
		kind: Config,
		in: `{
  "permission_mode": "auto",
  "sandbox": { "mode": "off" },
  "permission": { "bash": { "*": "ask", "git status": "allw" } },
  "jev": { "permissions": "enforce" }
}`,
		want: []want{
			{"/permission_mode", 2, 3, "enum", `"permission_mode" must be one of default, acceptEdits, plan, dontAsk, bypassPermissions; got "auto"`, false},
			{"/sandbox/mode", 3, 16, "enum", `"sandbox.mode" must be one of read-only, workspace-write, danger-full-access; got "off"`, false},
			{"/permission/bash/git status", 4, 41, "enum", `"permission.bash["git status"]" must be one of allow, ask, deny; got "allw"`, false},
			{"/jev/permissions", 5, 12, "enum", `"jev.permissions" must be one of shadow, act; got "enforce"`, false},
		},
	},
	{
		name: "unknown keys at top and nested",
		kind: Managed,
		in: `{
  "permision_mode": "plan",
  "sandbox": {
    "mdoe": "read-only",
    "limits": { "procs": 10 }
  },
  "mcp": { "servers": { "a": { "command": "x", "url": "https://x" } } }
}`,
		want: []want{
			{"/permision_mode", 2, 3, "additionalProperties", `unknown key "permision_mode" (did you mean "permission_mode"? allowed: $schema, agents, checkpoints, child_env, compaction, hooks, instructions, jev, limits, mcp, model, permission, permission_mode, provider, refs, sandbox, shell, telemetry)`, true},
			{"/sandbox/mdoe", 4, 5, "additionalProperties", `unknown key "mdoe" (did you mean "mode"? allowed: allow_hosts, deny, deny_read, enabled, limits, mode, network, writable)`, true},
			{"/sandbox/limits/procs", 5, 17, "additionalProperties", `unknown key "procs" (allowed: address_space_mb, file_size_mb, open_files, processes)`, true},
			{"/mcp/servers/a/url", 7, 48, "additionalProperties", `unknown key "url" (allowed: args, command, enabled, env)`, true},
		},
	},
	{
		name: "float where int, ranges",
		kind: Config,
		in: `{
  "sandbox": { "limits": { "processes": 1.5, "open_files": 2 } },
  "jev": { "deadline_ms": 10 },
  "limits": { "max_turns": 0, "timeout_s": 1e400 }
}`,
		want: []want{
			{"/sandbox/limits/processes", 2, 28, "type", `expected an integer, got the number 1.5`, false},
			{"/sandbox/limits/open_files", 2, 46, "minimum", `"sandbox.limits.open_files" must be at least 16; got 2`, false},
			{"/jev/deadline_ms", 3, 12, "minimum", `"jev.deadline_ms" must be at least 50; got 10`, false},
			{"/limits/max_turns", 4, 15, "minimum", `"limits.max_turns" must be at least 1; got 0`, false},
		},
	},
	{
		name: "provider, model, maps",
		kind: Config,
		in: `{
  "provider": { "local": { "base_url": "ftp://x" } },
  "model": "gpt",
  "permission": { "Edit": "allow" },
  "mcp": { "servers": { "b": {}, "e/f": { "command": "y" } } },
  "child_env": { "set": { "1X": "y" } }
}`,
		want: []want{
			{"/provider/local", 2, 17, "required", `missing required key "type" in "provider.local"`, false},
			{"/provider/local/base_url", 2, 28, "pattern", `"provider.local.base_url" must be an http:// or https:// URL; got "ftp://x"`, false},
			{"/model", 3, 3, "pattern", `"model" must be PROVIDER/MODEL, e.g. "anthropic/claude-sonnet-4"; got "gpt"`, false},
			{"/permission/Edit", 4, 19, "propertyNames", `key "Edit" in "permission" must be a lower-case tool key such as bash, edit, read, webfetch, mcp or external_directory`, false},
			{"/mcp/servers/b", 5, 25, "required", `missing required key "command" or "url" in "mcp.servers.b"`, false},
			{"/mcp/servers/e~1f", 5, 34, "propertyNames", `key "e/f" in "mcp.servers" must be a non-empty server name without '/'`, false},
			{"/child_env/set/1X", 6, 27, "propertyNames", `key "1X" in "child_env.set" must be an environment variable name (letters, digits and _, not starting with a digit)`, false},
		},
	},
	{
		name: "not an object",
		kind: Config,
		in:   `["sandbox"]`,
		want: []want{{"", 1, 1, "type", `expected an object, got an array`, false}},
	},
	{
		name: "requirements",
		kind: Requirements,
		in: `{
  "schema_version": 2,
  "serial": 9007199254740992,
  "issued_at": "yesterday",
  "threshold": 1.0e1,
  "allowed_permission_modes": ["default", "default"],
  "min_sandbox_mode": "none",
  "mcp": { "allowed_servers": [ { "name": "x", "command": "rel/path" }, { "name": "y", "url": "https://x", "sha256": "ab" } ] },
  "pins": { "sandox.mode": "x", "sandbox.mode": "read-only" },
  "rules": { "allow": ["Bash(ls)"], "deny": ["curl *"] }
}`,
		want: []want{
			{"/schema_version", 2, 3, "const", `"schema_version" must be 1; got 2`, false},
			{"/serial", 3, 3, "maximum", `"serial" must be at most 9007199254740991; got 9007199254740992`, false},
			{"/issued_at", 4, 3, "format", `"issued_at" must be an RFC 3339 date-time such as "2026-11-29T12:00:00Z"; got "yesterday"`, false},
			{"/allowed_permission_modes/1", 6, 43, "uniqueItems", `"allowed_permission_modes" lists the same value twice (items 0 and 1)`, false},
			{"/min_sandbox_mode", 7, 3, "enum", `"min_sandbox_mode" must be one of read-only, workspace-write, danger-full-access; got "none"`, false},
			{"/mcp/allowed_servers/0/command", 8, 48, "pattern", `"mcp.allowed_servers[0].command" must be an absolute path (the command's identity); got "rel/path"`, false},
			{"/mcp/allowed_servers/1/sha256", 8, 108, "additionalProperties", `unknown key "sha256" (allowed: name, url)`, true},
			{"/pins/sandox.mode", 9, 13, "propertyNames", `key "sandox.mode" in "pins" must be a dotted config key path starting with a config key (permission_mode, permission, shell, child_env, sandbox, refs, mcp, jev, provider, model, agents, limits, compaction, telemetry, hooks, instructions, checkpoints)`, false},
			{"/rules/allow", 10, 14, "additionalProperties", `unknown key "allow": requirements can only narrow: use deny or ask`, true},
			{"/rules/deny/0", 10, 46, "pattern", `"rules.deny[0]" must be a Tool(pattern) rule such as "Bash(git push:*)" or "Edit(src/**)"; got "curl *"`, false},
		},
	},
	{
		name: "requirements missing version",
		kind: Requirements,
		in:   `{"org": "acme", "mcp": {"allowed_servers": [{}]}}`,
		want: []want{
			{"", 1, 1, "required", `missing required key "schema_version"`, false},
			{"/mcp/allowed_servers/0", 1, 45, "required", `missing required key "command" in "mcp.allowed_servers[0]"`, false},
			{"/mcp/allowed_servers/0", 1, 45, "required", `missing required key "name" in "mcp.allowed_servers[0]"`, false},
		},
	},
}

func TestViolations(t *testing.T) {
	for _, tt := range violationCases {
		t.Run(tt.name, func(t *testing.T) {
			vs, err := Validate(tt.kind, "f.json", []byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			var got []want
			for _, v := range vs {
				if v.File != "f.json" {
					t.Errorf("File = %q", v.File)
				}
				got = append(got, want{v.Pointer, v.Line, v.Column, v.Keyword, v.Message, v.UnknownKey})
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("violations mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestViolationError(t *testing.T) {
	v := Violation{File: "/etc/oceancode/managed.json", Pointer: "/sandbox/mode", Line: 3, Column: 5, Message: "msg"}
	if got, want := v.Error(), "/etc/oceancode/managed.json:3:5: /sandbox/mode: msg"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestValidateParseErrors(t *testing.T) {
	tests := []struct {
		in, msg string
		target  any
	}{
		{"{\n  \"sandbox\": {\"mode\": \"read-only\",}\n}", `m.json:2:35: trailing comma before '}'`, new(*jsonpos.SyntaxError)},
		{"{\n  \"model\": \"a/b\",\n  \"model\": \"c/d\"\n}", `m.json:3:3: duplicate key "model" (first defined at line 2, column 3)`, new(*jsonpos.DuplicateKeyError)},
		{`{} {}`, `m.json:1:4: unexpected character '{' after the top-level value (only one JSON value is allowed)`, new(*jsonpos.SyntaxError)},
	}
	for _, tt := range tests {
		vs, err := Validate(Managed, "m.json", []byte(tt.in))
		if err == nil || vs != nil {
			t.Errorf("Validate(%q) = %v, %v; want an error", tt.in, vs, err)
			continue
		}
		if err.Error() != tt.msg {
			t.Errorf("Validate(%q) error = %q, want %q", tt.in, err, tt.msg)
		}
		if !errors.As(err, tt.target) {
			t.Errorf("Validate(%q) error %T does not wrap %T", tt.in, err, tt.target)
		}
	}
}

func BenchmarkValidateConfig(b *testing.B) {
	data, err := os.ReadFile("testdata/config.json")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := schemaFor(Config); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		vs, err := Validate(Config, "config.json", data)
		if err != nil || len(vs) != 0 {
			b.Fatal(err, vs)
		}
	}
}

// BenchmarkCompile measures what the first Validate of a process pays for the schemas: parsing the three
// embedded documents and compiling them.
func BenchmarkCompile(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if c := compileEmbedded(); c.err != nil {
			b.Fatal(c.err)
		}
	}
}

func TestIsIdent(t *testing.T) {
	re := regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	for _, s := range []string{"", "a", "_", "A9", "9a", "a-b", "a b", "é", "aé", "a\n", "\xff", "abc_DEF_123", "_0", "0", "a.b", "Z"} {
		if got, want := isIdent(s), re.MatchString(s); got != want {
			t.Errorf("isIdent(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestCompilesOnlyWhatIsUsed: a document is decoded when it is first validated against or referred to.
func TestCompilesOnlyWhatIsUsed(t *testing.T) {
	var decoded []string
	c := newCompiler(map[string]any{}, func(id string) (any, bool, error) {
		decoded = append(decoded, fileName(id))
		return decodeEmbedded(id)
	})
	for _, step := range []struct {
		k    Kind
		want []string
	}{
		{Config, []string{"config.schema.json"}},
		{Managed, []string{"config.schema.json", "managed.schema.json"}},
		{Config, []string{"config.schema.json", "managed.schema.json"}},
		{Requirements, []string{"config.schema.json", "managed.schema.json", "requirements.schema.json"}},
	} {
		if err := c.compileDoc(step.k.ID()); err != nil {
			t.Fatal(err)
		}
		if err := c.checkCycles(); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(decoded, step.want) {
			t.Errorf("after %s: decoded %v, want %v", step.k, decoded, step.want)
		}
	}
	// A document compiled on its own has the same schemas as one compiled with the others.
	fresh := newCompiler(map[string]any{}, decodeEmbedded)
	if err := fresh.compileDoc(Requirements.ID()); err != nil {
		t.Fatal(err)
	}
	for loc := range fresh.nodes {
		if c.nodes[loc] == nil {
			t.Errorf("%s compiled alone but not together", loc)
		}
	}
	if s := c.snapshot(nil); len(s.raw) != 3 || len(s.roots) != 3 {
		t.Errorf("snapshot has %d documents and %d roots", len(s.raw), len(s.roots))
	}
}

// TestConcurrentFirstUse validates against every kind from several goroutines in a process that has
// compiled nothing yet (run it with -race).
func TestConcurrentFirstUse(t *testing.T) {
	loadMu.Lock()
	savedCompiler, savedCurrent := embedded, current.Load()
	embedded = nil
	current.Store(nil)
	loadMu.Unlock()
	defer func() {
		loadMu.Lock()
		embedded = savedCompiler
		current.Store(savedCurrent)
		loadMu.Unlock()
	}()
	docs := map[Kind]string{
		Config:       `{"sandbox": {"mode": "read-only", "deny": [".git"]}, "permission": {"bash": {"git *": "allow"}}}`,
		Managed:      `{"permission_mode": "plan", "sandbox": {"mode": "nope"}}`,
		Requirements: `{"schema_version": 1, "pins": {"sandbox.mode": "read-only"}, "rules": {"deny": ["Bash(rm:*)"]}}`,
	}
	var wg sync.WaitGroup
	for i := range 12 {
		k := Kinds()[i%3]
		wg.Add(1)
		go func() {
			defer wg.Done()
			vs, err := Validate(k, "f.json", []byte(docs[k]))
			if err != nil || (k == Managed) != (len(vs) == 1) {
				t.Errorf("%s: %v, %v", k, vs, err)
			}
			_ = MergeOf([]string{"sandbox", "deny"})
		}()
	}
	wg.Wait()
}
