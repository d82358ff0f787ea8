package schema

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// errKind is the kind of a failed assertion.
type errKind uint8

const (
	kType errKind = iota + 1
	kConst
	kEnum
	kFormat
	kFalse // the boolean schema false
	kRequired
	kAdditional // additionalProperties: false, with the offending keys
	kMinProperties
	kMaxProperties
	kMinItems
	kMaxItems
	kUniqueItems
	kMinLength
	kMaxLength
	kPattern
	kMinimum
	kMaximum
	kExclusiveMinimum
	kExclusiveMaximum
	kOneOf // no alternative fits (branches set) or more than one does (ambiguous)
	kAnyOf // no alternative fits

	// Made by the reporter when it folds the failed alternatives of a oneOf/anyOf into one.
	kAnyType     // the value's type fits no alternative
	kAltRequired // every alternative misses one (different) required key
)

// keyword is the JSON Schema keyword of each kind, as in Violation.Keyword.
var keyword = [...]string{
	kType: "type", kConst: "const", kEnum: "enum", kFormat: "format", kFalse: "false",
	kRequired: "required", kAdditional: "additionalProperties", kMinProperties: "minProperties",
	kMaxProperties: "maxProperties", kMinItems: "minItems", kMaxItems: "maxItems", kUniqueItems: "uniqueItems",
	kMinLength: "minLength", kMaxLength: "maxLength", kPattern: "pattern", kMinimum: "minimum",
	kMaximum: "maximum", kExclusiveMinimum: "exclusiveMinimum", kExclusiveMaximum: "exclusiveMaximum",
	kOneOf: "oneOf", kAnyOf: "anyOf", kAnyType: "type", kAltRequired: "required",
}

func (k errKind) String() string {
	if int(k) < len(keyword) && keyword[k] != "" {
		return keyword[k]
	}
	return "errKind(" + strconv.Itoa(int(k)) + ")"
}

// verror is one failed assertion: what failed (kind and its details), where in the document (loc, the
// unescaped reference tokens of the instance location) and in which schema object (at, whose annotations
// the messages use). A failed oneOf/anyOf carries every alternative's errors in branches.
type verror struct {
	kind errKind
	loc  []string
	at   rawNode

	names    []string // kType: the wanted types; kRequired, kAltRequired: missing keys; kAdditional: the keys
	values   []any    // kEnum: the allowed values; kConst: the one value
	str      string   // kFormat: the format; kPattern: the pattern
	limit    *big.Rat // kMinimum … kExclusiveMaximum: the bound
	want     int      // kMin/MaxLength, kMin/MaxItems, kMin/MaxProperties
	got      int
	dup      [2]int      // kUniqueItems: the first pair of equal items
	branches [][]*verror // kOneOf, kAnyOf: the errors of every alternative; nil: ambiguous oneOf
}

// evaluate validates v against n and returns every failed assertion; nil means valid.
func evaluate(n *node, v any) []*verror {
	ev := &evaluator{path: make([]pathTok, 0, 8)}
	ev.failed = []*verror{&ev.scratch}
	return ev.eval(n, v)
}

// evaluator walks a document and a compiled schema together. In quick mode it only answers valid or not:
// it stops at the first failure and returns failed (its scratch error) instead of building errors.
type evaluator struct {
	path    []pathTok
	quick   bool
	scratch verror
	failed  []*verror // {&scratch}
}

// pathTok is one step of the instance location: an object key, or an array index (idx >= 0), turned into
// strings only when an error is built.
type pathTok struct {
	key string
	idx int
}

func (ev *evaluator) loc() []string {
	out := make([]string, len(ev.path))
	for i, t := range ev.path {
		if t.idx >= 0 {
			out[i] = strconv.Itoa(t.idx)
		} else {
			out[i] = t.key
		}
	}
	return out
}

func (ev *evaluator) newErr(k errKind, n *node) *verror {
	if ev.quick {
		return &ev.scratch
	}
	return &verror{kind: k, loc: ev.loc(), at: n.raw}
}

