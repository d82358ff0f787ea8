package schema

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

// MergeOf returns the merge strategy for a config key path such as
// ["permission", "bash", "git status"] (Append) or ["sandbox", "deny"] (Union). The nearest annotated
// ancestor (or the key itself) decides; unannotated and unknown keys are Replace. The annotations are
// read from the compiled config.schema.json, following properties, patternProperties,
// additionalProperties, $ref and oneOf/anyOf/allOf.
//
// The walk is done per call, along the path only: no tree of the whole schema is built, and a
// patternProperties pattern is compiled only when a key reaches it (a load path asks for a few dozen
// keys; building the tree for every key the schema allows cost as much as compiling the schemas).
func MergeOf(path []string) Merge {
	root, err := schemaFor(Config)
	if err != nil {
		return Replace
	}
	var buf [16]*node
	srcs := mergeSources(buf[:0], root, 0)
	m := Replace
	if x := mergeAnnotation(srcs); x != "" {
		m = x
	}
	for _, key := range path {
		next := mergeChild(srcs, key)
		if next == nil {
			return m
		}
		srcs = mergeSources(buf[:0], next, 0)
		if x := mergeAnnotation(srcs); x != "" {
			m = x
		}
	}
	return m
}

// mergeSources appends the schema objects that describe the same place as n, in the order their
// annotations and child schemas count: n itself, then what its $ref leads to, then its allOf, oneOf
// and anyOf branches, each followed the same way. Boolean schemas describe no keys. depth bounds the
// chains (compiling refuses cycles, so they end anyway).
func mergeSources(out []*node, n *node, depth int) []*node {
	if depth > 32 || n.raw.m == nil {
		return out
	}
	out = append(out, n)
	if n.ref != nil {
		out = mergeSources(out, n.ref, depth+1)
	}
	for _, alts := range [...][]*node{n.allOf, n.oneOf, n.anyOf} {
		for _, s := range alts {
			out = mergeSources(out, s, depth+1)
		}
	}
	return out
}

// mergeAnnotation is the first x-merge of srcs.
func mergeAnnotation(srcs []*node) Merge {
	for _, s := range srcs {
		if s.merge != "" {
			return s.merge
		}
	}
	return ""
}

// mergeChild returns the schema object a key leads to from srcs: the first one that names it in
// properties, else the first patternProperties pattern that matches it, else the first
// additionalProperties schema; nil if none does.
func mergeChild(srcs []*node, key string) *node {
	for _, s := range srcs {
		if p := s.props[key]; p != nil && p.raw.m != nil {
			return p
		}
	}
	for _, s := range srcs {
		for _, pp := range s.patternProps {
			if pp.node.raw.m != nil && pp.re.MatchString(key) {
				return pp.node
			}
		}
	}
	for _, s := range srcs {
		if s.additional != nil && s.additional.raw.m != nil {
			return s.additional
		}
	}
	return nil
}
