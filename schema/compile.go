package schema

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/oceancode/oceancode/internal/jsonpos"
)

// draft2020 is the only dialect the embedded schemas may declare.
const draft2020 = "https://json-schema.org/draft/2020-12/schema"

// typeSet is a set of JSON types, as a bit mask.
type typeSet uint8

const (
	tNull typeSet = 1 << iota
	tBoolean
	tNumber
	tInteger
	tString
	tArray
	tObject
)

// typeNames is in the library's order (null, boolean, number, integer, string, array, object), which
// messages listing several types follow.
var typeNames = [...]struct {
	t    typeSet
	name string
}{
	{tNull, "null"}, {tBoolean, "boolean"}, {tNumber, "number"}, {tInteger, "integer"},
	{tString, "string"}, {tArray, "array"}, {tObject, "object"},
}

func (ts typeSet) names() []string {
	var out []string
	for _, tn := range typeNames {
		if ts&tn.t != 0 {
			out = append(out, tn.name)
		}
	}
	return out
}

// node is one compiled schema (a schema object or a boolean schema) of the embedded documents.
type node struct {
	raw     rawNode // the schema object it was compiled from (messages read its annotations)
	boolean *bool   // a boolean schema: true accepts everything, false nothing

	types     typeSet
	constVal  any
	hasConst  bool
	enum      []any
	enumTypes typeSet // the JSON types of the enum's values
	format    string  // "date-time" or "uri"

	ref    *node
	refStr string // the $ref as written, until resolved

	// objects
	props          map[string]*node
	patternProps   []patternProp
	additional     *node // a schema for other keys; additionalFalse reports them as a group instead
	additionalNone bool  // additionalProperties: false
	required       []string
	minProps       int // -1: absent
	maxProps       int

	// arrays
	items       *node
	minItems    int // -1: absent
	maxItems    int
	uniqueItems bool

	// strings
	minLength int // -1: absent
	maxLength int
	pattern   *lazyRegexp

	// numbers
	minimum, maximum, exclMin, exclMax *limit

	allOf, anyOf, oneOf []*node

	visit uint8 // checkCycles' mark
}

const (
	visitActive = 1 + iota
	visitDone
)

// limit is a numeric bound: exact for comparisons, and as a rational for messages.
type limit struct {
	dec decimal
	rat *big.Rat
}

type patternProp struct {
	re   *lazyRegexp
	node *node
}

// lazyRegexp compiles its pattern on first use: a validation meets few of the patterns, and compiling all
// of them up front was a fifth of the first Validate's cost. A pattern that does not compile matches
// nothing (so the value or key is reported, failing closed); checkPatterns, which the tests run, refuses
// such a schema.
type lazyRegexp struct {
	src  string
	once sync.Once
	re   *regexp.Regexp
	err  error
}

func (l *lazyRegexp) compile() error {
	l.once.Do(func() { l.re, l.err = regexp.Compile(l.src) })
	return l.err
}

// MatchString reports whether s contains a match of the pattern (patterns are not anchored).
func (l *lazyRegexp) MatchString(s string) bool { return l.compile() == nil && l.re.MatchString(s) }

func (l *lazyRegexp) String() string { return l.src }

// checkPatterns compiles every pattern of the given nodes and returns the first error.
func checkPatterns(nodes map[string]*node) error {
	for _, loc := range slices.Sorted(maps.Keys(nodes)) {
		n := nodes[loc]
		res := []*lazyRegexp{n.pattern}
		for _, pp := range n.patternProps {
			res = append(res, pp.re)
		}
		for _, re := range res {
			if re != nil {
				if err := re.compile(); err != nil {
					return fmt.Errorf("schema: %s: pattern: %w", loc, err)
				}
			}
		}
	}
	return nil
}

// annotations are keywords that assert nothing (x-* keys are annotations too).
var annotations = map[string]bool{
	"title": true, "description": true, "default": true, "examples": true, "$comment": true,
	"deprecated": true, "readOnly": true, "writeOnly": true,
}