// one returns the single error e (in quick mode: failed).
func (ev *evaluator) one(e *verror) []*verror {
	if ev.quick {
		return ev.failed
	}
	return []*verror{e}
}

// valid reports whether v is valid against n, without building errors.
func (ev *evaluator) valid(n *node, v any) bool {
	q := ev.quick
	ev.quick = true
	ok := len(ev.eval(n, v)) == 0
	ev.quick = q
	return ok
}

func (ev *evaluator) child(n *node, v any, tok pathTok) []*verror {
	ev.path = append(ev.path, tok)
	errs := ev.eval(n, v)
	ev.path = ev.path[:len(ev.path)-1]
	return errs
}

// eval follows the library's order of evaluation, which decides which errors are reported: a failed
// type, const, enum or format ends the evaluation of that schema (nothing else is reported about the
// value there); otherwise $ref, the type-specific keywords and allOf/anyOf/oneOf all contribute.
func (ev *evaluator) eval(n *node, v any) []*verror {
	if n.boolean != nil {
		if *n.boolean {
			return nil
		}
		return ev.one(ev.newErr(kFalse, n))
	}
	t := typeOf(v)
	if n.types != 0 && n.types&t == 0 && (n.types&tInteger == 0 || t != tNumber || !isIntegral(v)) {
		e := ev.newErr(kType, n)
		if !ev.quick {
			e.names = n.types.names()
		}
		return ev.one(e)
	}
	if n.hasConst && !equal(v, n.constVal) {
		e := ev.newErr(kConst, n)
		if !ev.quick {
			e.values = []any{n.constVal}
		}
		return ev.one(e)
	}
	if n.enum != nil {
		matched := false
		if n.enumTypes&t != 0 {
			for _, want := range n.enum {
				if equal(v, want) {
					matched = true
					break
				}
			}
		}
		if !matched {
			e := ev.newErr(kEnum, n)
			if !ev.quick {
				e.values = n.enum
			}
			return ev.one(e)
		}
	}
	if n.format != "" {
		if s, ok := v.(string); ok && !formatOK(n.format, s) {
			e := ev.newErr(kFormat, n)
			e.str = n.format
			return ev.one(e)
		}
	}

	var errs []*verror
	if n.ref != nil {
		errs = ev.eval(n.ref, v)
		if ev.quick && len(errs) > 0 {
			return ev.failed
		}
	}
	switch x := v.(type) {
	case map[string]any:
		errs = ev.object(n, x, errs)
	case []any:
		errs = ev.array(n, x, errs)
	case string:
		errs = ev.str(n, x, errs)
	case json.Number, float64, float32, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		errs = ev.number(n, v, errs)
	}
	if ev.quick && len(errs) > 0 {
		return ev.failed
	}
	for _, s := range n.allOf {
		errs = append(errs, ev.eval(s, v)...)
		if ev.quick && len(errs) > 0 {
			return ev.failed
		}
	}
	if n.anyOf != nil {
		matched := false
		for _, s := range n.anyOf {
			if ev.valid(s, v) {
				matched = true
				break
			}
		}
		if !matched {
			if ev.quick {
				return ev.failed
			}
			errs = append(errs, ev.alternatives(kAnyOf, n, n.anyOf, v))
		}
	}
	if n.oneOf != nil {
		matched := 0
		for _, s := range n.oneOf {
			if ev.valid(s, v) {
				if matched++; matched == 2 {
					break
				}
			}
		}
		switch {
		case matched == 1:
		case ev.quick:
			return ev.failed
		case matched == 0:
			errs = append(errs, ev.alternatives(kOneOf, n, n.oneOf, v))
		default:
			errs = append(errs, ev.newErr(kOneOf, n)) // ambiguous: no branches
		}
	}
	return errs
}

func (ev *evaluator) alternatives(k errKind, n *node, alts []*node, v any) *verror {
	e := ev.newErr(k, n)
	e.branches = make([][]*verror, len(alts))
	for i, s := range alts {
		e.branches[i] = ev.eval(s, v)
	}
	return e
}

