// Package jsonpos parses JSON strictly and remembers where every value sits in the source.
//
// Parse accepts exactly one JSON value (RFC 8259) and refuses what a configuration file should never contain:
// duplicate object keys (always an error, at any depth), trailing data after the value, nesting deeper than
// Options.MaxDepth, invalid UTF-8, a byte order mark, comments and trailing commas. Everything it accepts is
// also accepted by encoding/json.
//
// The decoded value uses the same shapes as encoding/json with UseNumber: map[string]any, []any, string,
// json.Number, bool and nil. Numbers stay json.Number so callers decide about floats and big integers.
//
// Positions are addressed by RFC 6901 JSON Pointer. For an object member, Doc.Pos returns the position of
// the member's key (where a person reading the file looks); Doc.ValuePos returns the position of its value.
// For an array element both are the element's first byte; the empty pointer "" is the root value.
// Lines and columns are 1-based; columns count bytes.
package jsonpos

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Pos is a position in the source: 1-based line and column (in bytes) and the 0-based byte offset.
type Pos struct {
	Line, Column int
	Offset       int
}

// String formats the position as "line L, column C".
func (p Pos) String() string { return fmt.Sprintf("line %d, column %d", p.Line, p.Column) }

// Options tune Parse.
type Options struct {
	// MaxDepth is the deepest nesting of arrays and objects accepted; 0 means 64.
	// Values above 10000 (encoding/json's own limit) are treated as 10000.
	MaxDepth int
}

const (
	defaultMaxDepth = 64
	maxMaxDepth     = 10000
)

// Doc is a parsed document.
type Doc struct {
	// Value is the decoded root: map[string]any, []any, string, json.Number, bool or nil.
	Value any

	pos      map[string]entry
	pointers []string
}

type entry struct {
	key, value Pos // key == value for array elements and the root
}

// Pos returns the position of the value at pointer: for an object member the position of its key string,
// for an array element (and the root, pointer "") the element's first byte.
func (d *Doc) Pos(pointer string) (Pos, bool) {
	e, ok := d.pos[pointer]
	return e.key, ok
}

// ValuePos returns the position of the first byte of the value at pointer (for an object member: its value,
// not its key).
func (d *Doc) ValuePos(pointer string) (Pos, bool) {
	e, ok := d.pos[pointer]
	return e.value, ok
}

// Pointers returns every pointer that has a position, in document order (the root "" first).
func (d *Doc) Pointers() []string {
	out := make([]string, len(d.pointers))
	copy(out, d.pointers)
	return out
}

// SyntaxError reports JSON that is not acceptable: invalid syntax, trailing data after the value, nesting
// beyond the depth limit, invalid UTF-8.
type SyntaxError struct {
	Pos
	Msg string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// DuplicateKeyError reports an object key that appears twice in the same object. Pos is the second
// occurrence's key, First the first one's; Pointer addresses the member.
type DuplicateKeyError struct {
	Pointer string
	Pos
	First Pos
}

func (e *DuplicateKeyError) Error() string {
	return fmt.Sprintf("line %d, column %d: duplicate key %s (first defined at line %d, column %d)",
		e.Line, e.Column, keyName(e.Pointer), e.First.Line, e.First.Column)
}

func keyName(pointer string) string {
	toks, err := Split(pointer)
	if err != nil || len(toks) == 0 {
		return strconv.Quote(pointer)
	}
	s := strconv.Quote(toks[len(toks)-1])
	if len(toks) > 1 {
		s += " in " + Pointer(toks[:len(toks)-1]...)
	}
	return s
}

// Pointer builds an RFC 6901 JSON Pointer from unescaped reference tokens ("~" becomes "~0", "/" becomes "~1").
// With no tokens it returns "", the whole document.
func Pointer(tokens ...string) string {
	if len(tokens) == 0 {
		return ""
	}
	n := 0
	for _, t := range tokens {
		n += len(t) + 1
	}
	var b strings.Builder
	b.Grow(n) // enough unless a token needs escaping
	for _, t := range tokens {
		b.WriteByte('/')
		writeToken(&b, t)
	}
	return b.String()
}

func writeToken(b *strings.Builder, t string) {
	if !strings.ContainsAny(t, "~/") {
		b.WriteString(t)
		return
	}
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case '~':
			b.WriteString("~0")
		case '/':
			b.WriteString("~1")
		default:
			b.WriteByte(t[i])
		}
	}
}

// Split parses an RFC 6901 JSON Pointer into its unescaped reference tokens. "" yields no tokens.
func Split(pointer string) ([]string, error) {
	if pointer == "" {
		return nil, nil
	}
	if pointer[0] != '/' {
		return nil, fmt.Errorf("json pointer %q: must be empty or start with /", pointer)
	}
	parts := strings.Split(pointer[1:], "/")
	for i, p := range parts {
		if !strings.Contains(p, "~") {
			continue
		}
		var b strings.Builder
		for j := 0; j < len(p); j++ {
			if p[j] != '~' {
				b.WriteByte(p[j])
				continue
			}
			if j+1 < len(p) && (p[j+1] == '0' || p[j+1] == '1') {
				if p[j+1] == '0' {
					b.WriteByte('~')
				} else {
					b.WriteByte('/')
				}
				j++
				continue
			}
			return nil, fmt.Errorf("json pointer %q: ~ must be followed by 0 or 1", pointer)
		}
		parts[i] = b.String()
	}
	return parts, nil
}

