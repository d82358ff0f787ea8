package schema

// Differential tests: this package's validator against the reference library (oracle_test.go). For every
// document both must agree on valid vs invalid, on the set of instance locations of the errors and on
// every detail of every error (kind, location, schema object, values; a failed oneOf/anyOf alternative by
// alternative), and the reporter must produce the same violations from both.

import (
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/oceancode/oceancode/internal/jsonpos"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

var allMutations = flag.Bool("differential.all", false, "TestDifferential: replace every value of the test files by every sample (about 65,000 documents) instead of 8 samples per value")

// differ compares both validators on doc; it returns "" when they agree and whether the library gave no
// verdict (it panicked).
func differ(c *compiled, lib *jsonschema.Schema, root *node, doc *jsonpos.Doc) (diff string, skipped bool) {
	if slowForLibrary(doc.Value) {
		return "", true
	}
	ours := evaluate(root, doc.Value)
	theirs, panicked, err := oracleValidate(c, lib, doc.Value)
	if panicked {
		return "", true
	}
	if err != nil {
		return "library: " + err.Error(), false
	}
	if (len(ours) == 0) != (len(theirs) == 0) {
		return fmt.Sprintf("valid: ours %v, library %v\nours:\n%s\nlibrary:\n%s", len(ours) == 0, len(theirs) == 0,
			strings.Join(render(ours), "\n"), strings.Join(render(theirs), "\n")), false
	}
	if d := cmp.Diff(locations(theirs), locations(ours)); d != "" {
		return "instance locations differ (-library +ours):\n" + d, false
	}
	if d := cmp.Diff(render(theirs), render(ours)); d != "" {
		return "errors differ (-library +ours):\n" + d, false
	}
	if len(ours) > 0 {
		if d := cmp.Diff(report(c, doc, "f.json", theirs), report(c, doc, "f.json", ours)); d != "" {
			return "violations differ (-library +ours):\n" + d, false
		}
	}
	return "", false
}

// slowForLibrary reports whether v holds a number the library would spend milliseconds on (math/big
// builds 10^exp for exponents up to 1e6); TestDecimalMatchesBigRat covers those numbers instead.
func slowForLibrary(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			if slowForLibrary(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if slowForLibrary(e) {
				return true
			}
		}
	case json.Number:
		d, _ := numberOf(x)
		return !d.refused && (d.exp > 2000 || d.exp < -2000)
	}
	return false
}

// target is a schema both validators validate against: one of the embedded documents or one of their
// $defs entries.
type target struct {
	name string
	ours *node
	lib  *jsonschema.Schema
}

var (
	targetsOnce sync.Once
	targetList  []target
	targetsErr  error
)

// targets returns the three embedded schemas (in Kinds order) followed by every $defs entry of the
// embedded documents, each compiled by both validators.
func targets(t testing.TB) (*compiled, []target) {
	t.Helper()
	c := load()
	if c.err != nil {
		t.Fatal(c.err)
	}
	targetsOnce.Do(func() {
		var names, locs []string
		for _, k := range Kinds() {
			names = append(names, string(k))
			locs = append(locs, k.ID())
		}
		for _, k := range Kinds() {
			defs, _ := c.raw[k.ID()].(map[string]any)["$defs"].(map[string]any)
			for _, d := range slices.Sorted(maps.Keys(defs)) {
				names = append(names, k.FileName()+"#/$defs/"+d)
				locs = append(locs, k.ID()+"#/$defs/"+d)
			}
		}
		libs, err := oracleCompile(c.raw, locs...)
		if err != nil {
			targetsErr = err
			return
		}
		for i, loc := range locs {
			if !strings.Contains(loc, "#") {
				loc += "#"
			}
			n := c.nodes[loc]
			if n == nil {
				targetsErr = fmt.Errorf("no compiled schema at %s", loc)
				return
			}
			targetList = append(targetList, target{name: names[i], ours: n, lib: libs[locs[i]]})
		}
	})
	if targetsErr != nil {
		t.Fatal(targetsErr)
	}
	return c, targetList
}

// tally counts documents by outcome.
type tally struct{ docs, invalid, skipped int }