// compiler compiles a set of documents that refer to each other. Every subschema is compiled once and
// keyed by its canonical location (document $id + "#" + JSON Pointer), so $ref targets are shared nodes.
type compiler struct {
	docs  map[string]any
	nodes map[string]*node
	refs  []*node // nodes whose $ref is resolved once every document is compiled
}

// compileDocs compiles documents keyed by $id and returns every schema in them, keyed by location
// ("$id#" + JSON Pointer; a document's root is at "$id#").
func compileDocs(docs map[string]any) (map[string]*node, error) {
	c := &compiler{docs: docs, nodes: make(map[string]*node, 256)}
	ids := make([]string, 0, len(docs))
	for id := range docs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		root, ok := docs[id].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("schema: compile %s: the document is not a JSON object", fileName(id))
		}
		if s, ok := root["$schema"]; ok && s != draft2020 {
			return nil, fmt.Errorf("schema: compile %s: $schema %v is not supported (want %s)", fileName(id), s, draft2020)
		}
		if s, ok := root["$id"]; ok && s != id {
			return nil, fmt.Errorf("schema: compile %s: $id %v does not match %s", fileName(id), s, id)
		}
		if _, err := c.compile(id, nil, root); err != nil {
			return nil, err
		}
	}
	for _, n := range c.refs {
		target, err := c.resolve(n.raw.doc, n.refStr)
		if err != nil {
			return nil, fmt.Errorf("schema: compile %s: $ref %q: %w", fileName(n.raw.doc), n.refStr, err)
		}
		n.ref = target
	}
	if err := c.checkCycles(); err != nil {
		return nil, err
	}
	return c.nodes, nil
}

// checkCycles refuses a loop of $ref / allOf / anyOf / oneOf that returns to a schema without
// descending into the instance: validating with it would never end.
func (c *compiler) checkCycles() error {
	var visit func(n *node) *node
	visit = func(n *node) *node {
		switch n.visit {
		case visitActive:
			return n
		case visitDone:
			return nil
		}
		n.visit = visitActive
		for _, alts := range [][]*node{n.allOf, n.anyOf, n.oneOf, {n.ref}} {
			for _, m := range alts {
				if m != nil {
					if bad := visit(m); bad != nil {
						return bad
					}
				}
			}
		}
		n.visit = visitDone
		return nil
	}
	for _, n := range c.nodes {
		if bad := visit(n); bad != nil {
			for loc, m := range c.nodes {
				if m == bad {
					return fmt.Errorf("schema: compile: %s refers back to itself without descending into the value", loc)
				}
			}
		}
	}
	return nil
}

func fileName(id string) string { return strings.TrimPrefix(id, BaseURL) }

// resolve returns the node a $ref in document doc leads to.
func (c *compiler) resolve(doc, ref string) (*node, error) {
	target := doc
	frag := ""
	if i := strings.IndexByte(ref, '#'); i >= 0 {
		ref, frag = ref[:i], ref[i+1:]
	}
	if ref != "" && !strings.ContainsAny(ref, ":/?%\\") && ref != "." && ref != ".." {
		// A file name next to the document, as in "config.schema.json#/$defs/x".
		target = doc[:strings.LastIndexByte(doc, '/')+1] + ref
	} else if ref != "" {
		base, err := url.Parse(doc)
		if err != nil {
			return nil, err
		}
		rel, err := url.Parse(ref)
		if err != nil {
			return nil, err
		}
		target = base.ResolveReference(rel).String()
	}
	if _, ok := c.docs[target]; !ok {
		return nil, fmt.Errorf("no embedded schema %s (only the embedded schemas are used)", target)
	}
	if strings.IndexByte(frag, '%') >= 0 {
		if f, err := url.PathUnescape(frag); err == nil {
			frag = f
		}
	}
	toks, err := jsonpos.Split(frag)
	if err != nil {
		return nil, err
	}
	n, ok := c.nodes[target+"#"+jsonpos.Pointer(toks...)]
	if !ok {
		return nil, fmt.Errorf("%s#%s is not a schema", fileName(target), frag)
	}
	return n, nil
}

