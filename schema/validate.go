package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/oceancode/oceancode/internal/jsonpos"
)

// Violation is one way a document breaks its schema.
type Violation struct {
	File    string `json:"file"`    // the file name given to Validate
	Pointer string `json:"pointer"` // JSON Pointer of the offending value (for an unknown key: of the key itself)
	Line    int    `json:"line"`    // 1-based line of Pointer's key (object member) or first byte (array element, root)
	Column  int    `json:"column"`  // 1-based column, in bytes
	// Keyword is the JSON Schema keyword that failed: "type", "enum", "const", "required",
	// "additionalProperties", "propertyNames", "pattern", "format", "minimum", …
	Keyword string `json:"keyword"`
	Message string `json:"message"` // what is wrong, in words a person can act on
	// UnknownKey is true when the violation is a key the schema does not define at that place;
	// Pointer then points at the unknown key (e.g. /sandbox/mdoe) and Line/Column at that key.
	UnknownKey bool `json:"unknown_key,omitempty"`
}

// Error formats the violation as "FILE:LINE:COL: /json/pointer: message".
func (v Violation) Error() string {
	ptr := v.Pointer
	if ptr == "" {
		ptr = "(root)"
	}
	return fmt.Sprintf("%s:%d:%d: %s: %s", v.File, v.Line, v.Column, ptr, v.Message)
}

// ParseError reports a file that is not acceptable JSON (syntax, trailing data, depth, duplicate keys).
// It wraps the *jsonpos.SyntaxError or *jsonpos.DuplicateKeyError and formats as "FILE:LINE:COL: message".
type ParseError struct {
	File string
	jsonpos.Pos
	Err error
}

func (e *ParseError) Error() string {
	msg := strings.TrimPrefix(e.Err.Error(), fmt.Sprintf("line %d, column %d: ", e.Line, e.Column))
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, msg)
}

func (e *ParseError) Unwrap() error { return e.Err }

// Validate parses data strictly, with the caps of every oceancode (MaxConfigSize, MaxConfigDepth), and
// validates it against the schema of kind k. file names the data in messages. A document over the caps or
// not acceptable JSON is returned as a *ParseError; otherwise every violation
// is returned, sorted by position in the document. No violations and a nil error mean the file is valid.
func Validate(k Kind, file string, data []byte) ([]Violation, error) {
	if _, err := schemaFor(k); err != nil {
		return nil, err
	}
	if err := CheckSize(len(data)); err != nil {
		return nil, &ParseError{File: file, Pos: jsonpos.Pos{Line: 1, Column: 1}, Err: err}
	}
	doc, err := jsonpos.Parse(data, jsonpos.Options{MaxDepth: MaxConfigDepth})
	if err != nil {
		pe := &ParseError{File: file, Err: err}
		var se *jsonpos.SyntaxError
		var de *jsonpos.DuplicateKeyError
		switch {
		case errors.As(err, &se):
			pe.Pos = se.Pos
		case errors.As(err, &de):
			pe.Pos = de.Pos
		}
		return nil, pe
	}
	return ValidateValue(k, file, doc), nil
}

// ValidateValue validates an already parsed document against the schema of kind k and returns every
// violation, sorted by position. If the schema itself cannot be compiled (a bug), the document is reported
// as violating it, so callers fail closed.
func ValidateValue(k Kind, file string, doc *jsonpos.Doc) []Violation {
	root, err := schemaFor(k)
	if err != nil {
		return []Violation{{File: file, Line: 1, Column: 1, Keyword: "$schema", Message: err.Error()}}
	}
	errs := evaluate(root, doc.Value)
	if len(errs) == 0 {
		return nil
	}
	return report(loadFor(k), doc, file, errs)
}