func (ty *tally) check(t *testing.T, c *compiled, lib *jsonschema.Schema, root *node, label string, data []byte) {
	t.Helper()
	doc, err := jsonpos.Parse(data, jsonpos.Options{})
	if err != nil {
		return
	}
	ty.docs++
	d, skipped := differ(c, lib, root, doc)
	if skipped {
		ty.skipped++
		return
	}
	if len(evaluate(root, doc.Value)) > 0 {
		ty.invalid++
	}
	if d != "" {
		t.Errorf("%s: validators disagree on\n%s\n%s", label, data, d)
	}
}

func testdataFiles(t testing.TB) map[string][]byte {
	t.Helper()
	paths, err := filepath.Glob("testdata/*.json")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no testdata/*.json: %v", err)
	}
	out := map[string][]byte{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[p] = data
	}
	return out
}

func TestDifferential(t *testing.T) {
	c, tgts := targets(t)
	ours := map[Kind]*node{}
	libs := map[Kind]*jsonschema.Schema{}
	for i, k := range Kinds() {
		ours[k], libs[k] = tgts[i].ours, tgts[i].lib
	}
	files := testdataFiles(t)
	var ty tally
	names := slices.Sorted(func(yield func(string) bool) {
		for p := range files {
			if !yield(p) {
				return
			}
		}
	})

	// Every test file and every bad case, against every schema.
	for _, p := range names {
		for _, k := range Kinds() {
			ty.check(t, c, libs[k], ours[k], p+" as "+string(k), files[p])
		}
	}
	for _, tc := range violationCases {
		for _, k := range Kinds() {
			ty.check(t, c, libs[k], ours[k], tc.name+" as "+string(k), []byte(tc.in))
		}
	}
	base := ty

	// Every test file mutated at every position.
	for _, p := range names {
		doc, err := jsonpos.Parse(files[p], jsonpos.Options{})
		if err != nil {
			t.Fatal(err)
		}
		perValue := 8
		if *allMutations {
			perValue = len(samples())
		}
		for i, m := range mutations(doc, rand.New(rand.NewPCG(5, 6)), perValue) {
			for _, k := range Kinds() {
				ty.check(t, c, libs[k], ours[k], fmt.Sprintf("%s mutation %d as %s", p, i, k), m)
			}
		}
	}
	mutated := ty

	// Documents generated from the schemas, mostly fitting, sometimes not.
	g := generator{r: rand.New(rand.NewPCG(1, 2)), wild: 0.01}
	for i := range 600 {
		k := Kinds()[i%3]
		data := marshal(t, g.value(ours[k], 0))
		ty.check(t, c, libs[k], ours[k], fmt.Sprintf("generated %d as %s", i, k), data)
	}
	generated := ty

	// Every $defs entry on its own: every sample value and generated values.
	for _, tg := range tgts[len(Kinds()):] {
		for i, v := range samples() {
			ty.check(t, c, tg.lib, tg.ours, fmt.Sprintf("sample %d as %s", i, tg.name), marshal(t, v))
		}
		for i := range 20 {
			ty.check(t, c, tg.lib, tg.ours, fmt.Sprintf("generated %d as %s", i, tg.name), marshal(t, g.value(tg.ours, 0)))
		}
	}
	t.Logf("files and bad cases: %d documents (%d invalid); mutations: %d (%d invalid); generated: %d (%d invalid); "+
		"$defs entries (%d): %d (%d invalid); library panicked on %d",
		base.docs, base.invalid, mutated.docs-base.docs, mutated.invalid-base.invalid,
		generated.docs-mutated.docs, generated.invalid-mutated.invalid,
		len(tgts)-len(Kinds()), ty.docs-generated.docs, ty.invalid-generated.invalid, ty.skipped)
	if ty.invalid == 0 || ty.invalid == ty.docs {
		t.Errorf("%d of %d documents invalid: the inputs do not exercise both outcomes", ty.invalid, ty.docs)
	}
}

// extraSchema uses the keywords the interpreter supports beyond those the embedded schemas use today, so
// that they are checked against the library too.
const extraSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "https://oceancode.dev/schema/extra.schema.json",
  "type": "object",
  "minProperties": 1,
  "maxProperties": 5,
  "properties": {
    "list": { "type": "array", "minItems": 1, "maxItems": 3, "uniqueItems": true, "items": { "$ref": "#/$defs/scalar" } },
    "name": { "type": "string", "minLength": 2, "maxLength": 5, "pattern": "^[a-z]" },
    "ratio": { "type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1.5, "minimum": -3, "maximum": 2 },
    "either": { "anyOf": [ { "type": "integer", "minimum": 10 }, { "type": "string", "format": "date-time" }, { "const": { "a": [1, null] } } ] },
    "all": { "allOf": [ { "type": ["string", "null"] }, { "maxLength": 3 } ] },
    "never": false,
    "anything": true,
    "url": { "type": "string", "format": "uri" },
    "pick": {
      "oneOf": [
        { "type": "object", "required": ["a"], "properties": { "a": { "type": "integer" } }, "additionalProperties": false },
        { "type": "object", "minProperties": 1 },
        { "type": "array", "items": false }
      ]
    },
    "nested": { "$ref": "#" },
    "other": { "$ref": "config.schema.json#/$defs/sandbox" }
  },
  "patternProperties": { "^x-": { "type": ["integer", "boolean"] }, "^x-[0-9]": { "maximum": 3 } },
  "additionalProperties": { "enum": [1, "one", null, [1], { "k": "v" }] },
  "$defs": { "scalar": { "type": ["string", "number", "boolean", "null"] } }
}`

func TestDifferentialExtraKeywords(t *testing.T) {
	doc, err := jsonpos.Parse([]byte(extraSchema), jsonpos.Options{})
	if err != nil {
		t.Fatal(err)
	}
	id := BaseURL + "extra.schema.json"
	docs := map[string]any{id: doc.Value, Config.ID(): load().raw[Config.ID()]}
	nodes, err := compileDocs(docs)
	if err != nil {
		t.Fatal(err)
	}
	libs, err := oracleCompile(docs, id)
	if err != nil {
		t.Fatal(err)
	}
	c := &compiled{raw: docs, nodes: nodes}
	root := nodes[id+"#"]
	g := generator{r: rand.New(rand.NewPCG(3, 4)), wild: 0.03}
	var ty tally
	for i := range 1500 {
		data := marshal(t, g.value(root, 0))
		ty.check(t, c, libs[id], root, fmt.Sprintf("extra %d", i), data)
	}
	t.Logf("extra keywords: %d documents (%d invalid); library panicked on %d", ty.docs, ty.invalid, ty.skipped)
}

func TestCompileRefuses(t *testing.T) {
	tests := []struct{ schema, want string }{
		{`{"not": {}}`, `#: keyword "not" is not supported`},
		{`{"properties": {"a": {"if": true}}}`, `#/properties/a: keyword "if" is not supported`},
		{`{"format": "email"}`, `format email is not supported`},
		{`{"$ref": "#/$defs/nope"}`, `$ref "#/$defs/nope": x.schema.json#/$defs/nope is not a schema`},
		{`{"$ref": "other.schema.json"}`, `no embedded schema https://oceancode.dev/schema/other.schema.json`},
		{`{"pattern": "("}`, `pattern: error parsing regexp`},
		{`{"patternProperties": {"[": true}}`, `pattern: error parsing regexp`},
		{`{"type": "int"}`, `type int is not a JSON type`},
		{`{"$schema": "http://json-schema.org/draft-07/schema#"}`, `is not supported`},
		{`{"items": {"$id": "x"}}`, `$id is only supported at a document's root`},
		{`{"minItems": -1}`, `minItems must be a non-negative integer`},
		{`{"properties": {"a": 1}}`, `a schema must be an object or a boolean`},
		{`{"$ref": "#"}`, `x.schema.json# refers back to itself`},
		{`{"$defs": {"a": {"anyOf": [{"$ref": "#/$defs/b"}]}, "b": {"allOf": [true, {"$ref": "#/$defs/a"}]}}}`, `refers back to itself`},
	}
	for _, tt := range tests {
		doc, err := jsonpos.Parse([]byte(tt.schema), jsonpos.Options{})
		if err != nil {
			t.Fatal(err)
		}
		nodes, err := compileDocs(map[string]any{BaseURL + "x.schema.json": doc.Value})
		if err == nil {
			err = checkPatterns(nodes)
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("compile %s: error %v, want it to contain %q", tt.schema, err, tt.want)
		}
	}
}

// FuzzDifferential checks that both validators agree on arbitrary documents. The seed corpus is in
// testdata/fuzz/FuzzDifferential. which selects the schema: 0, 1 and 2 the config, managed and
// requirements schemas, higher values each $defs entry in turn (so small inputs reach deep subschemas).
func FuzzDifferential(f *testing.F) {
	for _, data := range testdataFiles(f) {
		for i := range Kinds() {
			f.Add(uint8(i), data)
		}
	}
	for i, tc := range violationCases {
		f.Add(uint8(i%3), []byte(tc.in))
	}
	c, tgts := targets(f)
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		tg := tgts[int(which)%len(tgts)]
		doc, err := jsonpos.Parse(data, jsonpos.Options{})
		if err != nil {
			return
		}
		d, skipped := differ(c, tg.lib, tg.ours, doc)
		if skipped {
			t.Skip("the library panicked")
		}
		if d != "" {
			t.Errorf("as %s: validators disagree on\n%s\n%s", tg.name, data, d)
		}
		// The public API never reports nothing for an invalid document.
		if int(which) < len(Kinds()) {
			k := Kinds()[which]
			if vs := ValidateValue(k, "f.json", doc); (len(vs) == 0) != (len(evaluate(tg.ours, doc.Value)) == 0) {
				t.Errorf("as %s: ValidateValue = %v, but evaluate disagrees on validity", k, vs)
			}
		}
	})
}

// --- mutations and generated documents ---

var (
	samplesOnce sync.Once
	sampleVals  []any
)

// samples are values that exercise the schemas: edge numbers, strings that fit (or nearly fit) the
// patterns and formats, and small containers.
func samples() []any {
	samplesOnce.Do(func() {
		nums := []string{"0", "-0", "1", "-1", "2", "10", "15", "16", "17", "49", "50", "1500", "60000", "60001",
			"1.5", "1.0", "1e1", "1.0e1", "1E2", "0.5e1", "1e400", "-1e400", "1e-400", "1e1000001", "-1e-1000001",
			"0e99999999999999999999", "1e99999999999999999999",
			"9007199254740991", "9007199254740992", "3", "3.0000000000000001"}
		for _, n := range nums {
			sampleVals = append(sampleVals, json.Number(n))
		}
		strs := []string{"", "x", "é", "ab", "abcdef", "a/b", "/", "anthropic/claude-sonnet-4", "Bash(ls)",
			"Bash(git push:*)", "Bash(", "curl *", "Edit", "_x()", "https://x", "HTTPS://example.com/p",
			"http://[::1]:80/", "http://[fe80::1%25en0]/", "http://::1/", "ftp://x", "https://", "http://a b",
			"/usr/bin/x", "rel/path", `C:\x`, "c:/x", strings.Repeat("a", 64), strings.Repeat("0f", 32), "AWS_*",
			"A=B", "GOPATH", "1X", "read-only", "workspace-write", "danger-full-access", "allow", "ask", "deny",
			"default", "acceptEdits", "plan", "dontAsk", "bypassPermissions", "openai", "anthropic", "shadow",
			"act", "block", "warn", "primary", "subagent", "off", "on", "allowlist",
			"2026-11-29T12:00:00Z", "2026-11-29t12:00:00z", "2026-11-29T12:00:00.123+01:00",
			"2026-02-30T00:00:00Z", "2026-11-29T23:59:60Z", "2026-11-29T00:59:60+01:00", "2026-11-29T12:00:60Z",
			"2026-11-29T12:00:00", "2026-11-29T+1:00:00Z", "2026-11-29T12:00:00.Z", "2026-11-29T12:00:00+0100",
			"2026-11-29T23:58:60Z", "2026-11-29T22:59:60-01:00", "2026-11-29T23:59:60+00:30", "2026-11-29T24:00:00Z",
			"yesterday", "1",
		}
		for _, s := range strs {
			sampleVals = append(sampleVals, s)
		}
		long := func(extra ...any) []any { // more than 20 items: the library hashes to find duplicates
			var a []any
			for i := range 22 {
				a = append(a, fmt.Sprint("s", i))
			}
			return append(a, extra...)
		}
		sampleVals = append(sampleVals, long(), long("s3"), long(json.Number("2"), json.Number("2.0")),
			long(map[string]any{"a": json.Number("1")}, map[string]any{"a": json.Number("1e0")}))
		sampleVals = append(sampleVals, nil, true, false, []any{}, []any{""}, []any{"allow", "allow"},
			[]any{json.Number("1"), json.Number("1.0")}, map[string]any{}, map[string]any{"type": "openai"},
			map[string]any{"command": "x"}, map[string]any{"url": "https://x"},
			map[string]any{"name": "x", "command": "/bin/x"})
	})
	return sampleVals
}

// sampleKeys are object keys for maps, unknown keys and typos.
var sampleKeys = []string{"bash", "edit", "Edit", "mcp", "x", "", "a/b", "e.f-g", "CI", "1X", "_", "é",
	"sandbox.mode", "sandox.mode", "permission", "permission.bash[\"git push\"]", "mdoe", "mode", "allow",
	"deny", "type", "url", "command", "name", "sha256", "x-1", "x-y", "k", "list", "pick", "a", "b"}

// mutations returns doc's value changed in one place each: every value replaced by perValue samples
// (chosen by r; all of them when perValue is their number), every member deleted, an unknown key added
// to every object, every key renamed.
func mutations(doc *jsonpos.Doc, r *rand.Rand, perValue int) [][]byte {
	var out [][]byte
	add := func(v any) {
		b, err := json.Marshal(v)
		if err != nil {
			panic(err)
		}
		out = append(out, b)
	}
	for _, ptr := range doc.Pointers() {
		toks, _ := jsonpos.Split(ptr)
		all := samples()
		if perValue < len(all) {
			all = slices.Clone(all)
			r.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
			all = all[:perValue]
		}
		for _, s := range all {
			add(setAt(deepCopy(doc.Value), toks, s))
		}
		if m, ok := valueAt(doc.Value, toks).(map[string]any); ok {
			for _, key := range []string{"zzz", "mdoe", "Edit", "a/b"} {
				if _, exists := m[key]; !exists {
					root := deepCopy(doc.Value)
					valueAt(root, toks).(map[string]any)[key] = "x"
					add(root)
				}
			}
		}
		if len(toks) == 0 {
			continue
		}
		parent, last := toks[:len(toks)-1], toks[len(toks)-1]
		if _, ok := valueAt(doc.Value, parent).(map[string]any); ok {
			root := deepCopy(doc.Value)
			pm := valueAt(root, parent).(map[string]any)
			v := pm[last]
			delete(pm, last)
			add(root)
			pm[last+"x"] = v
			add(root)
		}
	}
	return out
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = deepCopy(e)
		}
		return a
	}
	return v
}

// setAt replaces the value at toks in root (a copy) and returns the new root.
func setAt(root any, toks []string, v any) any {
	if len(toks) == 0 {
		return v
	}
	switch p := valueAt(root, toks[:len(toks)-1]).(type) {
	case map[string]any:
		p[toks[len(toks)-1]] = v
	case []any:
		i, _ := strconv.Atoi(toks[len(toks)-1])
		p[i] = v
	}
	return root
}

func marshal(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// generator makes documents from a compiled schema: mostly fitting values, with probability wild an
// arbitrary sample instead.
type generator struct {
	r    *rand.Rand
	wild float64
}

func (g *generator) pick(n int) int { return g.r.IntN(n) }

func (g *generator) chance(p float64) bool { return g.r.Float64() < p }

func (g *generator) sample() any {
	s := samples()
	return deepCopy(s[g.pick(len(s))])
}

func (g *generator) value(n *node, depth int) any {
	if depth > 6 || g.chance(g.wild) || n.boolean != nil {
		return g.sample()
	}
	for n.ref != nil && n.types == 0 && n.enum == nil && n.props == nil && !g.chance(g.wild) {
		n = n.ref
	}
	switch {
	case n.hasConst && !g.chance(g.wild):
		return deepCopy(n.constVal)
	case n.enum != nil && !g.chance(g.wild):
		return deepCopy(n.enum[g.pick(len(n.enum))])
	case n.oneOf != nil:
		return g.value(n.oneOf[g.pick(len(n.oneOf))], depth+1)
	case n.anyOf != nil:
		return g.value(n.anyOf[g.pick(len(n.anyOf))], depth+1)
	case n.allOf != nil:
		return g.value(n.allOf[g.pick(len(n.allOf))], depth+1)
	}
	types := n.types.names()
	t := ""
	switch {
	case len(types) > 0:
		t = types[g.pick(len(types))]
	case n.props != nil || n.patternProps != nil:
		t = "object"
	case n.items != nil:
		t = "array"
	case n.pattern != nil:
		t = "string"
	default:
		return g.sample()
	}
	switch t {
	case "object":
		m := map[string]any{}
		names := make([]string, 0, len(n.props))
		for name := range n.props {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			if b := n.props[name].boolean; b != nil && !*b && !g.chance(g.wild) {
				continue
			}
			if g.chance(0.3) || (slices.Contains(n.required, name) && g.chance(0.9)) {
				m[name] = g.value(n.props[name], depth+1)
			}
		}
		for _, pp := range n.patternProps {
			for range g.pick(3) {
				m[g.key(pp.re)] = g.value(pp.node, depth+1)
			}
		}
		if g.chance(3 * g.wild) {
			m[sampleKeys[g.pick(len(sampleKeys))]] = g.sample()
		}
		return m
	case "array":
		var a []any
		for range max(n.minItems, 0) + g.pick(4) {
			if n.items != nil {
				a = append(a, g.value(n.items, depth+1))
			} else {
				a = append(a, g.sample())
			}
		}
		if len(a) > 0 && g.chance(0.2) {
			a = append(a, deepCopy(a[g.pick(len(a))]))
		}
		if a == nil {
			a = []any{}
		}
		return a
	case "string":
		return g.str(n)
	case "integer", "number":
		if g.chance(0.7) {
			return g.number(n, t == "integer")
		}
		for range 8 {
			if v, ok := g.sample().(json.Number); ok {
				return v
			}
		}
		return json.Number("1")
	case "boolean":
		return g.chance(0.5)
	}
	return nil
}

// number returns a number within n's bounds (an integer if integer).
func (g *generator) number(n *node, integer bool) json.Number {
	var lo, hi *big.Rat
	for _, l := range []*limit{n.exclMin, n.minimum} {
		if l != nil {
			lo = l.rat
		}
	}
	for _, l := range []*limit{n.exclMax, n.maximum} {
		if l != nil {
			hi = l.rat
		}
	}
	switch {
	case lo != nil && hi != nil:
		mid := new(big.Rat).Add(lo, hi)
		mid.Quo(mid, big.NewRat(2, 1))
		if integer {
			return json.Number(new(big.Int).Quo(mid.Num(), mid.Denom()).String())
		}
		return json.Number(mid.FloatString(3))
	case lo != nil:
		return json.Number(new(big.Int).Add(new(big.Int).Quo(lo.Num(), lo.Denom()), big.NewInt(int64(g.pick(3)+1))).String())
	case hi != nil:
		return json.Number(new(big.Int).Sub(new(big.Int).Quo(hi.Num(), hi.Denom()), big.NewInt(int64(g.pick(3)+1))).String())
	}
	return json.Number(strconv.Itoa(g.pick(100)))
}

// key returns a map key, usually one that matches re.
func (g *generator) key(re *lazyRegexp) string {
	for range 10 {
		k := sampleKeys[g.pick(len(sampleKeys))]
		if re.MatchString(k) || g.chance(g.wild) {
			return k
		}
	}
	return sampleKeys[g.pick(len(sampleKeys))]
}

// str returns a string sample, usually one that fits n's pattern, format and lengths.
func (g *generator) str(n *node) string {
	var last string
	for range 50 {
		if s, ok := g.sample().(string); ok {
			last = s
			l := len([]rune(s))
			fits := (n.pattern == nil || n.pattern.MatchString(s)) && (n.format == "" || formatOK(n.format, s)) &&
				l >= n.minLength && (n.maxLength < 0 || l <= n.maxLength)
			if fits || g.chance(g.wild) {
				return s
			}
		}
	}
	return last
}
