package schema

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The tree MergeOf used to build from the raw config schema, once, for every key the schema allows. It
// is kept as the reference for the walk MergeOf now does per call on the compiled schema.
type refMergeNode struct {
	merge      Merge
	props      map[string]*refMergeNode
	patterns   []refMergePattern
	additional *refMergeNode
}

type refMergePattern struct {
	re   *regexp.Regexp
	node *refMergeNode
}

type refMergeBuilder struct {
	c    *compiled
	memo map[string]*refMergeNode
}

func (b *refMergeBuilder) build(n rawNode) *refMergeNode {
	mn := &refMergeNode{props: map[string]*refMergeNode{}}
	b.fold(mn, n, 0)
	return mn
}

func (b *refMergeBuilder) fold(mn *refMergeNode, n rawNode, depth int) {
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
		for _, pat := range slices.Sorted(func(yield func(string) bool) {
			for p := range pats {
				if !yield(p) {
					return
				}
			}
		}) {
			re, err := regexp.Compile(pat)
			sub, ok := pats[pat].(map[string]any)
			if err == nil && ok {
				mn.patterns = append(mn.patterns, refMergePattern{re: re, node: b.child(rawNode{doc: n.doc, m: sub})})
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

func (b *refMergeBuilder) child(n rawNode) *refMergeNode {
	if r, ok := n.m["$ref"].(string); ok && len(n.m) == 1 {
		key := n.doc + " " + r
		if mn, ok := b.memo[key]; ok {
			return mn
		}
		mn := &refMergeNode{props: map[string]*refMergeNode{}}
		b.memo[key] = mn
		b.fold(mn, n, 0)
		return mn
	}
	return b.build(n)
}

func (n *refMergeNode) next(key string) *refMergeNode {
	if next := n.props[key]; next != nil {
		return next
	}
	for _, p := range n.patterns {
		if p.re.MatchString(key) {
			return p.node
		}
	}
	return n.additional
}

// TestMergeOfMatchesTree compares MergeOf with the reference tree on every key path the config schema
// defines (to a depth of six), with sample keys for its maps and keys it does not define.
func TestMergeOfMatchesTree(t *testing.T) {
	c := load()
	root, ok := c.lookup(Config.ID())
	if !ok {
		t.Fatal("no config schema")
	}
	b := refMergeBuilder{c: c, memo: map[string]*refMergeNode{}}
	tree := b.build(root)
	samples := []string{"bash", "git status", "*", "git push:*", "a", "A_1", "Z", "x/y", "", "-", ".", "é", "0", "mcp", "CI", "reviewer", "permission"}
	checked := 0
	var rec func(path []string, n *refMergeNode, want Merge)
	rec = func(path []string, n *refMergeNode, want Merge) {
		if n != nil && n.merge != "" {
			want = n.merge
		}
		if got := MergeOf(path); got != want {
			t.Errorf("MergeOf(%q) = %s, want %s", path, got, want)
		}
		checked++
		if n == nil || len(path) >= 6 {
			return
		}
		keys := append(slices.Sorted(func(yield func(string) bool) {
			for k := range n.props {
				if !yield(k) {
					return
				}
			}
		}), samples...)
		keys = append(keys, "no_such_key", strings.Repeat("k", 300))
		for _, k := range keys {
			rec(append(slices.Clone(path), k), n.next(k), want)
		}
	}
	rec(nil, tree, Replace)
	if checked < 10000 {
		t.Errorf("only %d paths checked", checked)
	}
	t.Logf("%d key paths", checked)
}
