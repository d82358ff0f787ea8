package provenance

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestKeyPathRoundTrip(t *testing.T) {
	tests := []struct {
		segs []string
		key  string
	}{
		{[]string{"sandbox", "mode"}, "sandbox.mode"},
		{[]string{"permission", "bash", "git status"}, `permission.bash["git status"]`},
		{[]string{"permission", "edit", "src/**"}, `permission.edit["src/**"]`},
		{[]string{"permission", "mcp", "github/*"}, `permission.mcp["github/*"]`},
		{[]string{"child_env", "set", "MY-VAR"}, "child_env.set.MY-VAR"},
		{[]string{"refs", "9lives"}, `refs["9lives"]`},
		{[]string{"x", `a"b]`, "c"}, `x["a\"b]"].c`},
		{[]string{"a.b"}, `["a.b"]`},
	}
	for _, tt := range tests {
		if got := KeyPath(tt.segs...); got != tt.key {
			t.Errorf("KeyPath(%q) = %s, want %s", tt.segs, got, tt.key)
		}
		got, err := SplitKey(tt.key)
		if err != nil {
			t.Errorf("SplitKey(%s): %v", tt.key, err)
			continue
		}
		if diff := cmp.Diff(tt.segs, got); diff != "" {
			t.Errorf("SplitKey(%s) (-want +got):\n%s", tt.key, diff)
		}
	}
}

func TestSplitKeyErrors(t *testing.T) {
	for _, key := range []string{"", ".a", "a.", "a..b", `a["b`, `a["b"`, `a["b"]c`, `a[b]`} {
		if segs, err := SplitKey(key); err == nil {
			t.Errorf("SplitKey(%q) = %q, want an error", key, segs)
		}
	}
}

func TestLayerNames(t *testing.T) {
	for _, l := range Layers() {
		got, err := ParseLayer(l.String())
		if err != nil || got != l {
			t.Errorf("ParseLayer(%q) = %v, %v", l.String(), got, err)
		}
	}
	if _, err := ParseLayer("system"); err == nil {
		t.Error("ParseLayer(system) succeeded")
	}
	if !(Default < Project && Project < User && User < Session && Session < Managed && Managed < Requirements) {
		t.Error("layers are not ordered lowest first")
	}
}

func TestOriginString(t *testing.T) {
	for _, tc := range []struct {
		o    Origin
		want string
	}{
		{Origin{Layer: User, Source: "/home/u/.config/oceancode/oceancode.json", Line: 3, Column: 5}, "user /home/u/.config/oceancode/oceancode.json:3:5"},
		{Origin{Layer: Project, Source: "oceancode.json", Line: 12}, "project oceancode.json:12"},
		{Origin{Layer: Project, Source: "oceancode.json", Column: 4}, "project oceancode.json"},
		{Origin{Layer: Requirements, Source: "/etc/oceancode/requirements.json", Pinned: true}, "requirements /etc/oceancode/requirements.json (pinned)"},
		{Origin{Layer: Managed, Pinned: true}, "managed (pinned)"},
		{Origin{Layer: Default}, "default"},
	} {
		if got := tc.o.String(); got != tc.want {
			t.Errorf("%+v.String() = %q, want %q", tc.o, got, tc.want)
		}
	}
}

func TestPrefix(t *testing.T) {
	m := Map{"sandbox.mode": {}, "sandbox.deny": {}, "sandboxes": {}, `permission.bash["ls"]`: {}}
	if diff := cmp.Diff([]string{"sandbox.deny", "sandbox.mode"}, m.WithPrefix("sandbox")); diff != "" {
		t.Errorf("WithPrefix(sandbox) (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{`permission.bash["ls"]`}, m.WithPrefix("permission.bash")); diff != "" {
		t.Errorf("WithPrefix(permission.bash) (-want +got):\n%s", diff)
	}
}