// PosAt returns the position of byte offset in data. An offset beyond the end is clamped to len(data).
func PosAt(data []byte, offset int) Pos {
	if offset < 0 {
		offset = 0
	}
	if offset > len(data) {
		offset = len(data)
	}
	line, lineStart := 1, 0
	for i := 0; i < offset; i++ {
		if data[i] == '\n' {
			line++
			lineStart = i + 1
		}
	}
	return Pos{Line: line, Column: offset - lineStart + 1, Offset: offset}
}

// Parse decodes data, which must hold exactly one JSON value, recording the position of every value.
// It returns a *SyntaxError or a *DuplicateKeyError when data is not acceptable.
func Parse(data []byte, opt Options) (*Doc, error) {
	depth := opt.MaxDepth
	if depth <= 0 {
		depth = defaultMaxDepth
	}
	if depth > maxMaxDepth {
		depth = maxMaxDepth
	}
	p := &parser{data: data, line: 1, maxDepth: depth, pos: make(map[string]entry)}
	if len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF {
		return nil, p.errAt(0, "file starts with a UTF-8 byte order mark; save it as UTF-8 without BOM")
	}
	p.skipSpace()
	if p.i >= len(data) {
		return nil, p.errAt(p.i, "empty document: expected a JSON value")
	}
	start := p.here()
	p.record("", start, start)
	v, err := p.value("", 0)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.i < len(data) {
		if err := p.commentErr(); err != nil {
			return nil, err
		}
		return nil, p.errAt(p.i, fmt.Sprintf("unexpected %s after the top-level value (only one JSON value is allowed)", describeByte(data, p.i)))
	}
	return &Doc{Value: v, pos: p.pos, pointers: p.ptrs}, nil
}

type parser struct {
	data      []byte
	i         int
	line      int
	lineStart int
	maxDepth  int
	pos       map[string]entry
	ptrs      []string
}

func (p *parser) here() Pos {
	return Pos{Line: p.line, Column: p.i - p.lineStart + 1, Offset: p.i}
}

func (p *parser) errAt(off int, msg string) *SyntaxError {
	// Offsets handed here are on the current line or earlier only at p.i; compute exactly.
	if off == p.i {
		return &SyntaxError{Pos: p.here(), Msg: msg}
	}
	return &SyntaxError{Pos: PosAt(p.data, off), Msg: msg}
}

func (p *parser) record(ptr string, key, val Pos) {
	p.pos[ptr] = entry{key: key, value: val}
	p.ptrs = append(p.ptrs, ptr)
}

func (p *parser) skipSpace() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\r':
			p.i++
		case '\n':
			p.i++
			p.line++
			p.lineStart = p.i
		default:
			return
		}
	}
}

// commentErr returns a helpful error when a comment starts at p.i.
func (p *parser) commentErr() error {
	if p.i+1 < len(p.data) && p.data[p.i] == '/' && (p.data[p.i+1] == '/' || p.data[p.i+1] == '*') {
		return p.errAt(p.i, "comments are not allowed in JSON")
	}
	return nil
}