// report turns failed assertions into violations: one or more per leaf error, deduplicated and sorted by
// position in the document.
func report(c *compiled, doc *jsonpos.Doc, file string, errs []*verror) []Violation {
	r := reporter{c: c, doc: doc, file: file}
	var leaves []*verror
	for _, e := range errs {
		leaves = append(leaves, r.leaves(e)...)
	}
	var out []Violation
	seen := map[string]bool{}
	for _, l := range leaves {
		for _, v := range r.violations(l) {
			key := v.Pointer + "\x00" + v.Keyword + "\x00" + v.Message
			if !seen[key] {
				seen[key] = true
				out = append(out, v)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Column != b.Column {
			return a.Column < b.Column
		}
		if a.Pointer != b.Pointer {
			return a.Pointer < b.Pointer
		}
		return a.Message < b.Message
	})
	return out
}

type reporter struct {
	c    *compiled
	doc  *jsonpos.Doc
	file string
}

// leaves flattens an error to its leaf causes. For a failed oneOf/anyOf it keeps only the branch that
// fits the value best (or one combined leaf), so a user is not shown the errors of shapes they never
// meant.
func (r *reporter) leaves(e *verror) []*verror {
	if (e.kind == kOneOf || e.kind == kAnyOf) && len(e.branches) > 0 {
		return r.bestBranch(e)
	}
	return []*verror{e}
}

func (r *reporter) branchLeaves(errs []*verror) []*verror {
	var out []*verror
	for _, e := range errs {
		out = append(out, r.leaves(e)...)
	}
	return out
}

func (r *reporter) bestBranch(e *verror) []*verror {
	loc := e.loc
	best, bestScore := -1, 0
	var branches [][]*verror
	allType, allRequired := true, true
	var required []string
	for i, b := range e.branches {
		ls := r.branchLeaves(b)
		branches = append(branches, ls)
		score := 0
		for _, l := range ls {
			at := slices.Equal(l.loc, loc)
			switch l.kind {
			case kType:
				if at {
					score += 100
				} else {
					score++
				}
			case kRequired, kAdditional:
				if at {
					score += 10
				} else {
					score++
				}
			case kEnum, kConst:
				if at {
					score += 5
				} else {
					score++
				}
			default:
				score++
			}
		}
		if len(ls) != 1 || ls[0].kind != kType || !slices.Equal(ls[0].loc, loc) {
			allType = false
		}
		if len(ls) != 1 || !slices.Equal(ls[0].loc, loc) || ls[0].kind != kRequired || len(ls[0].names) != 1 {
			allRequired = false
		} else {
			required = append(required, ls[0].names[0])
		}
		if best < 0 || score < bestScore {
			best, bestScore = i, score
		}
	}
	switch {
	case allType:
		return []*verror{{kind: kAnyType, loc: loc, at: e.at}}
	case allRequired:
		return []*verror{{kind: kAltRequired, loc: loc, at: e.at, names: required}}
	}
	return branches[best]
}

func (r *reporter) violation(tokens []string, keyword, msg string) Violation {
	ptr := jsonpos.Pointer(tokens...)
	v := Violation{File: r.file, Pointer: ptr, Keyword: keyword, Message: msg}
	for p := ptr; ; {
		if pos, ok := r.doc.Pos(p); ok {
			v.Line, v.Column = pos.Line, pos.Column
			break
		}
		i := strings.LastIndexByte(p, '/')
		if i < 0 {
			v.Line, v.Column = 1, 1
			break
		}
		p = p[:i]
	}
	return v
}

func (r *reporter) violations(e *verror) []Violation {
	loc := e.loc
	name := keyPath(r.doc.Value, loc)
	node, haveNode := e.at, e.at.m != nil
	val := valueAt(r.doc.Value, loc)
	one := func(msg string) []Violation { return []Violation{r.violation(loc, e.kind.String(), msg)} }

	switch e.kind {
	case kAdditional:
		props := slices.Clone(e.names)
		sort.Strings(props)
		var out []Violation
		for _, p := range props {
			tokens := append(slices.Clone(loc), p)
			if haveNode && node.m["patternProperties"] != nil {
				// A map whose keys must match a pattern: a bad key is a malformed entry, not an
				// unknown setting.
				what := "is not a valid key here"
				if pm, ok := node.m["x-key-pattern-message"].(string); ok {
					what = pm
				}
				out = append(out, r.violation(tokens, "propertyNames", fmt.Sprintf("key %q%s %s", p, in(name), what)))
				continue
			}
			v := r.violation(tokens, "additionalProperties", r.unknownKeyMessage(node, haveNode, p))
			v.UnknownKey = true
			out = append(out, v)
		}
		return out
	case kRequired:
		var out []Violation
		for _, m := range e.names {
			out = append(out, r.violation(loc, "required", fmt.Sprintf("missing required key %q%s", m, in(name))))
		}
		return out
	case kAltRequired:
		return one("missing required key " + quoteList(e.names, " or ") + in(name))
	case kType:
		want := ""
		if haveNode {
			want = r.c.describe(node)
		}
		if want == "" || want == "a valid value" {
			var ws []string
			for _, w := range e.names {
				ws = append(ws, article(w))
			}
			want = strings.Join(ws, " or ")
		}
		return one(fmt.Sprintf("expected %s, got %s", want, describeValue(val)))
	case kAnyType:
		want := "a valid value"
		if haveNode {
			want = r.c.describe(node)
		}
		return one(fmt.Sprintf("expected %s, got %s", want, describeValue(val)))
	case kEnum:
		return one(fmt.Sprintf("%s must be one of %s; got %s", subject(name), listValues(e.values), literal(val)))
	case kConst:
		return one(fmt.Sprintf("%s must be %s; got %s", subject(name), literal(e.values[0]), literal(val)))
	case kFormat:
		what := "a valid " + e.str
		switch e.str {
		case "date-time":
			what = `an RFC 3339 date-time such as "2026-11-29T12:00:00Z"`
		case "uri":
			what = "an absolute URI such as \"https://example.com/path\""
		}
		return one(fmt.Sprintf("%s must be %s; got %s", subject(name), what, literal(val)))
	case kPattern:
		what := "must match the pattern " + e.str
		if haveNode {
			if pm, ok := node.m["x-pattern-message"].(string); ok {
				what = pm
			}
		}
		return one(fmt.Sprintf("%s %s; got %s", subject(name), what, literal(val)))
	case kMinimum:
		return one(fmt.Sprintf("%s must be at least %s; got %s", subject(name), ratString(e.limit), literal(val)))
	case kMaximum:
		return one(fmt.Sprintf("%s must be at most %s; got %s", subject(name), ratString(e.limit), literal(val)))
	case kExclusiveMinimum:
		return one(fmt.Sprintf("%s must be greater than %s; got %s", subject(name), ratString(e.limit), literal(val)))
	case kExclusiveMaximum:
		return one(fmt.Sprintf("%s must be less than %s; got %s", subject(name), ratString(e.limit), literal(val)))
	case kMinLength:
		if e.want == 1 {
			return one(fmt.Sprintf("%s must not be empty", subject(name)))
		}
		return one(fmt.Sprintf("%s must be at least %d characters long; got %d", subject(name), e.want, e.got))
	case kMaxLength:
		return one(fmt.Sprintf("%s must be at most %d characters long; got %d", subject(name), e.want, e.got))
	case kMinItems:
		return one(fmt.Sprintf("%s must list at least %s; got %d", subject(name), items(e.want), e.got))
	case kMaxItems:
		return one(fmt.Sprintf("%s must list at most %s; got %d", subject(name), items(e.want), e.got))
	case kUniqueItems:
		tokens := append(slices.Clone(loc), strconv.Itoa(e.dup[1]))
		return []Violation{r.violation(tokens, "uniqueItems", fmt.Sprintf("%s lists the same value twice (items %d and %d)", subject(name), e.dup[0], e.dup[1]))}
	case kMinProperties:
		return one(fmt.Sprintf("%s must have at least %d keys; got %d", subject(name), e.want, e.got))
	case kMaxProperties:
		return one(fmt.Sprintf("%s must have at most %d keys; got %d", subject(name), e.want, e.got))
	case kFalse:
		return one(fmt.Sprintf("%s is not allowed here", subject(name)))
	case kOneOf:
		return one(fmt.Sprintf("%s is ambiguous: it fits more than one of its allowed shapes", subject(name)))
	}
	return one(fmt.Sprintf("%s is not valid (%s)", subject(name), e.kind))
}

func (r *reporter) unknownKeyMessage(node rawNode, haveNode bool, key string) string {
	msg := fmt.Sprintf("unknown key %q", key)
	if !haveNode {
		return msg
	}
	if km, ok := node.m["x-key-messages"].(map[string]any); ok {
		if s, ok := km[key].(string); ok {
			return msg + ": " + s
		}
	}
	props, _ := node.m["properties"].(map[string]any)
	if len(props) == 0 {
		return msg + " (this object takes no keys)"
	}
	allowed := make([]string, 0, len(props))
	for p := range props {
		allowed = append(allowed, p)
	}
	sort.Strings(allowed)
	if s := suggest(key, allowed); s != "" {
		msg += fmt.Sprintf(" (did you mean %q? allowed: ", s)
	} else {
		msg += " (allowed: "
	}
	return msg + strings.Join(allowed, ", ") + ")"
}

// suggest returns the allowed key closest to key, if it is close enough to be a likely typo.
func suggest(key string, allowed []string) string {
	best, bestD := "", 0
	for _, a := range allowed {
		if strings.EqualFold(a, key) || strings.ReplaceAll(strings.ToLower(key), "-", "_") == a {
			return a
		}
		d := editDistance(strings.ToLower(key), a)
		limit := 2
		if len(a) <= 4 {
			limit = 1
		}
		if d <= limit && (best == "" || d < bestD) {
			best, bestD = a, d
		}
	}
	return best
}

// editDistance is the optimal string alignment distance (Levenshtein plus adjacent transpositions).
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// isIdent reports whether s matches ^[A-Za-z_][A-Za-z0-9_]*$ (a key shown bare in a key path). It is
// not a regexp so that the package has no initialisation work (see the package comment).
func isIdent(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// keyPath renders an instance location as a dotted key path in the style of `oceancode inspect`:
// sandbox.mode, permission.bash["git status"], agents.reviewer.tools[2].
func keyPath(root any, loc []string) string {
	var b strings.Builder
	v := root
	for _, t := range loc {
		switch x := v.(type) {
		case []any:
			b.WriteString("[" + t + "]")
			if i, err := strconv.Atoi(t); err == nil && i >= 0 && i < len(x) {
				v = x[i]
			} else {
				v = nil
			}
			continue
		case map[string]any:
			v = x[t]
		default:
			v = nil
		}
		if isIdent(t) {
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(t)
		} else {
			q, _ := json.Marshal(t)
			b.WriteString("[" + string(q) + "]")
		}
	}
	return b.String()
}

func valueAt(root any, loc []string) any {
	v := root
	for _, t := range loc {
		switch x := v.(type) {
		case map[string]any:
			v = x[t]
		case []any:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

func quoted(name string) string { return `"` + name + `"` }

// in returns ` in "name"`, or nothing for the root.
func in(name string) string {
	if name == "" {
		return ""
	}
	return " in " + quoted(name)
}

func subject(name string) string {
	if name == "" {
		return "the document"
	}
	return quoted(name)
}

func items(n int) string {
	if n == 1 {
		return "1 item"
	}
	return fmt.Sprintf("%d items", n)
}

// describeValue names a value's type for "got …": a string, the number 1.5, true, an array, …
func describeValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(x)
	case string:
		return "a string"
	case json.Number:
		if isIntegral(x) {
			return "the integer " + string(x)
		}
		return "the number " + string(x)
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("a %T", v)
}

// literal renders a scalar as JSON (strings quoted, at most 60 characters); arrays and objects by kind.
func literal(v any) string {
	switch x := v.(type) {
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	case string:
		if len(x) > 60 {
			x = x[:57] + "..."
		}
		b, _ := json.Marshal(x)
		return string(b)
	case json.Number:
		return string(x)
	case nil:
		return "null"
	default:
		b, err := json.Marshal(x)
		if err != nil {
			return fmt.Sprint(x)
		}
		return string(b)
	}
}

// listValues renders enum values, strings bare: read-only, workspace-write.
func listValues(vals []any) string {
	parts := make([]string, 0, len(vals))
	for _, v := range vals {
		if s, ok := v.(string); ok {
			parts = append(parts, s)
		} else {
			parts = append(parts, literal(v))
		}
	}
	return strings.Join(parts, ", ")
}

func quoteList(ss []string, sep string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, sep)
}

func ratString(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	return r.FloatString(6)
}
