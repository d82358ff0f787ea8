package sessionconfig

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/schema"
)

// configSchema is the embedded config schema, decoded.
func configSchema(t *testing.T) map[string]any {
	t.Helper()
	src, err := schema.Source(schema.Config)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(src, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// schemaWalker finds the schema node of a key path in the config schema.
type schemaWalker struct{ root map[string]any }

// deref follows $ref (within the document) until a node with a type or
// properties, merging nothing: the schema's $ref siblings are annotations.
func (w schemaWalker) deref(n map[string]any) (map[string]any, error) {
	for i := 0; i < 20; i++ {
		ref, ok := n["$ref"].(string)
		if !ok {
			return n, nil
		}
		name, ok := strings.CutPrefix(ref, "#/$defs/")
		if !ok {
			return nil, fmt.Errorf("$ref %q outside the config schema", ref)
		}
		next, ok := w.root["$defs"].(map[string]any)[name].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("$ref %q: no such definition", ref)
		}
		n = next
	}
	return nil, fmt.Errorf("$ref chain too long")
}

// child is the node of one segment below n: a property, or for Name (or
// any name) the patternProperties entry that matches.
func (w schemaWalker) child(n map[string]any, seg string) (map[string]any, error) {
	n, err := w.deref(n)
	if err != nil {
		return nil, err
	}
	if props, ok := n["properties"].(map[string]any); ok {
		if c, ok := props[seg].(map[string]any); ok && seg != Name {
			return c, nil
		}
	}
	if pats, ok := n["patternProperties"].(map[string]any); ok {
		for pat, c := range pats {
			name := seg
			if seg == Name {
				name = "doctor-probe" // a name every name pattern of the schema takes
			}
			if regexp.MustCompile(pat).MatchString(name) {
				return c.(map[string]any), nil
			}
		}
	}
	return nil, fmt.Errorf("no key %q here (the schema has %v)", seg, keysOf(n["properties"]))
}

func keysOf(v any) []string {
	m, _ := v.(map[string]any)
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func (w schemaWalker) node(segs []string) (map[string]any, error) {
	n := w.root
	for _, seg := range segs {
		c, err := w.child(n, seg)
		if err != nil {
			return nil, err
		}
		n = c
	}
	return w.deref(n)
}

// check compares one key with the schema: the path exists, the type and
// the enum agree, and an object key's Go type has no field the schema
// lacks.
func (w schemaWalker) check(k Key) error {
	n, err := w.node(k.Segments())
	if err != nil {
		return fmt.Errorf("key %s: %w", k.Path(), err)
	}
	if typ, _ := n["type"].(string); typ != string(k.Type()) {
		return fmt.Errorf("key %s: declared %s, the schema says %q", k.Path(), k.Type(), typ)
	}
	var enum []string
	if e, ok := n["enum"].([]any); ok {
		for _, v := range e {
			enum = append(enum, fmt.Sprint(v))
		}
	}
	if !slices.Equal(slices.Sorted(slices.Values(enum)), slices.Sorted(slices.Values(k.Enum()))) {
		return fmt.Errorf("key %s: declared enum %v, the schema's is %v", k.Path(), k.Enum(), enum)
	}
	if o, ok := k.(interface{ goType() reflect.Type }); ok {
		return w.fields(k.Path(), o.goType(), n)
	}
	return nil
}

// fields checks each field a struct decodes (its json tag, else its name,
// which the decoder matches case-insensitively) against the object's
// properties, nested structs too.
func (w schemaWalker) fields(path string, t reflect.Type, n map[string]any) error {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil // maps take any key the schema's patternProperties allow
	}
	props, _ := n["properties"].(map[string]any)
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		c, ok := props[name].(map[string]any)
		if !ok {
			return fmt.Errorf("key %s: %s.%s decodes %q, which the schema does not have (it has %v)", path, t, f.Name, name, keysOf(props))
		}
		c, err := w.deref(c)
		if err != nil {
			return err
		}
		if err := w.fields(path+"."+name, f.Type, c); err != nil {
			return err
		}
	}
	return nil
}

func TestRegistryMatchesSchema(t *testing.T) {
	w := schemaWalker{configSchema(t)}
	if len(Registry()) < 15 {
		t.Fatalf("the registry has %d keys", len(Registry()))
	}
	seen := map[string]bool{}
	for _, k := range Registry() {
		if seen[k.Path()] {
			t.Errorf("key %s is declared twice", k.Path())
		}
		seen[k.Path()] = true
		if err := w.check(k); err != nil {
			t.Error(err)
		}
	}
}

// TestRegistryCheckFails: the schema check catches each kind of mistake
// (these keys are built without registering them).
func TestRegistryCheckFails(t *testing.T) {
	type wrong struct {
		Mode  string `json:"mode"`
		Typos int    `json:"tyops"`
	}
	w := schemaWalker{configSchema(t)}
	for _, c := range []struct {
		name string
		key  Key
		want string
	}{
		{"misspelt key", IntKey{spec{segs: []string{"limits", "max_turn"}, typ: Integer}}, `no key "max_turn"`},
		{"misspelt section", StringKey{spec{segs: []string{"sandbx", "mode"}, typ: String}}, `no key "sandbx"`},
		{"wrong type", StringKey{spec{segs: []string{"limits", "max_turns"}, typ: String}}, `declared string, the schema says "integer"`},
		{"missing enum", StringKey{spec{segs: []string{"sandbox", "network"}, typ: String}}, "declared enum []"},
		{"wrong enum", StringKey{spec{segs: []string{"permission_mode"}, typ: String, enum: []string{"default", "yolo"}}}, "declared enum"},
		{"per-name key misspelt", StringKey{spec{segs: []string{"agents", Name, "promt"}, typ: String}}, `no key "promt"`},
		{"object field the schema lacks", ObjectKey[wrong]{spec{segs: []string{"sandbox"}, typ: Object}}, `decodes "tyops"`},
		{"list declared as string", StringKey{spec{segs: []string{"shell", "allow"}, typ: String}}, `the schema says "array"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := w.check(c.key)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("check(%s) = %v, want an error containing %q", c.key.Path(), err, c.want)
			}
		})
	}
}

func TestPerNameKeys(t *testing.T) {
	for _, c := range []struct {
		key  Key
		want string
	}{
		{AgentPermissionMode("reviewer"), "agents.reviewer.permission_mode"},
		{AgentPermissionMode("my agent"), `agents["my agent"].permission_mode`},
		{AgentPrompt("x"), "agents.x.prompt"},
		{Provider("local"), "provider.local"},
	} {
		if c.key.Path() != c.want {
			t.Errorf("Path() = %s, want %s", c.key.Path(), c.want)
		}
	}
	if got := EnumOf("sandbox.network"); !slices.Equal(got, []string{"off", "allowlist", "on"}) {
		t.Errorf("EnumOf(sandbox.network) = %v", got)
	}
	if got := EnumOf("model"); got != nil {
		t.Errorf("EnumOf(model) = %v, want none", got)
	}
}
