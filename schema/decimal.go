package schema

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// decimal is an exact JSON number: ±digits × 10^exp, digits without leading or trailing zeros ("" for
// zero). Comparing decimals costs a few byte comparisons whatever the exponent, where math/big would
// build a million-digit integer for 1e999999 (about 100 ms: the library pays that on every such number).
type decimal struct {
	neg    bool
	digits string
	exp    int64
	// refused is true for a number math/big refuses to represent (an exponent that does not fit int64,
	// or a non-zero number whose decimal exponent beyond its fraction digits exceeds 1e6). The library
	// treats such a number as equal to nothing and as not an integer; so do we.
	refused bool
}

const maxExp = 1 << 60 // exponents are clamped here, far beyond any meaningful magnitude

// numberOf returns the decimal of a JSON number (json.Number or a Go number); false for anything else.
func numberOf(v any) (decimal, bool) {
	switch x := v.(type) {
	case json.Number:
		return parseDecimal(string(x))
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return decimal{}, false
		}
		return parseDecimal(strconv.FormatFloat(x, 'g', -1, 64))
	case float32, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return parseDecimal(fmt.Sprint(x))
	}
	return decimal{}, false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// parseDecimal parses [+-]digits[.digits][(e|E)[+-]digits].
func parseDecimal(s string) (decimal, bool) {
	var d decimal
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		d.neg = s[i] == '-'
		i++
	}
	start := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	intPart, frac := s[start:i], ""
	if i < len(s) && s[i] == '.' {
		i++
		fs := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		frac = s[fs:i]
	}
	if intPart == "" && frac == "" {
		return decimal{}, false
	}
	var exp int64
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		es := i
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		ds := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if ds == i {
			return decimal{}, false
		}
		e, err := strconv.ParseInt(s[es:i], 10, 64)
		if err != nil {
			d.refused = true
			e = maxExp
			if s[es] == '-' {
				e = -maxExp
			}
		}
		exp = max(-maxExp, min(maxExp, e))
	}
	if i != len(s) {
		return decimal{}, false
	}
	// math/big's limit: |exp - len(frac)| <= 1e6 unless the mantissa is zero.
	exp5 := exp - int64(len(frac))

	digits := intPart
	if frac != "" {
		digits = intPart + frac
	}
	digits = strings.TrimLeft(digits, "0")
	if digits == "" {
		return decimal{refused: d.refused}, true // zero
	}
	trimmed := strings.TrimRight(digits, "0")
	d.digits = trimmed
	d.exp = exp5 + int64(len(digits)-len(trimmed))
	if exp5 > 1e6 || exp5 < -1e6 {
		d.refused = true
	}
	return d, true
}

func (d decimal) sign() int {
	switch {
	case d.digits == "":
		return 0
	case d.neg:
		return -1
	}
	return 1
}

// cmp compares two decimals by value: -1, 0 or +1.
func (d decimal) cmp(e decimal) int {
	ds, es := d.sign(), e.sign()
	if ds != es {
		if ds < es {
			return -1
		}
		return 1
	}
	if ds == 0 {
		return 0
	}
	c := 0
	// The magnitude's order: the position of the most significant digit.
	if od, oe := d.exp+int64(len(d.digits)), e.exp+int64(len(e.digits)); od != oe {
		c = 1
		if od < oe {
			c = -1
		}
	} else {
		c = strings.Compare(d.digits, e.digits) // no trailing zeros: a prefix is the smaller
	}
	return c * ds
}

// integral reports whether d is an integer (and one math/big accepts, as the library requires).
func (d decimal) integral() bool { return !d.refused && (d.digits == "" || d.exp >= 0) }

// equalNumber is the library's number equality: by value, and never for a refused number.
func equalNumber(a, b decimal) bool { return !a.refused && !b.refused && a.cmp(b) == 0 }

// key writes a string that is the same for equal numbers and differs otherwise.
func (d decimal) key(b *strings.Builder) {
	if d.neg {
		b.WriteByte('-')
	}
	b.WriteString(d.digits)
	b.WriteByte('e')
	b.WriteString(strconv.FormatInt(d.exp, 10))
}
