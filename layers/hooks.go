package layers

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/oceancode/oceancode/internal/jsonpos"
	"github.com/oceancode/oceancode/provenance"
)

// Hooks (docs/hooks.md). Each event's matcher groups (hooks.EVENT, a list
// merged by append) keep the origin of each group, with its own line, so
// a hook's decisions and inspect name the file:line of the group. The
// requirements' allow_managed_hooks_only drops every group below the
// managed layer; each dropped group is kept in Locks.DroppedHooks, never
// silently lost.

// DroppedHook is one matcher group allow_managed_hooks_only dropped.
type DroppedHook struct {
	Key    string            `json:"key"` // hooks.EVENT
	Origin provenance.Origin `json:"origin"`
	Value  any               `json:"value"` // the matcher group
}

// String is "hooks.EVENT COMMANDS at FILE:LINE (LAYER)".
func (d DroppedHook) String() string {
	return fmt.Sprintf("%s %s at %s (%s)", d.Key, hookCommands(d.Value), d.Origin.Location(), d.Origin.Layer)
}

// hookCommands renders a matcher group's matcher and commands.
func hookCommands(v any) string {
	g, _ := v.(map[string]any)
	var cmds []string
	hs, _ := g["hooks"].([]any)
	for _, h := range hs {
		if hm, ok := h.(map[string]any); ok {
			b, _ := json.Marshal(hm["command"])
			cmds = append(cmds, string(b))
		}
	}
	s := strings.Join(cmds, ", ")
	if m, _ := g["matcher"].(string); m != "" {
		s = "[" + m + "] " + s
	}
	return s
}

// isHookList reports whether path is hooks.EVENT.
func isHookList(path []string) bool { return len(path) == 2 && path[0] == "hooks" }

// itemLines gives the items a list at path just added (the last n of its
// Lists entry) the line and column of their own element, for hook groups.
func (m *merger) itemLines(path []string, n int, doc *jsonpos.Doc) {
	if doc == nil || !isHookList(path) {
		return
	}
	items := m.r.Lists[provenance.KeyPath(path...)]
	if n > len(items) {
		return
	}
	base := len(items) - n
	for i := 0; i < n; i++ {
		if p, ok := doc.Pos(jsonpos.Pointer(append(clone(path), fmt.Sprint(i))...)); ok {
			items[base+i].Origin.Line, items[base+i].Origin.Column = p.Line, p.Column
		}
	}
}

// dropUnmanagedHooks keeps only the hook groups of the managed layer and
// the requirements (allow_managed_hooks_only).
func (m *merger) dropUnmanagedHooks() {
	r := m.r
	var keys []string
	for k := range r.Lists {
		if strings.HasPrefix(k, "hooks.") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, key := range keys {
		items := r.Lists[key]
		var kept []Item
		for _, it := range items {
			if it.Origin.Layer >= provenance.Managed {
				kept = append(kept, it)
				continue
			}
			r.Locks.DroppedHooks = append(r.Locks.DroppedHooks, DroppedHook{Key: key, Origin: it.Origin, Value: it.Value})
		}
		if len(kept) == len(items) {
			continue
		}
		segs, _ := provenance.SplitKey(key)
		m.delete(segs)
		r.Lists[key] = kept
		if len(kept) == 0 {
			delete(r.Lists, key)
			delete(r.Entries, key)
			continue
		}
		vals := make([]any, 0, len(kept))
		for _, it := range kept {
			vals = append(vals, it.Value)
		}
		m.cur = map[string]any{}
		setNested(m.cur, segs, vals)
		m.load(provenance.Requirements)
		if e := r.Entries[key]; e != nil {
			var contrib []provenance.Value
			for _, c := range e.Contributors {
				if c.Origin.Layer >= provenance.Managed {
					contrib = append(contrib, c)
				}
			}
			e.Contributors, e.Value, e.Origin = contrib, vals, kept[len(kept)-1].Origin
		}
	}
}
