package jsonpos

import (
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// str decodes the string starting at p.i (which is '"').
func (p *parser) str() (string, error) {
	d := p.data
	start := p.i
	p.i++
	// Fast path: printable ASCII without escapes.
	for j := p.i; j < len(d); j++ {
		c := d[j]
		if c == '"' {
			p.i = j + 1
			return string(d[start+1 : j]), nil
		}
		if c == '\\' || c < 0x20 || c >= 0x80 {
			break
		}
	}
	var b strings.Builder
	for {
		if p.i >= len(d) {
			return "", p.errAt(p.i, fmt.Sprintf("unexpected end of input: string starting at %s is not closed", PosAt(d, start)))
		}
		c := d[p.i]
		switch {
		case c == '"':
			p.i++
			return b.String(), nil
		case c == '\\':
			if err := p.escape(&b); err != nil {
				return "", err
			}
		case c < 0x20:
			if c == '\n' {
				return "", p.errAt(p.i, "newline inside a string (strings must be closed on the same line; write \\n for a newline)")
			}
			return "", p.errAt(p.i, fmt.Sprintf("control character 0x%02x inside a string (escape it)", c))
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			p.i++
		default:
			r, size := utf8.DecodeRune(d[p.i:])
			if r == utf8.RuneError && size == 1 {
				return "", p.errAt(p.i, "invalid UTF-8 in string")
			}
			b.WriteString(string(d[p.i : p.i+size]))
			p.i += size
		}
	}
}

func (p *parser) escape(b *strings.Builder) error {
	d := p.data
	if p.i+1 >= len(d) {
		p.i++
		return p.unexpected("an escape character after '\\'")
	}
	switch e := d[p.i+1]; e {
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
		r, ok := hex4(d, p.i+2)
		if !ok {
			return p.errAt(p.i, `invalid \u escape: expected 4 hex digits`)
		}
		p.i += 6
		if utf16.IsSurrogate(r) {
			// A high surrogate followed by a low one is one rune; anything else becomes U+FFFD, as
			// encoding/json does.
			if p.i+1 < len(d) && d[p.i] == '\\' && d[p.i+1] == 'u' {
				if r2, ok := hex4(d, p.i+2); ok {
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						p.i += 6
						b.WriteRune(dec)
						return nil
					}
				}
			}
			r = utf8.RuneError
		}
		b.WriteRune(r)
		return nil
	default:
		p.i++
		return p.errAt(p.i, fmt.Sprintf("invalid escape %s in string", describeByte(d, p.i)))
	}
	p.i += 2
	return nil
}

func hex4(d []byte, i int) (rune, bool) {
	if i+4 > len(d) {
		return 0, false
	}
	var r rune
	for _, c := range d[i : i+4] {
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
