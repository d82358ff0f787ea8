package layers

import (
	"sort"

	"github.com/oceancode/oceancode/internal/jsonpos"
	"github.com/oceancode/oceancode/provenance"
)

// A loosening key does not mean much alone: "bash *: allow" allows what the
// rules after it in the same map do not deny (last match wins), and
// child_env.keep keeps what child_env.strip does not strip. So the digest
// covers, beside each loosening key, the unit it sits in — its rule map,
// its agent, its top-level section — with every key of that unit that is
// not neutral, across the project's files in order (rules in document
// order). Reordering a rule map, or dropping the deny rule or strip entry
// that qualified a trusted allow, changes the digest like a changed
// loosening key; a tightening key in a unit with no loosening key still
// changes nothing.

// unitOf is the unit of a key path: the rule map (permission.TOOL,
// agents.NAME.permission.TOOL) of a rule, the agent of another agent key,
// else the top-level key.
func unitOf(path []string) []string {
	switch {
	case len(path) >= 3 && isRuleMap(path[:1]):
		return path[:2]
	case len(path) >= 5 && isRuleMap(path[:3]):
		return path[:4]
	case len(path) >= 2 && path[0] == "agents":
		return path[:2]
	case len(path) >= 1:
		return path[:1]
	}
	return nil
}

// qualify sets each loosening key's unit and the unit's content over the
// project's documents (in merge order). Keys of .mcp.json (no path) have
// no unit: the whole server definition is the key.
func qualify(keys []ProjectKey, docs []projectDoc) {
	content := map[string][]any{}
	for i := range keys {
		k := &keys[i]
		if k.path == nil {
			continue
		}
		u := unitOf(k.path)
		k.unit = provenance.KeyPath(u...)
		if _, done := content[k.unit]; !done {
			content[k.unit] = unitContent(u, docs)
		}
		k.unitValue = content[k.unit]
	}
}

// unitContent lists, file by file, the non-neutral leaves below unit as
// [file, key, value] in document order.
func unitContent(unit []string, docs []projectDoc) []any {
	out := []any{}
	for _, d := range docs {
		v := lookup(d.root, unit)
		if v == nil {
			continue
		}
		walkOrdered(clone(unit), v, d.doc, func(path []string, leaf any) {
			if c, _ := Classify(path, leaf); c != Neutral {
				out = append(out, []any{d.rel, provenance.KeyPath(path...), leaf})
			}
		})
	}
	return out
}

// walkOrdered calls fn for each leaf below path in document order, a rule
// map's "tool": "action" as its "*" rule.
func walkOrdered(path []string, v any, doc *jsonpos.Doc, fn func([]string, any)) {
	if s, ok := v.(string); ok && len(path) >= 2 && isRuleMap(path[:len(path)-1]) {
		fn(append(clone(path), "*"), s)
		return
	}
	mv, ok := v.(map[string]any)
	if !ok {
		fn(path, v)
		return
	}
	for _, k := range docOrder(path, mv, doc) {
		walkOrdered(append(clone(path), k), mv[k], doc, fn)
	}
}

// docOrder returns a map's keys in the order the document has them.
func docOrder(path []string, mv map[string]any, doc *jsonpos.Doc) []string {
	keys := sortedKeys(mv)
	if doc == nil {
		return keys
	}
	off := make(map[string]int, len(keys))
	for _, k := range keys {
		p, _ := doc.Pos(jsonpos.Pointer(append(clone(path), k)...))
		off[k] = p.Offset
	}
	sort.SliceStable(keys, func(i, j int) bool { return off[keys[i]] < off[keys[j]] })
	return keys
}

// lookup returns the value at path in v, or nil.
func lookup(v any, path []string) any {
	for _, s := range path {
		mv, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mv[s]
	}
	return v
}
