package schema

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"net/url"
	"slices"
	"strconv"
	"strings"

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

	merge Merge // the x-merge annotation (MergeOf)

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

// isAnnotation reports whether kw is a keyword that asserts nothing (x-* keys are annotations too).
func isAnnotation(kw string) bool {
	switch kw {
	case "title", "description", "default", "examples", "$comment", "deprecated", "readOnly", "writeOnly":
		return true
	}
	return strings.HasPrefix(kw, "x-")
}

// compiler compiles a set of documents that refer to each other. Every subschema is compiled once and
// keyed by its canonical location (document $id + "#" + JSON Pointer), so $ref targets are shared nodes.
// A document is compiled when it is asked for or first referred to (compileDoc), so a process compiles
// only the documents it validates against and what they refer to.
type compiler struct {
	docs     map[string]any                     // $id → decoded document, as far as known
	source   func(id string) (any, bool, error) // decodes a document not in docs yet (nil: docs is all)
	compiled map[string]bool                    // the documents compiled (or being compiled)
	nodes    map[string]*node
	refs     []*node // nodes whose $ref is still to be resolved
}

func newCompiler(docs map[string]any, source func(id string) (any, bool, error)) *compiler {
	return &compiler{docs: docs, source: source, compiled: map[string]bool{}, nodes: make(map[string]*node, 256)}
}

// compileDocs compiles documents keyed by $id and returns every schema in them, keyed by location
// ("$id#" + JSON Pointer; a document's root is at "$id#").
func compileDocs(docs map[string]any) (map[string]*node, error) {
	c := newCompiler(docs, nil)
	for _, id := range slices.Sorted(maps.Keys(docs)) {
		if err := c.compileDoc(id); err != nil {
			return nil, err
		}
	}
	if err := c.checkCycles(); err != nil {
		return nil, err
	}
	return c.nodes, nil
}

// known reports whether id names a document the compiler has or can decode, decoding it if need be.
func (c *compiler) known(id string) (bool, error) {
	if _, ok := c.docs[id]; ok {
		return true, nil
	}
	if c.source == nil {
		return false, nil
	}
	v, ok, err := c.source(id)
	if ok && err == nil {
		c.docs[id] = v
	}
	return ok, err
}

// compileDoc compiles document id, unless it is already, and resolves its $refs, compiling the documents
// they lead to. The caller checks for cycles (checkCycles) once the documents it asked for are compiled.
func (c *compiler) compileDoc(id string) error {
	if c.compiled[id] {
		return nil
	}
	if ok, err := c.known(id); err != nil {
		return err
	} else if !ok {
		return fmt.Errorf("schema: no embedded schema %s", id)
	}
	c.compiled[id] = true // before its $refs are resolved: they may lead back to it
	root, ok := c.docs[id].(map[string]any)
	if !ok {
		return fmt.Errorf("schema: compile %s: the document is not a JSON object", fileName(id))
	}
	if s, ok := root["$schema"]; ok && s != draft2020 {
		return fmt.Errorf("schema: compile %s: $schema %v is not supported (want %s)", fileName(id), s, draft2020)
	}
	if s, ok := root["$id"]; ok && s != id {
		return fmt.Errorf("schema: compile %s: $id %v does not match %s", fileName(id), s, id)
	}
	first := len(c.refs)
	if _, err := c.compile(id, id+"#", root); err != nil {
		return err
	}
	// Resolving may compile another document, which appends its own refs and resolves them.
	for i := first; i < len(c.refs); i++ {
		n := c.refs[i]
		if n.ref != nil {
			continue
		}
		target, loc, err := c.resolve(n.raw.doc, n.refStr)
		if err != nil {
			return fmt.Errorf("schema: compile %s: $ref %q: %w", fileName(n.raw.doc), n.refStr, err)
		}
		if err := c.compileDoc(target); err != nil {
			return err
		}
		if n.ref = c.nodes[loc]; n.ref == nil {
			_, frag, _ := strings.Cut(loc, "#")
			return fmt.Errorf("schema: compile %s: $ref %q: %s#%s is not a schema", fileName(n.raw.doc), n.refStr, fileName(target), frag)
		}
	}
	return nil
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

// resolve returns the document a $ref in document doc leads to, and the location of its target
// ("$id#pointer", canonical: the key of c.nodes).
func (c *compiler) resolve(doc, ref string) (string, string, error) {
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
			return "", "", err
		}
		rel, err := url.Parse(ref)
		if err != nil {
			return "", "", err
		}
		target = base.ResolveReference(rel).String()
	}
	if ok, err := c.known(target); err != nil {
		return "", "", err
	} else if !ok {
		return "", "", fmt.Errorf("no embedded schema %s (only the embedded schemas are used)", target)
	}
	if strings.IndexByte(frag, '%') >= 0 {
		if f, err := url.PathUnescape(frag); err == nil {
			frag = f
		}
	}
	if strings.IndexByte(frag, '~') < 0 && (frag == "" || frag[0] == '/') {
		return target, target + "#" + frag, nil // already canonical: the usual "#/$defs/name"
	}
	toks, err := jsonpos.Split(frag)
	if err != nil {
		return "", "", err
	}
	return target, target + "#" + jsonpos.Pointer(toks...), nil
}

