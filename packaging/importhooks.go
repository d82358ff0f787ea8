package packaging

import (
	"fmt"
	"slices"
)

// hookEvents are the hook events OceanCode runs (docs/hooks.md).
var hookEvents = []string{"PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SessionStart", "Notification"}

// claudeHooks copies Claude Code's managed hooks into managed.json's
// hooks, the same shape: each group's matcher and its command hooks. An
// event OceanCode does not run, a hook of another kind and a field with no
// equivalent are skipped and named.
func (im *importer) claudeHooks(v any) {
	events, ok := v.(map[string]any)
	if !ok {
		im.skip("hooks", "not an object of event → matcher groups")
		return
	}
	out := map[string]any{}
	for _, ev := range sortedKeys(events) {
		key := "hooks." + ev
		if !slices.Contains(hookEvents, ev) {
			im.skip(key, "OceanCode runs PreToolUse, PostToolUse, UserPromptSubmit, Stop, SessionStart and Notification hooks only")
			continue
		}
		groups, ok := events[ev].([]any)
		if !ok {
			im.skip(key, "not an array of matcher groups")
			continue
		}
		var kept []any
		for i, g := range groups {
			if ng := im.claudeHookGroup(fmt.Sprintf("%s[%d]", key, i), g); ng != nil {
				kept = append(kept, ng)
			}
		}
		if len(kept) > 0 {
			out[ev] = kept
		}
	}
	if len(out) > 0 {
		im.managed["hooks"] = out
	}
}

// claudeHookGroup converts one matcher group (nil: nothing of it runs).
func (im *importer) claudeHookGroup(at string, g any) map[string]any {
	gm, ok := g.(map[string]any)
	if !ok {
		im.skip(at, "not a matcher group object")
		return nil
	}
	list, _ := gm["hooks"].([]any)
	var hs []any
	for j, h := range list {
		hat := fmt.Sprintf("%s.hooks[%d]", at, j)
		hm, _ := h.(map[string]any)
		typ, _ := hm["type"].(string)
		cmd, _ := hm["command"].(string)
		if typ != "command" || cmd == "" {
			im.skip(hat, "only command hooks run in OceanCode")
			continue
		}
		nh := map[string]any{"type": "command", "command": cmd}
		for _, k := range sortedKeys(hm) {
			switch k {
			case "type", "command":
			case "timeout":
				if n, ok := number(hm[k]); ok && n > 0 && n <= 600 {
					nh["timeout"] = hm[k]
				} else {
					im.skip(hat+".timeout", "want seconds between 1 and 600: the default 60 applies")
				}
			default:
				im.skip(hat+"."+k, "no OceanCode equivalent")
			}
		}
		hs = append(hs, nh)
	}
	if len(hs) == 0 {
		return nil
	}
	ng := map[string]any{"hooks": hs}
	if m, _ := gm["matcher"].(string); m != "" {
		ng["matcher"] = m
	}
	return ng
}

// number reads a JSON number (json.Number or float64).
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case interface{ Float64() (float64, error) }:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}