func (ev *evaluator) object(n *node, obj map[string]any, errs []*verror) []*verror {
	if n.minProps >= 0 && len(obj) < n.minProps {
		e := ev.newErr(kMinProperties, n)
		e.want, e.got = n.minProps, len(obj)
		errs = append(errs, e)
	}
	if n.maxProps >= 0 && len(obj) > n.maxProps {
		e := ev.newErr(kMaxProperties, n)
		e.want, e.got = n.maxProps, len(obj)
		errs = append(errs, e)
	}
	if ev.quick && len(errs) > 0 {
		return errs
	}
	var missing []string
	for _, r := range n.required {
		if _, ok := obj[r]; !ok {
			if ev.quick {
				return ev.failed
			}
			missing = append(missing, r)
		}
	}
	if missing != nil {
		e := ev.newErr(kRequired, n)
		e.names = missing
		errs = append(errs, e)
	}
	if n.props == nil && n.patternProps == nil && n.additional == nil && !n.additionalNone {
		return errs
	}
	var extra []string
	for k, val := range obj {
		evaluated := false
		if p, ok := n.props[k]; ok {
			evaluated = true
			errs = append(errs, ev.child(p, val, pathTok{key: k, idx: -1})...)
		}
		for _, pp := range n.patternProps {
			if pp.re.MatchString(k) {
				evaluated = true
				errs = append(errs, ev.child(pp.node, val, pathTok{key: k, idx: -1})...)
			}
		}
		if !evaluated {
			if n.additionalNone {
				if ev.quick {
					return ev.failed
				}
				extra = append(extra, k)
			} else if n.additional != nil {
				errs = append(errs, ev.child(n.additional, val, pathTok{key: k, idx: -1})...)
			}
		}
		if ev.quick && len(errs) > 0 {
			return errs
		}
	}
	if extra != nil {
		e := ev.newErr(kAdditional, n)
		e.names = extra
		errs = append(errs, e)
	}
	return errs
}

func (ev *evaluator) array(n *node, arr []any, errs []*verror) []*verror {
	if n.minItems >= 0 && len(arr) < n.minItems {
		e := ev.newErr(kMinItems, n)
		e.want, e.got = n.minItems, len(arr)
		errs = append(errs, e)
	}
	if n.maxItems >= 0 && len(arr) > n.maxItems {
		e := ev.newErr(kMaxItems, n)
		e.want, e.got = n.maxItems, len(arr)
		errs = append(errs, e)
	}
	if n.uniqueItems && len(arr) > 1 {
		if i, j := duplicates(arr); i >= 0 {
			e := ev.newErr(kUniqueItems, n)
			e.dup = [2]int{i, j}
			errs = append(errs, e)
		}
	}
	if ev.quick && len(errs) > 0 {
		return errs
	}
	if n.items != nil {
		for i, item := range arr {
			errs = append(errs, ev.child(n.items, item, pathTok{idx: i})...)
			if ev.quick && len(errs) > 0 {
				return errs
			}
		}
	}
	return errs
}

