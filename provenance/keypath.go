package provenance

import (
	"fmt"
	"strconv"
	"strings"
)

// KeyPath renders path segments as a dotted key: plain identifiers are joined
// with ".", and any other segment is written as a quoted JSON string in
// brackets, so map entries keyed by patterns stay unambiguous:
// permission.bash["git status"], permission.edit["src/**"].
func KeyPath(segs ...string) string {
	n := 0
	for _, s := range segs {
		n += len(s) + 1
	}
	var b strings.Builder
	b.Grow(n) // enough unless a segment needs quoting
	for i, s := range segs {
		if isIdent(s) {
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s)
			continue
		}
		b.WriteByte('[')
		b.WriteString(strconv.Quote(s))
		b.WriteByte(']')
	}
	return b.String()
}

// SplitKey is the inverse of KeyPath. It also accepts a bracketed segment
// first and a trailing dot-free form for keys typed by hand.
func SplitKey(key string) ([]string, error) {
	var segs []string
	i := 0
	for i < len(key) {
		switch key[i] {
		case '.':
			if i == 0 || i == len(key)-1 {
				return nil, fmt.Errorf("parse key %q: empty segment at offset %d", key, i)
			}
			i++
			if key[i] == '.' || key[i] == '[' {
				return nil, fmt.Errorf("parse key %q: empty segment at offset %d", key, i)
			}
		case '[':
			end := strings.Index(key[i:], "\"]")
			if end < 0 || i+1 >= len(key) || key[i+1] != '"' {
				return nil, fmt.Errorf("parse key %q: bracketed segment at offset %d must be [\"…\"]", key, i)
			}
			// find the closing quote that is not escaped
			j := i + 2
			for ; j < len(key); j++ {
				if key[j] == '\\' {
					j++
					continue
				}
				if key[j] == '"' {
					break
				}
			}
			if j+1 >= len(key) || key[j+1] != ']' {
				return nil, fmt.Errorf("parse key %q: unterminated bracketed segment at offset %d", key, i)
			}
			s, err := strconv.Unquote(key[i+1 : j+1])
			if err != nil {
				return nil, fmt.Errorf("parse key %q: bracketed segment at offset %d: %w", key, i, err)
			}
			segs = append(segs, s)
			i = j + 2
			if i < len(key) && key[i] != '.' && key[i] != '[' {
				return nil, fmt.Errorf("parse key %q: expected '.' or '[' at offset %d", key, i)
			}
			continue
		}
		j := i
		for j < len(key) && key[j] != '.' && key[j] != '[' {
			j++
		}
		if j == i {
			continue
		}
		segs = append(segs, key[i:j])
		i = j
	}
	if len(segs) == 0 {
		return nil, fmt.Errorf("parse key %q: empty key", key)
	}
	return segs, nil
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
		case (c >= '0' && c <= '9') || c == '-':
			if i == 0 {
				return false
			}
		default:
			return false
		}
	}
	return true
}
