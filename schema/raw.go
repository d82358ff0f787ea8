package schema

import (
	"net/url"
	"strings"

	"github.com/oceancode/oceancode/internal/jsonpos"
)

// rawNode is a schema object of the embedded documents, with the $id of the document it lives in (to
// resolve its relative $refs).
type rawNode struct {
	doc string
	m   map[string]any
}

// lookup returns the schema object at an absolute location such as
// "https://oceancode.dev/schema/config.schema.json#/$defs/sandbox".
func (c *compiled) lookup(loc string) (rawNode, bool) {
	doc, frag, _ := strings.Cut(loc, "#")
	v, ok := c.raw[doc]
	if !ok {
		return rawNode{}, false
	}
	if frag != "" {
		if f, err := url.PathUnescape(frag); err == nil {
			frag = f
		}
		toks, err := jsonpos.Split(frag)
		if err != nil {
			return rawNode{}, false
		}
		for _, t := range toks {
			switch x := v.(type) {
			case map[string]any:
				v, ok = x[t]
			case []any:
				i := 0
				ok = t != ""
				for _, ch := range t {
					if ch < '0' || ch > '9' {
						ok = false
						break
					}
					i = i*10 + int(ch-'0')
				}
				ok = ok && i < len(x)
				if ok {
					v = x[i]
				}
			default:
				ok = false
			}
			if !ok {
				return rawNode{}, false
			}
		}
	}
	m, ok := v.(map[string]any)
	return rawNode{doc: doc, m: m}, ok
}

// ref resolves n's $ref, if it has one.
func (c *compiled) ref(n rawNode) (rawNode, bool) {
	r, ok := n.m["$ref"].(string)
	if !ok {
		return rawNode{}, false
	}
	base, err := url.Parse(n.doc)
	if err != nil {
		return rawNode{}, false
	}
	rel, err := url.Parse(r)
	if err != nil {
		return rawNode{}, false
	}
	abs := base.ResolveReference(rel)
	frag := abs.Fragment
	abs.Fragment = ""
	return c.lookup(abs.String() + "#" + frag)
}

// find returns the value of keyword in n or, failing that, in the schemas n refers to with $ref.
func (c *compiled) find(n rawNode, keyword string) (any, rawNode, bool) {
	for range 16 {
		if v, ok := n.m[keyword]; ok {
			return v, n, true
		}
		next, ok := c.ref(n)
		if !ok {
			break
		}
		n = next
	}
	return nil, rawNode{}, false
}

// branches returns the subschemas of n's oneOf / anyOf (following $ref first).
func (c *compiled) branches(n rawNode) []rawNode {
	for _, kw := range []string{"oneOf", "anyOf"} {
		if v, owner, ok := c.find(n, kw); ok {
			arr, _ := v.([]any)
			var out []rawNode
			for _, b := range arr {
				if m, ok := b.(map[string]any); ok {
					out = append(out, rawNode{doc: owner.doc, m: m})
				}
			}
			return out
		}
	}
	return nil
}

// describe says in words what n accepts: "an array of strings", "an integer", "one of a, b".
func (c *compiled) describe(n rawNode) string {
	if v, _, ok := c.find(n, "enum"); ok {
		if vals, ok := v.([]any); ok {
			return quoteAlternatives(vals)
		}
	}
	if v, _, ok := c.find(n, "const"); ok {
		return literal(v)
	}
	if t, owner, ok := c.find(n, "type"); ok {
		ts, _ := t.(string)
		if ts == "array" {
			if it, ok := owner.m["items"].(map[string]any); ok {
				item := c.describe(rawNode{doc: owner.doc, m: it})
				if p := plural(item); p != "" {
					return "an array of " + p
				}
			}
		}
		if ts != "" {
			return article(ts)
		}
	}
	if bs := c.branches(n); len(bs) > 0 {
		var parts []string
		sep := " or "
		for _, b := range bs {
			d := c.describe(b)
			if strings.Contains(d, " or ") {
				sep = ", or "
			}
			parts = append(parts, d)
		}
		return strings.Join(parts, sep)
	}
	return "a valid value"
}

func article(jsonType string) string {
	switch jsonType {
	case "integer", "array", "object":
		return "an " + jsonType
	case "boolean":
		return "true or false"
	case "null":
		return "null"
	default:
		return "a " + jsonType
	}
}

func plural(desc string) string {
	switch desc {
	case "a string":
		return "strings"
	case "an integer":
		return "integers"
	case "a number":
		return "numbers"
	case "an object":
		return "objects"
	case "true or false":
		return "booleans"
	}
	return ""
}

// quoteAlternatives renders enum values as `"a", "b" or "c"`.
func quoteAlternatives(vals []any) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = literal(v)
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}