func (ev *evaluator) str(n *node, s string, errs []*verror) []*verror {
	if n.minLength >= 0 || n.maxLength >= 0 {
		l := utf8.RuneCountInString(s)
		if n.minLength >= 0 && l < n.minLength {
			e := ev.newErr(kMinLength, n)
			e.want, e.got = n.minLength, l
			errs = append(errs, e)
		}
		if n.maxLength >= 0 && l > n.maxLength {
			e := ev.newErr(kMaxLength, n)
			e.want, e.got = n.maxLength, l
			errs = append(errs, e)
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		e := ev.newErr(kPattern, n)
		if !ev.quick {
			e.str = n.pattern.String()
		}
		errs = append(errs, e)
	}
	return errs
}

func (ev *evaluator) number(n *node, v any, errs []*verror) []*verror {
	if n.minimum == nil && n.maximum == nil && n.exclMin == nil && n.exclMax == nil {
		return errs
	}
	d, _ := numberOf(v)
	check := func(k errKind, l *limit, bad func(int) bool) {
		if l != nil && bad(d.cmp(l.dec)) {
			e := ev.newErr(k, n)
			if !ev.quick {
				e.limit = l.rat
			}
			errs = append(errs, e)
		}
	}
	check(kMinimum, n.minimum, func(c int) bool { return c < 0 })
	check(kMaximum, n.maximum, func(c int) bool { return c > 0 })
	check(kExclusiveMinimum, n.exclMin, func(c int) bool { return c <= 0 })
	check(kExclusiveMaximum, n.exclMax, func(c int) bool { return c >= 0 })
	return errs
}

// typeOf returns the JSON type of a decoded value (integers are numbers); 0 for a value JSON cannot hold.
func typeOf(v any) typeSet {
	switch x := v.(type) {
	case nil:
		return tNull
	case bool:
		return tBoolean
	case string:
		return tString
	case json.Number, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return tNumber
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return 0
		}
		return tNumber
	case float32:
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return 0
		}
		return tNumber
	case []any:
		return tArray
	case map[string]any:
		return tObject
	}
	return 0
}

// isIntegral reports whether a number has an integer value (1.0 and 1e3 do: JSON Schema counts values,
// not spellings).
func isIntegral(v any) bool {
	if s, ok := v.(json.Number); ok && plainInteger(string(s)) {
		return true
	}
	d, ok := numberOf(v)
	return ok && d.integral()
}

func plainInteger(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// equal is JSON equality: numbers by value (1 equals 1.0), objects regardless of key order. A number
// math/big cannot represent equals nothing.
func equal(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !equal(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	}
	if typeOf(a) != tNumber || typeOf(b) != tNumber {
		return false
	}
	if x, ok := a.(json.Number); ok {
		if y, ok := b.(json.Number); ok && x == y && plainInteger(string(x)) {
			return true
		}
	}
	da, ok1 := numberOf(a)
	db, ok2 := numberOf(b)
	return ok1 && ok2 && equalNumber(da, db)
}

// duplicates returns the first pair (i < j) of equal items: the smallest j that repeats an earlier item,
// and the first item it repeats; -1, -1 when all items differ.
func duplicates(arr []any) (int, int) {
	if len(arr) <= 20 {
		for j := 1; j < len(arr); j++ {
			for i := 0; i < j; i++ {
				if equal(arr[i], arr[j]) {
					return i, j
				}
			}
		}
		return -1, -1
	}
	first := make(map[string]int, len(arr))
	var b strings.Builder
	for j, item := range arr {
		b.Reset()
		if !canonical(&b, item) {
			continue // holds a number equal to nothing
		}
		k := b.String()
		if i, ok := first[k]; ok {
			return i, j
		}
		first[k] = j
	}
	return -1, -1
}

// canonical writes a key for v such that two values have the same key exactly when they are equal. It
// returns false when v holds a number that equals nothing.
func canonical(b *strings.Builder, v any) bool {
	var lenBuf [binary.MaxVarintLen64]byte
	writeStr := func(s string) {
		b.Write(lenBuf[:binary.PutUvarint(lenBuf[:], uint64(len(s)))])
		b.WriteString(s)
	}
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b.WriteByte('{')
		writeStr(strconv.Itoa(len(keys)))
		for _, k := range keys {
			writeStr(k)
			if !canonical(b, x[k]) {
				return false
			}
		}
	case []any:
		b.WriteByte('[')
		writeStr(strconv.Itoa(len(x)))
		for _, e := range x {
			if !canonical(b, e) {
				return false
			}
		}
	case nil:
		b.WriteByte('n')
	case bool:
		if x {
			b.WriteByte('t')
		} else {
			b.WriteByte('f')
		}
	case string:
		b.WriteByte('s')
		writeStr(x)
	default:
		d, ok := numberOf(v)
		if !ok || d.refused {
			return false
		}
		b.WriteByte('#')
		d.key(b)
	}
	return true
}