func describeByte(data []byte, i int) string {
	if i >= len(data) {
		return "end of input"
	}
	c := data[i]
	if c >= 0x20 && c < 0x7f {
		return fmt.Sprintf("character %q", rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

func (p *parser) unexpected(what string) error {
	if p.i >= len(p.data) {
		return p.errAt(p.i, "unexpected end of input: expected "+what)
	}
	if err := p.commentErr(); err != nil {
		return err
	}
	return p.errAt(p.i, fmt.Sprintf("unexpected %s: expected %s", describeByte(p.data, p.i), what))
}

func (p *parser) value(ptr string, depth int) (any, error) {
	if p.i >= len(p.data) {
		return nil, p.unexpected("a value")
	}
	switch c := p.data[p.i]; {
	case c == '{':
		if depth >= p.maxDepth {
			return nil, p.errAt(p.i, fmt.Sprintf("nesting exceeds the maximum depth of %d", p.maxDepth))
		}
		return p.object(ptr, depth+1)
	case c == '[':
		if depth >= p.maxDepth {
			return nil, p.errAt(p.i, fmt.Sprintf("nesting exceeds the maximum depth of %d", p.maxDepth))
		}
		return p.array(ptr, depth+1)
	case c == '"':
		return p.str()
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case c == 't':
		return p.literal("true", true)
	case c == 'f':
		return p.literal("false", false)
	case c == 'n':
		return p.literal("null", nil)
	default:
		return nil, p.unexpected("a value")
	}
}

func (p *parser) literal(word string, v any) (any, error) {
	if len(p.data)-p.i >= len(word) && string(p.data[p.i:p.i+len(word)]) == word {
		p.i += len(word)
		if p.i < len(p.data) && isIdentByte(p.data[p.i]) {
			return nil, p.errAt(p.i, fmt.Sprintf("unexpected %s after %s", describeByte(p.data, p.i), word))
		}
		return v, nil
	}
	return nil, p.unexpected("a value (strings must be in double quotes)")
}

func isIdentByte(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

func (p *parser) object(ptr string, depth int) (any, error) {
	open := p.i
	p.i++ // {
	obj := make(map[string]any)
	p.skipSpace()
	if p.i < len(p.data) && p.data[p.i] == '}' {
		p.i++
		return obj, nil
	}
	for {
		if p.i >= len(p.data) || p.data[p.i] != '"' {
			if p.i < len(p.data) && p.data[p.i] == '}' {
				return nil, p.errAt(p.i, "trailing comma before '}'")
			}
			if p.i >= len(p.data) {
				return nil, p.errAt(p.i, fmt.Sprintf("unexpected end of input: object opened at %s is not closed", PosAt(p.data, open)))
			}
			return nil, p.unexpected("an object key in double quotes")
		}
		keyPos := p.here()
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		var b strings.Builder
		b.Grow(len(ptr) + len(key) + 1)
		b.WriteString(ptr)
		b.WriteByte('/')
		writeToken(&b, key)
		member := b.String()
		if _, dup := obj[key]; dup {
			return nil, &DuplicateKeyError{Pointer: member, Pos: keyPos, First: p.pos[member].key}
		}
		p.skipSpace()
		if p.i >= len(p.data) || p.data[p.i] != ':' {
			return nil, p.unexpected("':' after object key")
		}
		p.i++
		p.skipSpace()
		valPos := p.here()
		p.record(member, keyPos, valPos)
		v, err := p.value(member, depth)
		if err != nil {
			return nil, err
		}
		obj[key] = v
		p.skipSpace()
		if p.i >= len(p.data) {
			return nil, p.errAt(p.i, fmt.Sprintf("unexpected end of input: object opened at %s is not closed", PosAt(p.data, open)))
		}
		switch p.data[p.i] {
		case ',':
			p.i++
			p.skipSpace()
		case '}':
			p.i++
			return obj, nil
		default:
			return nil, p.unexpected("',' or '}' after object member")
		}
	}
}

func (p *parser) array(ptr string, depth int) (any, error) {
	open := p.i
	p.i++ // [
	arr := []any{}
	p.skipSpace()
	if p.i < len(p.data) && p.data[p.i] == ']' {
		p.i++
		return arr, nil
	}
	for n := 0; ; n++ {
		if p.i < len(p.data) && p.data[p.i] == ']' {
			return nil, p.errAt(p.i, "trailing comma before ']'")
		}
		elem := ptr + "/" + strconv.Itoa(n)
		at := p.here()
		p.record(elem, at, at)
		v, err := p.value(elem, depth)
		if err != nil {
			return nil, err
		}
		arr = append(arr, v)
		p.skipSpace()
		if p.i >= len(p.data) {
			return nil, p.errAt(p.i, fmt.Sprintf("unexpected end of input: array opened at %s is not closed", PosAt(p.data, open)))
		}
		switch p.data[p.i] {
		case ',':
			p.i++
			p.skipSpace()
		case ']':
			p.i++
			return arr, nil
		default:
			return nil, p.unexpected("',' or ']' after array element")
		}
	}
}

func (p *parser) number() (any, error) {
	start := p.i
	d := p.data
	if d[p.i] == '-' {
		p.i++
	}
	switch {
	case p.i < len(d) && d[p.i] == '0':
		p.i++
	case p.i < len(d) && d[p.i] >= '1' && d[p.i] <= '9':
		for p.i < len(d) && d[p.i] >= '0' && d[p.i] <= '9' {
			p.i++
		}
	default:
		return nil, p.unexpected("a digit")
	}
	if p.i < len(d) && d[p.i] == '.' {
		p.i++
		if p.i >= len(d) || d[p.i] < '0' || d[p.i] > '9' {
			return nil, p.unexpected("a digit after the decimal point")
		}
		for p.i < len(d) && d[p.i] >= '0' && d[p.i] <= '9' {
			p.i++
		}
	}
	if p.i < len(d) && (d[p.i] == 'e' || d[p.i] == 'E') {
		p.i++
		if p.i < len(d) && (d[p.i] == '+' || d[p.i] == '-') {
			p.i++
		}
		if p.i >= len(d) || d[p.i] < '0' || d[p.i] > '9' {
			return nil, p.unexpected("a digit in the exponent")
		}
		for p.i < len(d) && d[p.i] >= '0' && d[p.i] <= '9' {
			p.i++
		}
	}
	if p.i < len(d) && (isIdentByte(d[p.i]) || d[p.i] == '.' || d[p.i] == '+' || d[p.i] == '-') {
		return nil, p.unexpected("',' or the end of the value after a number")
	}
	return json.Number(d[start:p.i]), nil
}
