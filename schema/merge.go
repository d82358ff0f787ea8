package schema

import (
	"regexp"
	"sync"
)

// Merge says how a config key combines across layers (the x-merge annotation of config.schema.json).
type Merge string

// Merge strategies.
const (
	// Replace: the highest layer that sets the key wins (the default).
	Replace Merge = "replace"
	// Append: the values (rules) of every layer are kept, in layer order, so a higher layer's rule comes
	// later and wins under last-match-wins while lower layers' other rules still apply.
	Append Merge = "append"
	// Union: the set union of every layer's values.
	Union Merge = "union"
)

// mergeNode is a schema position flattened for MergeOf: its own x-merge (if annotated) and where each
// child key leads, with $ref and oneOf/anyOf/allOf branches folded in.
type mergeNode struct {
	merge      Merge
	props      map[string]*mergeNode
	patterns   []mergePattern
	additional *mergeNode
}

type mergePattern struct {
	re   *regexp.Regexp
	node *mergeNode
}

var (
	mergeOnce sync.Once
	mergeRoot *mergeNode
)

// MergeOf returns the merge strategy for a config key path such as
// ["permission", "bash", "git status"] (Append) or ["sandbox", "deny"] (Union). The nearest annotated
// ancestor (or the key itself) decides; unannotated and unknown keys are Replace. The annotations are
// read once from config.schema.json, following properties, patternProperties, additionalProperties,
// $ref and oneOf/anyOf/allOf.
func MergeOf(path []string) Merge {
	mergeOnce.Do(func() {
		c := load()
		if n, ok := c.lookup(Config.ID()); ok {
			b := mergeBuilder{c: c, memo: map[string]*mergeNode{}}
			mergeRoot = b.build(n)
		}
	})
	m := Replace
	n := mergeRoot
	if n == nil {
		return m
	}
	if n.merge != "" {
		m = n.merge
	}
	for _, key := range path {
		next := n.props[key]
		if next == nil {
			for _, p := range n.patterns {
				if p.re.MatchString(key) {
					next = p.node
					break
				}
			}
		}
		if next == nil {
			next = n.additional
		}
		if next == nil {
			return m
		}
		n = next
		if n.merge != "" {
			m = n.merge
		}
	}
	return m
}

type mergeBuilder struct {
	c    *compiled
	memo map[string]*mergeNode
}

func (b *mergeBuilder) build(n rawNode) *mergeNode {
	mn := &mergeNode{props: map[string]*mergeNode{}}
	b.fold(mn, n, 0)
	return mn
}

// fold adds schema n (and what it refers to) into mn. depth bounds $ref chains.
func (b *mergeBuilder) fold(mn *mergeNode, n rawNode, depth int) {
	if depth > 32 {
		return
	}
	if m, ok := n.m["x-merge"].(string); ok && mn.merge == "" {
		mn.merge = Merge(m)
	}
	if props, ok := n.m["properties"].(map[string]any); ok {
		for k, v := range props {
			if sub, ok := v.(map[string]any); ok && mn.props[k] == nil {
				mn.props[k] = b.child(rawNode{doc: n.doc, m: sub})
			}
		}
	}
	if pats, ok := n.m["patternProperties"].(map[string]any); ok {
		for pat, v := range pats {
			re, err := regexp.Compile(pat)
			sub, ok := v.(map[string]any)
			if err == nil && ok {
				mn.patterns = append(mn.patterns, mergePattern{re: re, node: b.child(rawNode{doc: n.doc, m: sub})})
			}
		}
	}
	if sub, ok := n.m["additionalProperties"].(map[string]any); ok && mn.additional == nil {
		mn.additional = b.child(rawNode{doc: n.doc, m: sub})
	}
	if ref, ok := b.c.ref(n); ok {
		b.fold(mn, ref, depth+1)
	}
	for _, kw := range []string{"allOf", "oneOf", "anyOf"} {
		if arr, ok := n.m[kw].([]any); ok {
			for _, v := range arr {
				if sub, ok := v.(map[string]any); ok {
					b.fold(mn, rawNode{doc: n.doc, m: sub}, depth+1)
				}
			}
		}
	}
}

// child builds (or reuses) the node of a subschema; schemas reached through the same $ref share a node,
// which also ends recursion.
func (b *mergeBuilder) child(n rawNode) *mergeNode {
	if r, ok := n.m["$ref"].(string); ok && len(n.m) == 1 {
		key := n.doc + " " + r
		if mn, ok := b.memo[key]; ok {
			return mn
		}
		mn := &mergeNode{props: map[string]*mergeNode{}}
		b.memo[key] = mn
		b.fold(mn, n, 0)
		return mn
	}
	return b.build(n)
}
