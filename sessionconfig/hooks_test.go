package sessionconfig_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oceancode/oceancode/agent/hooks"
	"github.com/oceancode/oceancode/layers/layerstest"
	"github.com/oceancode/oceancode/provenance"
	"github.com/oceancode/oceancode/sessionconfig"
)

type hookRow struct {
	Event   hooks.Event
	Command string
	Layer   provenance.Layer
	Line    int
}

func hookRows(hs []hooks.Hook) []hookRow {
	var out []hookRow
	for _, h := range hs {
		out = append(out, hookRow{h.Event, h.Command, h.Origin.Layer, h.Origin.Line})
	}
	return out
}

const userHooks = `{
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "user-a"}]},
      {"hooks": [{"type": "command", "command": "user-b"}]}
    ],
    "Stop": [{"hooks": [{"type": "command", "command": "user-stop"}]}]
  }
}`

// Every layer's groups run, lowest layer first, each with its own line;
// allow_managed_hooks_only keeps the managed layer's and the pinned ones
// and names each group it drops.
func TestHooksOf(t *testing.T) {
	t.Parallel()
	m := layerstest.New(t)
	m.UserConfig(userHooks)
	m.Managed(`{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "managed-a"}]}]}}`)
	hs, err := sessionconfig.HooksOf(m.Resolve())
	if err != nil {
		t.Fatal(err)
	}
	want := []hookRow{{hooks.PreToolUse, "user-a", provenance.User, 4}, {hooks.PreToolUse, "user-b", provenance.User, 5},
		{hooks.PreToolUse, "managed-a", provenance.Managed, 1}, {hooks.Stop, "user-stop", provenance.User, 7}}
	if d := cmp.Diff(want, hookRows(hs)); d != "" {
		t.Errorf("hooks (-want +got):\n%s", d)
	}

	m.Anchor()
	m.Requirements(1, map[string]any{"allow_managed_hooks_only": true,
		"pins": map[string]any{"hooks.SessionStart": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "pinned"}}}}}})
	res := m.Resolve()
	if res.Requirements == nil || res.Locks.Policy == nil {
		t.Fatalf("requirements not applied: %+v %v", res.Requirements, res.Diagnostics)
	}
	hs, err = sessionconfig.HooksOf(res)
	if err != nil {
		t.Fatal(err)
	}
	want = []hookRow{{hooks.SessionStart, "pinned", provenance.Requirements, 0}, {hooks.PreToolUse, "managed-a", provenance.Managed, 1}}
	if d := cmp.Diff(want, hookRows(hs)); d != "" {
		t.Errorf("managed-only hooks (-want +got):\n%s", d)
	}
	notes := sessionconfig.DroppedHookNotes(res)
	if len(notes) != 3 || !strings.Contains(notes[0], `hooks.PreToolUse [Bash] "user-a" at `) || !strings.Contains(notes[0], "oceancode.json:4:7 (user)") ||
		!strings.Contains(notes[2], `hooks.Stop "user-stop" at `) {
		t.Errorf("dropped notes:\n%s", strings.Join(notes, "\n"))
	}
	if e := res.Entries["hooks.PreToolUse"]; e == nil || len(e.Value.([]any)) != 1 {
		t.Errorf("the merged value keeps dropped groups: %+v", e)
	}
}

// A group that does not parse (a bad matcher) is an error naming the key,
// the file and the line.
func TestHooksOfError(t *testing.T) {
	t.Parallel()
	m := layerstest.New(t)
	m.UserConfig(`{"hooks": {"PreToolUse": [
  {"matcher": "(", "hooks": [{"type": "command", "command": "x"}]}]}}`)
	_, err := sessionconfig.HooksOf(m.Resolve())
	if err == nil || !strings.Contains(err.Error(), `hooks.PreToolUse[0].matcher "(" at `) || !strings.Contains(err.Error(), "oceancode.json:2:3: not a regular expression") {
		t.Errorf("err = %v", err)
	}
}
