package shellguard

import "strings"

// envSplitString returns the words of env -S / --split-string STRING split
// as GNU env splits them (whitespace, '…', "…", backslash escapes, ${NAME}
// expanded from env's environment), which env then reads as its own
// arguments. A value the guard cannot see, or one using what it does not
// model (\c, a # comment, $NAME without braces, which env refuses), makes
// the split uncertain: the segment is never safe and the floor is checked at
// every later word.
func (w *walker) envSplitString(name string, opts []opt, unc *bool) ([]word, bool) {
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
		for _, v := range ws {
			out = append(out, w.envWord(v))
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
					if n := envVarRef(s[i:]); n > 0 {
						cur.WriteString(envVarMark + s[i+2:i+n-1] + envVarMark)
						i += n - 1
						continue
					}
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
		case c == '$' && envVarRef(s[i:]) > 0:
			n := envVarRef(s[i:])
			in = true
			cur.WriteString(envVarMark + s[i+2:i+n-1] + envVarMark)
			i += n - 1
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

// envVarMark brackets a ${NAME} reference inside a split word until envWord
// resolves it.
const envVarMark = "\x01"

// envVarRef returns the length of the ${NAME} reference s starts with, or 0.
func envVarRef(s string) int {
	if len(s) < 4 || s[0] != '$' || s[1] != '{' {
		return 0
	}
	j := strings.IndexByte(s, '}')
	if j < 3 || !isIdent(s[2:j]) {
		return 0
	}
	return j + 1
}

// envWord turns one word of an env -S string into a word: ${HOME} is the
// home directory, a variable assigned a literal earlier in the command is its
// value, any other is unknown — its alternative (for the floor) is the word
// with the variable empty, as env substitutes an unset one.
func (w *walker) envWord(v string) word {
	if !strings.Contains(v, envVarMark) {
		return word{val: v, text: v, lit: true, known: true}
	}
	parts := strings.Split(v, envVarMark) // literal, name, literal, name, …
	var val, text, alt strings.Builder
	known := true
	for i, p := range parts {
		if i%2 == 0 {
			val.WriteString(p)
			text.WriteString(p)
			alt.WriteString(p)
			continue
		}
		text.WriteString("${" + p + "}")
		switch x, ok := w.vars[p]; {
		case p == "HOME":
			val.WriteString(w.c.home)
			alt.WriteString(w.c.home)
		case ok:
			val.WriteString(x)
			alt.WriteString(x)
		default:
			known = false
		}
	}
	home := strings.HasPrefix(v, envVarMark+"HOME"+envVarMark)
	if known {
		return word{val: val.String(), text: text.String(), known: true, home: home}
	}
	return word{val: text.String(), text: text.String(), alt: alt.String(), altOK: true}
}
