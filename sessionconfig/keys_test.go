package sessionconfig

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/knadh/koanf/v2"

	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/provenance"
)

// resolvedOf is a Resolved holding only entries and lists: the accessors'
// own contract, including values the schema would have refused before
// they got here (a Resolved built some other way).
func resolvedOf(entries map[string]any, lists map[string][]layers.Item) *layers.Resolved {
	r := &layers.Resolved{Entries: provenance.Map{}, Lists: lists, K: koanf.New(layers.Delim)}
	for k, v := range entries {
		r.Entries[k] = &provenance.Entry{Key: k, Value: v, Origin: provenance.Origin{Layer: provenance.User, Source: "/home/u/.config/oceancode/config.json", Line: 3, Column: 5}}
	}
	return r
}

func TestAccessors(t *testing.T) {
	r := resolvedOf(map[string]any{
		"model": "openai/gpt-5", "limits.max_turns": json.Number("7"), "limits.max_tokens": 12,
		"sandbox.enabled": true, "permission_mode": 5, "limits.timeout_s": json.Number("1.5"),
		"agents.x.prompt": false,
	}, map[string][]layers.Item{
		"shell.safe_list_extra": {{Value: "make lint", Origin: provenance.Origin{Layer: provenance.Project, Source: "p.json"}}},
		"shell.allow":           {{Value: 3, Origin: provenance.Origin{Layer: provenance.Project, Source: "p.json", Line: 2}}},
	})
	if v, o, ok, err := Model.Get(r); v != "openai/gpt-5" || !ok || err != nil || o.Layer != provenance.User {
		t.Errorf("Model.Get = %q %v %v %v", v, o, ok, err)
	}
	if v, _, ok, err := LimitsMaxTurns.Get(r); v != 7 || !ok || err != nil {
		t.Errorf("LimitsMaxTurns.Get = %d %v %v", v, ok, err)
	}
	if v, _, ok, err := LimitsMaxTokens.Get(r); v != 12 || !ok || err != nil {
		t.Errorf("LimitsMaxTokens.Get = %d %v %v", v, ok, err)
	}
	if v, _, ok, err := SandboxEnabled.Get(r); !v || !ok || err != nil {
		t.Errorf("SandboxEnabled.Get = %v %v %v", v, ok, err)
	}
	if _, _, ok, err := SandboxMode.Get(r); ok || err != nil {
		t.Errorf("unset SandboxMode.Get = %v %v", ok, err)
	}
	if items, err := ShellSafeListExtra.Items(r); err != nil || len(items) != 1 || items[0].Value != "make lint" || items[0].Origin.Source != "p.json" {
		t.Errorf("ShellSafeListExtra.Items = %+v %v", items, err)
	}
	for _, c := range []struct {
		name string
		get  func() error
		want string
	}{
		{"string", func() error { _, _, _, err := PermissionMode.Get(r); return err },
			"read permission_mode: /home/u/.config/oceancode/config.json:3:5 holds 5 (int), want string"},
		{"integer", func() error { _, _, _, err := LimitsTimeout.Get(r); return err },
			`read limits.timeout_s: /home/u/.config/oceancode/config.json:3:5 holds 1.5 (json.Number), want integer`},
		{"per-name", func() error { _, _, _, err := AgentPrompt("x").Get(r); return err },
			"read agents.x.prompt: /home/u/.config/oceancode/config.json:3:5 holds false (bool), want string"},
		{"list", func() error { _, err := ShellAllow.Items(r); return err },
			"read shell.allow: p.json:2 holds 3 (int), want a string"},
	} {
		if err := c.get(); err == nil || err.Error() != c.want {
			t.Errorf("%s: err = %v, want %s", c.name, err, c.want)
		}
	}
}

func TestDecodeError(t *testing.T) {
	r := resolvedOf(map[string]any{"limits.max_turns": "many"}, nil)
	if err := r.K.Set(strings.Join([]string{"limits", "max_turns"}, layers.Delim), "many"); err != nil {
		t.Fatal(err)
	}
	type limits struct {
		MaxTurns int `json:"max_turns"`
	}
	k := ObjectKey[limits]{spec{segs: []string{"limits"}, typ: Object}}
	_, ok, err := k.Decode(r)
	if err == nil || ok || !strings.HasPrefix(err.Error(), "decode limits (set in /home/u/.config/oceancode/config.json:3:5): ") {
		t.Fatalf("Decode = %v %v", ok, err)
	}
	if _, ok, err := Refs.Decode(r); ok || err != nil {
		t.Errorf("unset Refs.Decode = %v %v", ok, err)
	}
}
