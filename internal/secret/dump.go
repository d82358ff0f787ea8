package secret

import (
	"strconv"
	"strings"
)

// Hex dumps print a value's bytes as hex split into groups and lines, with
// offsets and a character column in between, so no fixed form of the
// value occurs in them. redactDumps decodes the dump lines of a text
// (xxd's default and -g N, xxd -p, xxd -i, hexdump -C, hd, od -A x -t x1z:
// an optional offset, then hex groups of whole bytes in file order, then
// an optional character column), finds the known values in the bytes of
// each run of consecutive dump lines, and replaces every line that holds
// a byte of one with the value's mark. Dumps of words in another byte
// order (od -x, hexdump's default, xxd -e) are not decoded.

// mayHoldDump is the cheap test for a dump: a line that starts with an
// offset column (six or more hex digits, then ':' or a space, then a hex
// group) or with a C array's "0xHH," (xxd -i), or a first line of only
// hex digits (xxd -p).
func mayHoldDump(s string) bool {
	first, _, _ := strings.Cut(s, "\n")
	if len(first) >= 2*MinValue && hexOnly(first) {
		return true
	}
	for len(s) > 0 {
		line, rest, _ := strings.Cut(s, "\n")
		if offsetLine(line) {
			return true
		}
		s = rest
	}
	return false
}

// offsetLine reports whether a line starts like a dump's: an offset of six
// or more hex digits, ':' or a space, and a hex digit after spaces.
func offsetLine(l string) bool {
	l = strings.TrimLeft(l, " ")
	if len(l) >= 5 && l[0] == '0' && l[1] == 'x' && unhex(l[2]) >= 0 && unhex(l[3]) >= 0 && l[4] == ',' {
		return true // xxd -i: "  0x41, 0x50, …"
	}
	i := 0
	for i < len(l) && unhex(l[i]) >= 0 {
		i++
	}
	if i < 6 || i >= len(l) || l[i] != ':' && l[i] != ' ' {
		return false
	}
	rest := strings.TrimLeft(l[i+1:], " ")
	return rest != "" && unhex(rest[0]) >= 0
}

func hexOnly(s string) bool {
	for i := 0; i < len(s); i++ {
		if unhex(s[i]) < 0 {
			return false
		}
	}
	return true
}

func unhex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// dumpLine returns the bytes a dump line shows (nil when it is not one),
// and its offset column's value (-1 when it has none).
func dumpLine(l string) ([]byte, int64) {
	l = strings.TrimRight(l, "\r")
	rest := strings.TrimLeft(l, " \t")
	off := int64(-1)
	// An offset: hex digits then ':' or white space, followed by a group.
	if i := strings.IndexAny(rest, ": \t"); i >= 4 && hexOnly(rest[:i]) && (rest[i] == ':' || i >= 6) {
		if v, err := strconv.ParseInt(rest[:i], 16, 64); err == nil {
			off = v
		}
		rest = strings.TrimLeft(rest[i+1:], " \t")
	}
	var out []byte
	for rest != "" {
		tok, more, _ := strings.Cut(rest, " ")
		tok = strings.TrimSuffix(strings.TrimPrefix(tok, "0x"), ",")
		if len(tok) == 0 || len(tok)%2 != 0 || !hexOnly(tok) {
			break // the character column, or text
		}
		for i := 0; i < len(tok); i += 2 {
			out = append(out, byte(unhex(tok[i])<<4|unhex(tok[i+1])))
		}
		if more == "" {
			break
		}
		// Two or more spaces may separate groups (hexdump -C's middle) or
		// start the character column: a group must follow, and the next
		// line's offset cuts what the column added (redactDumps).
		rest = strings.TrimLeft(more, " ")
	}
	return out, off
}

// redactDumps replaces the dump lines of s that show a byte of a known
// value.
func (m *matcher) redactDumps(s string) string {
	if len(m.raw) == 0 || !mayHoldDump(s) {
		return s
	}
	lines := strings.SplitAfter(s, "\n")
	marks := map[int]int{} // line → mark
	var buf []byte
	var from []int // line of each byte of buf
	flush := func() {
		if len(buf) >= MinValue {
			for _, sp := range m.findRaw(string(buf)) {
				for i := sp.start; i < sp.end; i++ {
					if _, ok := marks[from[i]]; !ok {
						marks[from[i]] = sp.mark
					}
				}
			}
		}
		buf, from = buf[:0], from[:0]
	}
	type dl struct {
		line int
		b    []byte
		off  int64
	}
	var run []dl
	add := func() {
		for k, d := range run {
			b := d.b
			// The offsets say how many bytes a line holds: a character
			// column that looked like hex groups is cut off.
			if k+1 < len(run) && d.off >= 0 && run[k+1].off > d.off && run[k+1].off-d.off < int64(len(b)) {
				b = b[:run[k+1].off-d.off]
			}
			buf = append(buf, b...)
			for range b {
				from = append(from, d.line)
			}
		}
		run = run[:0]
		flush()
	}
	for i, l := range lines {
		b, off := dumpLine(strings.TrimSuffix(l, "\n"))
		if len(b) == 0 {
			add()
			continue
		}
		run = append(run, dl{i, b, off})
	}
	add()
	if len(marks) == 0 {
		return s
	}
	var out strings.Builder
	for i, l := range lines {
		mk, ok := marks[i]
		if !ok {
			out.WriteString(l)
			continue
		}
		out.WriteString(m.marks[mk])
		if strings.HasSuffix(l, "\n") {
			out.WriteByte('\n')
		}
	}
	return out.String()
}

// findRaw finds the values as they are (not their encodings) in b.
func (m *matcher) findRaw(b string) []span {
	var out []span
	for _, pi := range m.raw {
		p := m.pats[pi]
		for off := 0; ; {
			i := strings.Index(b[off:], p.text)
			if i < 0 {
				break
			}
			out = append(out, span{off + i, off + i + len(p.text), p.mark})
			off += i + 1
		}
	}
	return out
}
