package schema

import (
	"encoding/json"
	"errors"
	"fmt"
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
			// encoding/json does the unescaping (surrogates included).
			var s string
			if err := json.Unmarshal([]byte(d.s[start:end+1]), &s); err != nil {
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
