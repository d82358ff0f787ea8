package shellguard

import "strings"

// envSplitString returns the words of env -S / --split-string STRING split
// as GNU env splits them (whitespace, '…', "…", backslash escapes), which
// env then reads as its own arguments. A value the guard cannot see, or one
// using what it does not model (${VAR}, \c, a # comment), makes the split
// uncertain: the segment is never safe and the floor is checked at every
// later word.
func envSplitString(name string, opts []opt, unc *bool) ([]word, bool) {
	if name != "env" {
		return nil, false
	}
	var out []word
	found := false
	for _, o := range opts {
		if o.name != "S" && o.name != "split-string" {
			continue
		}
		found = true
		if !o.val.known {
			*unc = true
			continue
		}
		ws, ok := splitEnvS(o.val.val)
		if !ok {
			*unc = true
		}
		for _, w := range ws {
			out = append(out, word{val: w, text: w, lit: true, known: true})
		}
	}
	return out, found
}

// splitEnvS splits s as env -S does. ok is false when s uses a feature the
// guard does not evaluate; the words are then a best effort.
func splitEnvS(s string) (words []string, ok bool) {
	ok = true
	var cur strings.Builder
	in := false // inside a word
	flush := func() {
		if in {
			words = append(words, cur.String())
			cur.Reset()
			in = false
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r':
			flush()
		case c == '\'':
			in = true
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return append(words, cur.String()+s[i+1:]), false
			}
			seg := s[i+1 : i+1+j]
			// Inside '…' only \\ and \' are escapes.
			seg = strings.ReplaceAll(strings.ReplaceAll(seg, `\\`, `\`), `\'`, `'`)
			cur.WriteString(seg)
			i += j + 1
		case c == '"':
			in = true
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '$' {
					ok = false
				}
				if s[i] == '\\' && i+1 < len(s) {
					i++
					r, good := envEscape(s[i])
					ok = ok && good
					cur.WriteString(r)
					continue
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				ok = false
			}
		case c == '\\' && i+1 < len(s):
			i++
			if s[i] == '_' {
				flush() // \_ outside quotes separates words
				continue
			}
			in = true
			r, good := envEscape(s[i])
			ok = ok && good
			cur.WriteString(r)
		case c == '$' || c == '\\' || (c == '#' && !in):
			ok = false // ${VAR} expansion, a trailing backslash, a comment
			in = true
			cur.WriteByte(c)
		default:
			in = true
			cur.WriteByte(c)
		}
	}
	flush()
	return words, ok
}

func envEscape(c byte) (string, bool) {
	switch c {
	case '\\', '\'', '"', '$', '#':
		return string(c), true
	case '_':
		return " ", true
	case 'n':
		return "\n", true
	case 't':
		return "\t", true
	case 'r':
		return "\r", true
	case 'f':
		return "\f", true
	case 'v':
		return "\v", true
	}
	return string(c), false // \c and unknown escapes
}

// envDash reports whether env's arguments hold a lone "-" (env - is env -i).
func envDash(a []word) bool {
	for _, x := range a {
		if x.known && x.val == "-" {
			return true
		}
	}
	return false
}
