package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// decodeSchemaDoc decodes one of the embedded schema documents into the shapes of jsonpos (map[string]any,
// []any, string, json.Number, bool, nil). The documents are ours and tested (TestDecodeMatchesJSONPos),
// so this decoder only needs to be correct on valid JSON and to refuse the rest; unlike jsonpos it records
// no positions, and strings without escapes are substrings of the embedded text, not copies. That halves
// the cost of the first Validate of a process.
func decodeSchemaDoc(src string) (any, error) {
	if !utf8.ValidString(src) {
		return nil, errors.New("offset 0: invalid UTF-8") // checked once here, not string by string
	}
	d := decoder{s: src}
	d.space()
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	if d.space(); d.i != len(d.s) {
		return nil, d.errorf("trailing data")
	}
	return v, nil
}

type decoder struct {
	s string
	i int
}

func (d *decoder) errorf(format string, args ...any) error {
	return fmt.Errorf("offset %d: %s", d.i, fmt.Sprintf(format, args...))
}

func (d *decoder) space() {
	for d.i < len(d.s) && (d.s[d.i] == ' ' || d.s[d.i] == '\n' || d.s[d.i] == '\t' || d.s[d.i] == '\r') {
		d.i++
	}
}

func (d *decoder) value(depth int) (any, error) {
	if depth > 64 {
		return nil, d.errorf("nesting too deep")
	}
	if d.i >= len(d.s) {
		return nil, d.errorf("unexpected end")
	}
	switch c := d.s[d.i]; {
	case c == '{':
		d.i++
		m := map[string]any{}
		if d.space(); d.i < len(d.s) && d.s[d.i] == '}' {
			d.i++
			return m, nil
		}
		for {
			if d.space(); d.i >= len(d.s) || d.s[d.i] != '"' {
				return nil, d.errorf("expected a key")
			}
			k, err := d.str()
			if err != nil {
				return nil, err
			}
			if _, dup := m[k]; dup {
				return nil, d.errorf("duplicate key %q", k)
			}
			if d.space(); d.i >= len(d.s) || d.s[d.i] != ':' {
				return nil, d.errorf("expected ':'")
			}
			d.i++
			d.space()
			if m[k], err = d.value(depth + 1); err != nil {
				return nil, err
			}
			if d.space(); d.i < len(d.s) && d.s[d.i] == ',' {
				d.i++
				continue
			}
			if d.i < len(d.s) && d.s[d.i] == '}' {
				d.i++
				return m, nil
			}
			return nil, d.errorf("expected ',' or '}'")
		}
	case c == '[':
		d.i++
		a := []any{}
		if d.space(); d.i < len(d.s) && d.s[d.i] == ']' {
			d.i++
			return a, nil
		}
		for {
			d.space()
			v, err := d.value(depth + 1)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
			if d.space(); d.i < len(d.s) && d.s[d.i] == ',' {
				d.i++
				continue
			}
			if d.i < len(d.s) && d.s[d.i] == ']' {
				d.i++
				return a, nil
			}
			return nil, d.errorf("expected ',' or ']'")
		}
	case c == '"':
		return d.str()
	case c == '-' || isDigit(c):
		start := d.i
		for d.i < len(d.s) && (isDigit(d.s[d.i]) || d.s[d.i] == '-' || d.s[d.i] == '+' || d.s[d.i] == '.' || d.s[d.i] == 'e' || d.s[d.i] == 'E') {
			d.i++
		}
		n := d.s[start:d.i]
		if !json.Valid([]byte(n)) {
			return nil, d.errorf("invalid number %q", n)
		}
		return json.Number(n), nil
	}
	for _, lit := range []struct {
		word string
		v    any
	}{{"true", true}, {"false", false}, {"null", nil}} {
		if len(d.s)-d.i >= len(lit.word) && d.s[d.i:d.i+len(lit.word)] == lit.word {
			d.i += len(lit.word)
			return lit.v, nil
		}
	}
	return nil, d.errorf("unexpected character %q", d.s[d.i])
}

// str decodes a string at d.i (a '"'); without escapes it is a substring of the source.
func (d *decoder) str() (string, error) {
	start := d.i
	d.i++
	for j := d.i; j < len(d.s); j++ {
		switch c := d.s[j]; {
		case c == '"':
			d.i = j + 1
			return d.s[start+1 : j], nil
		case c == '\\':
			// A string with escapes (a few in the schemas): decoded into a copy.
			end := j
			for end < len(d.s) && d.s[end] != '"' {
				if d.s[end] == '\\' {
					end++
				}
				end++
			}
			if end >= len(d.s) {
				return "", d.errorf("unterminated string")
			}
			s, ok := unescape(d.s[start+1 : end])
			if !ok {
				return "", d.errorf("invalid string %s", d.s[start:end+1])
			}
			d.i = end + 1
			return s, nil
		case c < 0x20:
			return "", d.errorf("control character in string")
		}
	}
	return "", d.errorf("unterminated string")
}

// unescape decodes the text between the quotes of a JSON string with escapes, as encoding/json does (a
// \u escape of a lone surrogate is U+FFFD). It reports false for what is not a valid JSON string.
func unescape(s string) (string, bool) {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' {
			if c < 0x20 {
				return "", false
			}
			b.WriteByte(c)
			i++
			continue
		}
		if i+1 >= len(s) {
			return "", false
		}
		switch e := s[i+1]; e {
		case '"', '\\', '/':
			b.WriteByte(e)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, ok := hex4(s[i+2:])
			if !ok {
				return "", false
			}
			i += 6
			if utf16.IsSurrogate(r) {
				if len(s) >= i+2 && s[i] == '\\' && s[i+1] == 'u' {
					if r2, ok := hex4(s[i+2:]); ok {
						if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
							b.WriteRune(dec)
							i += 6
							continue
						}
					}
				}
				r = utf8.RuneError
			}
			b.WriteRune(r)
			continue
		default:
			return "", false
		}
		i += 2
	}
	return b.String(), true
}

// hex4 reads the four hex digits s starts with.
func hex4(s string) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[:4]) {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