// ptrToken escapes a JSON Pointer reference token ("~" as "~0", "/" as "~1").
func ptrToken(t string) string {
	if !strings.ContainsAny(t, "~/") {
		return t
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(t)
}

// compile compiles the schema v found at loc ("$id#pointer") in document doc.
func (c *compiler) compile(doc, loc string, v any) (*node, error) {
	if n, ok := c.nodes[loc]; ok {
		return n, nil
	}
	n := &node{minProps: -1, maxProps: -1, minItems: -1, maxItems: -1, minLength: -1, maxLength: -1}
	c.nodes[loc] = n
	switch x := v.(type) {
	case bool:
		n.boolean = &x
		return n, nil
	case map[string]any:
		n.raw = rawNode{doc: doc, m: x}
	default:
		return nil, c.errf(loc, "a schema must be an object or a boolean, not %s", describeValue(v))
	}
	m := n.raw.m
	// sub is the location of a subschema: under keyword kw, and under a name or index in it.
	sub := func(kw string, name ...string) string {
		if len(name) == 0 {
			return loc + "/" + kw
		}
		return loc + "/" + kw + "/" + ptrToken(name[0])
	}
	for kw, val := range m {
		var err error
		switch kw {
		case "$schema", "$id":
			if loc != doc+"#" {
				err = c.errf(loc, "%s is only supported at a document's root", kw)
			}
		case "$defs":
			defs, ok := val.(map[string]any)
			if !ok {
				return nil, c.errf(loc, "$defs must be an object")
			}
			for name, d := range defs {
				if _, err := c.compile(doc, sub(kw, name), d); err != nil {
					return nil, err
				}
			}
		case "$ref":
			s, ok := val.(string)
			if !ok {
				return nil, c.errf(loc, "$ref must be a string")
			}
			n.refStr = s
			c.refs = append(c.refs, n)
		case "type":
			n.types, err = c.types(loc, val)
		case "enum":
			arr, ok := val.([]any)
			if !ok || len(arr) == 0 {
				return nil, c.errf(loc, "enum must be a non-empty array")
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
				err = c.errf(loc, "format %v is not supported (date-time and uri are)", val)
			}
			n.format = s
		case "properties":
			props, ok := val.(map[string]any)
			if !ok {
				return nil, c.errf(loc, "properties must be an object")
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
				return nil, c.errf(loc, "patternProperties must be an object")
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
			n.required, err = c.strings(loc, kw, val)
		case "items":
			n.items, err = c.compile(doc, sub(kw), val)
		case "allOf", "anyOf", "oneOf":
			arr, ok := val.([]any)
			if !ok || len(arr) == 0 {
				return nil, c.errf(loc, "%s must be a non-empty array", kw)
			}
			subs := make([]*node, len(arr))
			for i, s := range arr {
				if subs[i], err = c.compile(doc, sub(kw, strconv.Itoa(i)), s); err != nil {
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
			n.minItems, err = c.count(loc, kw, val)
		case "maxItems":
			n.maxItems, err = c.count(loc, kw, val)
		case "minLength":
			n.minLength, err = c.count(loc, kw, val)
		case "maxLength":
			n.maxLength, err = c.count(loc, kw, val)
		case "minProperties":
			n.minProps, err = c.count(loc, kw, val)
		case "maxProperties":
			n.maxProps, err = c.count(loc, kw, val)
		case "uniqueItems":
			b, ok := val.(bool)
			if !ok {
				return nil, c.errf(loc, "uniqueItems must be true or false")
			}
			n.uniqueItems = b
		case "minimum":
			n.minimum, err = c.number(loc, kw, val)
		case "maximum":
			n.maximum, err = c.number(loc, kw, val)
		case "exclusiveMinimum":
			n.exclMin, err = c.number(loc, kw, val)
		case "exclusiveMaximum":
			n.exclMax, err = c.number(loc, kw, val)
		case "pattern":
			s, ok := val.(string)
			if !ok {
				return nil, c.errf(loc, "pattern must be a string")
			}
			n.pattern = &lazyRegexp{src: s}
		case "x-merge":
			if s, ok := val.(string); ok {
				n.merge = Merge(s)
			}
		default:
			if !isAnnotation(kw) {
				err = c.errf(loc, "keyword %q is not supported by this package's validator", kw)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	return n, nil
}

func (c *compiler) errf(loc string, format string, args ...any) error {
	doc, ptr, _ := strings.Cut(loc, "#")
	return fmt.Errorf("schema: compile %s: #%s: %s", fileName(doc), ptr, fmt.Sprintf(format, args...))
}

func (c *compiler) types(loc string, v any) (typeSet, error) {
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
			return 0, c.errf(loc, "type %v is not a JSON type", nm)
		}
	}
	if ts == 0 {
		return 0, c.errf(loc, "type must name at least one type")
	}
	return ts, nil
}

func (c *compiler) strings(loc, kw string, v any) ([]string, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, c.errf(loc, "%s must be an array of strings", kw)
	}
	out := make([]string, len(arr))
	for i, s := range arr {
		if out[i], ok = s.(string); !ok {
			return nil, c.errf(loc, "%s must be an array of strings", kw)
		}
	}
	return out, nil
}

func (c *compiler) count(loc, kw string, v any) (int, error) {
	if s, ok := v.(json.Number); ok && len(s) <= 9 && plainInteger(string(s)) && s[0] != '-' {
		return strconv.Atoi(string(s)) // the usual case, without math/big
	}
	r, ok := ratOf(v)
	if !ok || !r.IsInt() || r.Sign() < 0 || !r.Num().IsInt64() || r.Num().Int64() > 1<<31 {
		return 0, c.errf(loc, "%s must be a non-negative integer", kw)
	}
	return int(r.Num().Int64()), nil
}

func (c *compiler) number(loc, kw string, v any) (*limit, error) {
	r, ok1 := ratOf(v)
	d, ok2 := numberOf(v)
	if !ok1 || !ok2 {
		return nil, c.errf(loc, "%s must be a number (with an exponent of at most 1e6)", kw)
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
