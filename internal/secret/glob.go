package secret

import (
	"path"
	"strings"
)

// GlobMayName reports whether a shell glob (one path element: *, ?, [...]
// with bash's rules, a leading '.' matched only explicitly) can match a
// secrets file in a way the pattern itself spells: some name it matches is
// a secrets file (see FileName) whose ".env" the pattern spells in part: a
// letter of "env" is matched by the pattern's own characters, ? or a
// bracket rather than by a *, or the name is a dotfile the pattern starts
// with an explicit '.' for (bash's *, ? and brackets never match a leading
// dot).
//
// So .e*, .env*, .[e]nv, .??v, .*, *.env, *env* and prod.e?v can name one;
// *, *.*, *.go, x* and src* cannot, although a directory may hold a
// prod.env they match — a glob of those is judged by what it expands to,
// which this pure function cannot see. Template names (.env.example) are not told
// apart: .env.* can match .env.local. Letters match case-insensitively, as
// FileName compares.
func GlobMayName(pattern string) bool {
	toks, ok := globTokens(pattern)
	if !ok {
		return FileName(pattern)
	}
	type state struct {
		ti         int
		k          uint8 // how much of ".env" the current partial match holds
		flag, good bool  // the partial match used a pattern character; a ".env." was spelt
		pos0       bool  // no character consumed yet
	}
	seen := map[state]bool{}
	stack := []state{{pos0: true}}
	push := func(s state) {
		if !seen[s] {
			seen[s] = true
			stack = append(stack, s)
		}
	}
	step := func(s state, c byte, ns bool) state {
		// The ".env" of a dotfile spelt with an explicit leading '.' counts.
		dot := s.pos0 && ns
		s.pos0 = false
		if c == '.' {
			ns = dot
		}
		switch {
		case s.k == 4 && c == '.':
			if s.flag {
				s.good = true
			}
			s.k, s.flag = 1, ns
		case s.k < 4 && c == ".env"[s.k]:
			if s.k == 0 {
				s.flag = ns
			} else {
				s.flag = s.flag || ns
			}
			s.k++
		case c == '.':
			s.k, s.flag = 1, ns
		default:
			s.k, s.flag = 0, false
		}
		return s
	}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if s.ti == len(toks) {
			if s.good || (s.k == 4 && s.flag) {
				return true
			}
			continue
		}
		t := toks[s.ti]
		for i := range reps {
			c := reps[i]
			// A leading '.' is matched only by a '.' the pattern starts with.
			if !t.set[i] || (s.pos0 && c == '.' && (t.kind != litTok || s.ti != 0)) {
				continue
			}
			n := step(s, c, t.kind != starTok)
			if t.kind != starTok {
				n.ti++
			}
			push(n)
		}
		if t.kind == starTok {
			n := s
			n.ti++
			push(n)
		}
	}
	return false
}

// reps are the characters the matcher tells apart; 'x' stands for every
// other character.
const reps = ".envx"

const (
	litTok = iota
	oneTok
	starTok
)

type globTok struct {
	kind int
	set  [len(reps)]bool // which reps the token can consume
}

// globTokens splits a glob into tokens; ok is false for a malformed
// bracket expression (bash then matches it literally).
func globTokens(p string) (toks []globTok, ok bool) {
	all := [len(reps)]bool{true, true, true, true, true}
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '*':
			if len(toks) == 0 || toks[len(toks)-1].kind != starTok {
				toks = append(toks, globTok{kind: starTok, set: all})
			}
		case '?':
			toks = append(toks, globTok{kind: oneTok, set: all})
		case '[':
			j := i + 1
			if j < len(p) && (p[j] == '!' || p[j] == '^') {
				j++
			}
			if j < len(p) && p[j] == ']' {
				j++
			}
			for j < len(p) && p[j] != ']' {
				j++
			}
			if j >= len(p) {
				return nil, false
			}
			class := p[i : j+1]
			if class[1] == '!' {
				class = "[^" + class[2:]
			}
			t := globTok{kind: oneTok}
			for r := range reps {
				t.set[r] = classMatches(class, reps[r])
			}
			toks = append(toks, t)
			i = j
		case '\\':
			if i+1 < len(p) {
				i++
			}
			toks = append(toks, litOf(p[i]))
		default:
			toks = append(toks, litOf(c))
		}
	}
	return toks, true
}

func litOf(c byte) globTok {
	t := globTok{kind: litTok}
	i := strings.IndexByte(reps[:4], lower(c))
	if i < 0 {
		i = 4
	}
	t.set[i] = true
	return t
}

// classMatches reports whether the bracket expression can match the
// representative c (either case), or for 'x' any character outside
// ".env" and '/'.
func classMatches(class string, c byte) bool {
	try := func(b byte) bool {
		ok, err := path.Match(class, string(b))
		return err == nil && ok
	}
	if c != 'x' {
		return try(c) || try(c-'a'+'A') && c != '.'
	}
	for b := 0x20; b < 0x7f; b++ {
		switch lower(byte(b)) {
		case '.', 'e', 'n', 'v', '/':
			continue
		}
		if try(byte(b)) {
			return true
		}
	}
	return try(0x80)
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