// compile compiles the schema v found at ptr in document doc.
func (c *compiler) compile(doc string, ptr []string, v any) (*node, error) {
	key := doc + "#" + jsonpos.Pointer(ptr...)
	if n, ok := c.nodes[key]; ok {
		return n, nil
	}
	n := &node{minProps: -1, maxProps: -1, minItems: -1, maxItems: -1, minLength: -1, maxLength: -1}
	c.nodes[key] = n
	switch x := v.(type) {
	case bool:
		n.boolean = &x
		return n, nil
	case map[string]any:
		n.raw = rawNode{doc: doc, m: x}
	default:
		return nil, c.errf(doc, ptr, "a schema must be an object or a boolean, not %s", describeValue(v))
	}
	m := n.raw.m
	sub := func(kw string, more ...string) []string {
		p := make([]string, 0, len(ptr)+1+len(more))
		return append(append(append(p, ptr...), kw), more...)
	}
	for kw, val := range m {
		var err error
		switch kw {
		case "$schema", "$id":
			if len(ptr) != 0 {
				err = c.errf(doc, ptr, "%s is only supported at a document's root", kw)
			}
		case "$defs":
			defs, ok := val.(map[string]any)
			if !ok {
				return nil, c.errf(doc, ptr, "$defs must be an object")
			}
			for name, d := range defs {
				if _, err := c.compile(doc, sub(kw, name), d); err != nil {
					return nil, err
				}
			}
		case "$ref":
			s, ok := val.(string)
			if !ok {
				return nil, c.errf(doc, ptr, "$ref must be a string")
			}
			n.refStr = s
			c.refs = append(c.refs, n)
		case "type":
			n.types, err = c.types(doc, ptr, val)
		case "enum":
			arr, ok := val.([]any)
			if !ok || len(arr) == 0 {
				return nil, c.errf(doc, ptr, "enum must be a non-empty array")
			}
			n.enum = arr
			for _, e := range arr {
				n.enumTypes |= typeOf(e)
			}
		case "const":
			n.constVal, n.hasConst = val, true
		case "format":
			s, _ := val.(string)
			if s != "date-time" && s != "uri" {
				err = c.errf(doc, ptr, "format %v is not supported (date-time and uri are)", val)
			}
			n.format = s
		case "properties":
			props, ok := val.(map[string]any)
			if !ok {
				return nil, c.errf(doc, ptr, "properties must be an object")
			}
			n.props = make(map[string]*node, len(props))
			for name, p := range props {
				if n.props[name], err = c.compile(doc, sub(kw, name), p); err != nil {
					return nil, err
				}
			}
		case "patternProperties":
			pats, ok := val.(map[string]any)
			if !ok {
				return nil, c.errf(doc, ptr, "patternProperties must be an object")
			}
			srcs := make([]string, 0, len(pats))
			for p := range pats {
				srcs = append(srcs, p)
			}
			slices.Sort(srcs)
			for _, p := range srcs {
				pn, err := c.compile(doc, sub(kw, p), pats[p])
				if err != nil {
					return nil, err
				}
				n.patternProps = append(n.patternProps, patternProp{re: &lazyRegexp{src: p}, node: pn})
			}
		case "additionalProperties":
			if b, ok := val.(bool); ok && !b {
				n.additionalNone = true
			} else {
				n.additional, err = c.compile(doc, sub(kw), val)
			}
		case "required":
			n.required, err = c.strings(doc, ptr, kw, val)
		case "items":
			n.items, err = c.compile(doc, sub(kw), val)
		case "allOf", "anyOf", "oneOf":
			arr, ok := val.([]any)
			if !ok || len(arr) == 0 {
				return nil, c.errf(doc, ptr, "%s must be a non-empty array", kw)
			}
			subs := make([]*node, len(arr))
			for i, s := range arr {
				if subs[i], err = c.compile(doc, sub(kw, fmt.Sprint(i)), s); err != nil {
					return nil, err
				}
			}
			switch kw {
			case "allOf":
				n.allOf = subs
			case "anyOf":
				n.anyOf = subs
			default:
				n.oneOf = subs
			}
		case "minItems":
			n.minItems, err = c.count(doc, ptr, kw, val)
		case "maxItems":
			n.maxItems, err = c.count(doc, ptr, kw, val)
		case "minLength":
			n.minLength, err = c.count(doc, ptr, kw, val)
		case "maxLength":
			n.maxLength, err = c.count(doc, ptr, kw, val)
		case "minProperties":
			n.minProps, err = c.count(doc, ptr, kw, val)
		case "maxProperties":
			n.maxProps, err = c.count(doc, ptr, kw, val)
		case "uniqueItems":
			b, ok := val.(bool)
			if !ok {
				return nil, c.errf(doc, ptr, "uniqueItems must be true or false")
			}
			n.uniqueItems = b
		case "minimum":
			n.minimum, err = c.number(doc, ptr, kw, val)
		case "maximum":
			n.maximum, err = c.number(doc, ptr, kw, val)
		case "exclusiveMinimum":
			n.exclMin, err = c.number(doc, ptr, kw, val)
		case "exclusiveMaximum":
			n.exclMax, err = c.number(doc, ptr, kw, val)
		case "pattern":
			s, ok := val.(string)
			if !ok {
				return nil, c.errf(doc, ptr, "pattern must be a string")
			}
			n.pattern = &lazyRegexp{src: s}
		default:
			if !annotations[kw] && !strings.HasPrefix(kw, "x-") {
				err = c.errf(doc, ptr, "keyword %q is not supported by this package's validator", kw)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	return n, nil
}

func (c *compiler) errf(doc string, ptr []string, format string, args ...any) error {
	return fmt.Errorf("schema: compile %s: #%s: %s", fileName(doc), jsonpos.Pointer(ptr...), fmt.Sprintf(format, args...))
}

func (c *compiler) types(doc string, ptr []string, v any) (typeSet, error) {
	names, ok := v.([]any)
	if !ok {
		names = []any{v}
	}
	var ts typeSet
	for _, nm := range names {
		found := false
		for _, tn := range typeNames {
			if nm == tn.name {
				ts |= tn.t
				found = true
			}
		}
		if !found {
			return 0, c.errf(doc, ptr, "type %v is not a JSON type", nm)
		}
	}
	if ts == 0 {
		return 0, c.errf(doc, ptr, "type must name at least one type")
	}
	return ts, nil
}

func (c *compiler) strings(doc string, ptr []string, kw string, v any) ([]string, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, c.errf(doc, ptr, "%s must be an array of strings", kw)
	}
	out := make([]string, len(arr))
	for i, s := range arr {
		if out[i], ok = s.(string); !ok {
			return nil, c.errf(doc, ptr, "%s must be an array of strings", kw)
		}
	}
	return out, nil
}

func (c *compiler) count(doc string, ptr []string, kw string, v any) (int, error) {
	r, ok := ratOf(v)
	if !ok || !r.IsInt() || r.Sign() < 0 || !r.Num().IsInt64() || r.Num().Int64() > 1<<31 {
		return 0, c.errf(doc, ptr, "%s must be a non-negative integer", kw)
	}
	return int(r.Num().Int64()), nil
}

func (c *compiler) number(doc string, ptr []string, kw string, v any) (*limit, error) {
	r, ok1 := ratOf(v)
	d, ok2 := numberOf(v)
	if !ok1 || !ok2 {
		return nil, c.errf(doc, ptr, "%s must be a number (with an exponent of at most 1e6)", kw)
	}
	return &limit{dec: d, rat: r}, nil
}

// ratOf returns a JSON number as an exact rational. It fails for what is not a number and for numbers
// whose exponent math/big refuses (beyond ±1e6).
func ratOf(v any) (*big.Rat, bool) {
	var s string
	switch x := v.(type) {
	case json.Number:
		s = string(x)
	case float64, float32, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		s = fmt.Sprint(x)
	default:
		return nil, false
	}
	return new(big.Rat).SetString(s)
}
