package shellguard

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// word is one evaluated shell word.
type word struct {
	val   string // value after quote removal and the expansions we can do statically
	text  string // display: the quote-removed literal (~ unexpanded), or the source text
	lit   bool   // no parameter, command, arithmetic or process expansion
	known bool   // val is the runtime value (literal, $HOME, a known variable, $(echo x))
	glob  bool   // unquoted glob metacharacters
	dl    bool   // holds a command/process substitution that downloads
	proc  bool   // holds a process substitution
	home  bool   // starts with ~ or $HOME
	altOK bool   // alt is meaningful (unknown words only)
	alt   string // the value when unknown parameters are unset or take their default (see target)
	node  *syntax.Word
}

// frag is a partial word during evaluation.
type frag struct {
	val, text         string
	lit, known, glob  bool
	proc, home, split bool
	dl                bool // a variable that holds a download or decoder output
	list              bool // "$@" or "${a[@]}": split into words even when quoted
	gv                bool // the value of a for variable over a glob: each value is a match, quoted or not
	altOK             bool
	alt               string
}

const maxBraceWords = 64

// slice returns the source text of n, or "" when positions are unusable.
func (w *walker) slice(n syntax.Node) string {
	if n == nil {
		return ""
	}
	p, e := n.Pos(), n.End()
	if !p.IsValid() || !e.IsValid() || p.IsRecovered() || e.IsRecovered() {
		return ""
	}
	s, t := int(p.Offset()), int(e.Offset())
	if s < 0 || t > len(w.src) || s > t {
		return ""
	}
	return w.src[s:t]
}

// evalWords evaluates command arguments: brace expansion and field
// splitting of static substitutions may turn one word into several.
//
// The words live on the walker's word stack: the caller must call
// w.popWords(mark) when done with them, and nothing may keep them after.
// Substitutions walked while evaluating push and pop their own words above.
func (w *walker) evalWords(ws []*syntax.Word, x ctx) ([]word, int) {
	mark := len(w.words)
	for _, wd := range ws {
		// evalWord may walk substitutions, which use the stack above
		// len(w.words) and pop back before returning.
		w.words = w.evalWord(w.words, wd, x, true)
	}
	return w.words[mark:len(w.words):len(w.words)], mark
}

func (w *walker) popWords(mark int) {
	clear(w.words[mark:])
	w.words = w.words[:mark]
}

// evalOne evaluates a word that is not split (assignment values, redirect
// targets, case subjects).
func (w *walker) evalOne(wd *syntax.Word, x ctx) word {
	if len(wd.Parts) == 1 {
		if l, ok := wd.Parts[0].(*syntax.Lit); ok && plainLit(l.Value) {
			return word{val: l.Value, text: l.Value, lit: true, known: true}
		}
	}
	var buf [1]word
	out := w.evalWord(buf[:0], wd, x, false)
	if len(out) == 0 {
		return word{lit: true, known: true}
	}
	return out[0]
}

// evalWord appends the evaluation of wd to out. It also walks the command
// and process substitutions inside wd as segments of their own.
func (w *walker) evalWord(out []word, wd *syntax.Word, x ctx, fields bool) []word {
	if wd == nil || len(wd.Parts) == 0 {
		return out
	}
	// Fast path: one plain literal part.
	if len(wd.Parts) == 1 {
		if l, ok := wd.Parts[0].(*syntax.Lit); ok && plainLit(l.Value) {
			return append(out, word{val: l.Value, text: l.Value, lit: true, known: true})
		}
	}
	dl := w.nested(wd, x)
	src := w.slice(wd)
	if fields {
		syntax.SplitBraces(wd)
	}
	fr := w.parts(wd.Parts, false, true, src)
	for _, f := range fr {
		if f.split && fields {
			for _, v := range w.splitFields(f.val) {
				out = append(out, word{val: v, text: src, known: true, dl: dl, node: wd})
			}
			continue
		}
		wdv := word{val: f.val, lit: f.lit, known: f.known, glob: f.glob, dl: (dl || f.dl) && !f.known, proc: f.proc, home: f.home, node: wd, alt: f.alt, altOK: f.altOK}
		if f.lit {
			wdv.text = f.text
		} else {
			wdv.text = src
			if wdv.text == "" {
				wdv.text = f.val
			}
		}
		out = append(out, wdv)
	}
	return out
}

// plainLit reports whether an unquoted literal needs no processing.
func plainLit(s string) bool {
	if s == "" || s[0] == '~' {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\', '*', '?', '[', '{':
			return false
		}
	}
	return true
}

// parts evaluates word parts into alternatives (several only with brace
// expansion). dq: inside double quotes. start: at the start of a word.
func (w *walker) parts(ps []syntax.WordPart, dq, start bool, src string) []frag {
	cur := []frag{{lit: true, known: true}}
	for i, p := range ps {
		alts := w.part(p, dq, start && i == 0)
		if len(alts) == 1 {
			a := alts[0]
			for j := range cur {
				cur[j] = joinFrag(cur[j], a, len(ps) == 1)
			}
			continue
		}
		next := make([]frag, 0, len(cur)*len(alts))
		for _, c := range cur {
			for _, a := range alts {
				if len(next) >= maxBraceWords {
					break
				}
				next = append(next, joinFrag(c, a, false))
			}
		}
		cur = next
	}
	return cur
}

func joinFrag(a, b frag, only bool) frag {
	r := frag{
		val:   a.val + b.val,
		text:  a.text + b.text,
		lit:   a.lit && b.lit,
		known: a.known && b.known,
		glob:  a.glob || b.glob,
		proc:  a.proc || b.proc,
		dl:    a.dl || b.dl,
		home:  a.home || (a.val == "" && b.home),
		split: only && b.split,
		list:  only && b.list,
		gv:    a.gv || b.gv,
	}
	if a.val == "" && a.text == "" {
		r.val, r.text = b.val, b.text
	}
	if !r.known {
		x, okx := a.effAlt()
		y, oky := b.effAlt()
		r.altOK = okx && oky
		if r.altOK {
			r.alt = x + y
		}
	}
	return r
}

// effAlt is the fragment's value when its unknown parameters are unset
// (or take their default).
func (f frag) effAlt() (string, bool) {
	if f.known {
		return f.val, true
	}
	return f.alt, f.altOK
}

func (w *walker) part(p syntax.WordPart, dq, start bool) []frag {
	switch p := p.(type) {
	case *syntax.Lit:
		return w.litPart(p, dq, start)
	case *syntax.SglQuoted:
		v := p.Value
		if p.Dollar {
			v = ansiC(v)
		}
		return []frag{{val: v, text: v, lit: true, known: true}}
	case *syntax.DblQuoted:
		fr := w.parts(p.Parts, true, false, "")
		if len(fr) == 0 {
			return []frag{{lit: true, known: true}}
		}
		f := fr[0]
		f.glob, f.split = f.gv, f.list && len(p.Parts) == 1
		return []frag{f}
	case *syntax.ParamExp:
		return w.paramPart(p, dq)
	case *syntax.CmdSubst:
		src := w.slice(p)
		if v, ok := w.staticOutput(p.Stmts); ok {
			return []frag{{val: v, text: src, known: true, split: !dq}}
		}
		return []frag{{val: src, text: src}}
	case *syntax.ProcSubst:
		src := w.slice(p)
		return []frag{{val: src, text: src, proc: true}}
	case *syntax.ArithmExp:
		src := w.slice(p)
		w.arithRisk(p.X)
		return []frag{{val: src, text: src}}
	case *syntax.ExtGlob:
		w.bashSyntax("the extended glob " + quote(p.Op.String()+p.Pattern.Value+")") + " without shopt -s extglob")
		v := p.Op.String() + p.Pattern.Value + ")"
		return []frag{{val: v, text: v, lit: true, known: true, glob: true}}
	case *syntax.BraceExp:
		return w.brace(p, start)
	}
	return []frag{{}}
}

// litPart evaluates an unquoted or double-quoted literal: backslashes,
// and a leading ~ when the literal starts the word.
func (w *walker) litPart(p *syntax.Lit, dq, start bool) []frag {
	if dq {
		v := unescapeDq(p.Value)
		return []frag{{val: v, text: v, lit: true, known: true}}
	}
	v := p.Value
	f := frag{lit: true, known: true}
	if start && strings.HasPrefix(v, "~") {
		end := strings.IndexByte(v, '/')
		if end < 0 {
			end = len(v)
		}
		if exp, ok := w.tilde(v[1:end]); ok {
			f.val, f.text, f.home = exp, v[:end], v[1:end] == "" || v[1] != '+'
			v = v[end:]
		}
	}
	u, glob := unescapeUnquoted(v)
	f.val += u
	f.text += u
	f.glob = glob
	return []frag{f}
}

// paramPart evaluates $X and ${X…}: the values the command assigned, $HOME
// and $PWD, ${X%pat} trimming and ${X:-d} defaults; anything else is not
// literal (with its unset alternative for the floor).
func (w *walker) paramPart(p *syntax.ParamExp, dq bool) []frag {
	src := w.slice(p)
	if f, ok := w.listParam(p, src); ok {
		return []frag{f}
	}
	if p.Exp != nil && p.Param != nil && !p.Excl && !p.Length && p.Index == nil && p.Slice == nil && p.Repl == nil && p.Names == 0 {
		switch p.Exp.Op {
		case syntax.RemSmallSuffix, syntax.RemLargeSuffix, syntax.RemSmallPrefix, syntax.RemLargePrefix:
			v, ok := w.vars[p.Param.Value]
			if p.Param.Value == "HOME" {
				v, ok = w.c.home, true
			} else if p.Param.Value == "PWD" && w.cwd != "" {
				v, ok = w.cwd, true
			}
			if ok {
				if f, ok := w.trimParam(p, v, src); ok {
					f.split = !dq
					return []frag{f}
				}
			}
		case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AlternateUnset, syntax.AlternateUnsetOrNull:
			// A variable the command set to a non-empty literal:
			// ${X:-d} and ${X-d} are its value, ${X:+a} and ${X+a} are a.
			if v, ok := w.vars[p.Param.Value]; ok && v != "" {
				if p.Exp.Op == syntax.DefaultUnset || p.Exp.Op == syntax.DefaultUnsetOrNull {
					return []frag{{val: v, text: src, known: true, split: !dq}}
				}
				if p.Exp.Word == nil {
					return []frag{{text: src, known: true, split: !dq}}
				}
				if fr := w.parts(p.Exp.Word.Parts, dq, false, ""); len(fr) == 1 && fr[0].known {
					return []frag{{val: fr[0].val, text: src, known: true, split: !dq}}
				}
			}
		}
	}
	if p.Param != nil && !p.Excl && !p.Length && p.Index == nil && p.Slice == nil && p.Repl == nil && p.Exp == nil && p.Names == 0 {
		switch name := p.Param.Value; name {
		case "HOME":
			return []frag{{val: w.c.home, text: src, known: true, home: true}}
		case "PWD":
			if w.cwd != "" {
				return []frag{{val: w.cwd, text: src, known: true}}
			}
		default:
			if v, ok := w.vars[name]; ok {
				g := w.globVar == name && name != ""
				return []frag{{val: v, text: src, known: true, split: !dq, glob: g, gv: g}}
			}
		}
	}
	w.execRisk(p)
	f := frag{val: src, text: src}
	if p.Param != nil && w.dlVars[p.Param.Value] {
		f.dl = true
	}
	f.alt, f.altOK = w.paramAlt(p, dq)
	return []frag{f}
}

// brace expands a brace expression into alternatives.
func (w *walker) brace(b *syntax.BraceExp, start bool) []frag {
	if b.Sequence {
		if len(b.Elems) < 2 {
			return []frag{{}}
		}
		lo, hi := b.Elems[0].Lit(), b.Elems[1].Lit()
		step := 1
		if len(b.Elems) > 2 {
			if s, err := strconv.Atoi(b.Elems[2].Lit()); err == nil && s != 0 {
				step = s
			}
		}
		if step < 0 {
			step = -step
		}
		var out []frag
		if a, err1 := strconv.Atoi(lo); err1 == nil {
			if z, err2 := strconv.Atoi(hi); err2 == nil {
				if a <= z {
					for i := a; i <= z && len(out) < maxBraceWords; i += step {
						v := strconv.Itoa(i)
						out = append(out, frag{val: v, text: v, lit: true, known: true})
					}
				} else {
					for i := a; i >= z && len(out) < maxBraceWords; i -= step {
						v := strconv.Itoa(i)
						out = append(out, frag{val: v, text: v, lit: true, known: true})
					}
				}
				return out
			}
		}
		if len(lo) == 1 && len(hi) == 1 {
			a, z := int(lo[0]), int(hi[0])
			if a > z {
				a, z = z, a
			}
			for i := a; i <= z && len(out) < maxBraceWords; i += step {
				v := string(rune(i))
				out = append(out, frag{val: v, text: v, lit: true, known: true})
			}
			return out
		}
		return []frag{{val: "{" + lo + ".." + hi + "}", text: "{" + lo + ".." + hi + "}"}}
	}
	var out []frag
	for _, e := range b.Elems {
		for _, f := range w.parts(e.Parts, false, start, "") {
			if len(out) >= maxBraceWords {
				return out
			}
			f.split = false
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return []frag{{lit: true, known: true}}
	}
	return out
}

// tilde expands ~, ~+ and ~user (without the leading ~).
func (w *walker) tilde(user string) (string, bool) {
	switch user {
	case "":
		return w.c.home, true
	case "+":
		if w.cwd != "" {
			return w.cwd, true
		}
		return "", false
	case "-":
		return "", false
	}
	for i := 0; i < len(user); i++ {
		c := user[i]
		if !(c == '_' || c == '-' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return "", false
		}
	}
	if user == "root" {
		return "/root", true
	}
	if w.c.home != homeSentinel {
		if i := strings.LastIndexByte(w.c.home, '/'); i > 0 {
			return w.c.home[:i+1] + user, true
		}
	}
	return "/home/" + user, true
}

// unescapeUnquoted removes backslash escapes from an unquoted literal and
// reports unescaped glob metacharacters.
func unescapeUnquoted(s string) (string, bool) {
	glob := false
	if strings.IndexByte(s, '\\') < 0 {
		return s, strings.ContainsAny(s, "*?[")
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			i++
			if s[i] != '\n' {
				b.WriteByte(s[i])
			}
			continue
		}
		if c == '*' || c == '?' || c == '[' {
			glob = true
		}
		b.WriteByte(c)
	}
	return b.String(), glob
}

// unescapeDq removes the backslashes that escape $ ` " \ and newline inside
// double quotes.
func unescapeDq(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '$', '`', '"', '\\':
				i++
				b.WriteByte(s[i])
				continue
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// litValue is the value of a word made only of literal and quoted literal
// parts (no expansions), with quotes removed.
func litValue(wd *syntax.Word) (string, bool) {
	if len(wd.Parts) == 1 {
		if l, ok := wd.Parts[0].(*syntax.Lit); ok {
			v, _ := unescapeUnquoted(l.Value)
			return v, true
		}
	}
	var b strings.Builder
	for _, p := range wd.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			v, _ := unescapeUnquoted(p.Value)
			b.WriteString(v)
		case *syntax.SglQuoted:
			if p.Dollar {
				b.WriteString(ansiC(p.Value))
			} else {
				b.WriteString(p.Value)
			}
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(unescapeDq(l.Value))
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// codeText is the text of a word to re-parse as shell code (bash -c, eval):
// quotes removed from literal parts, expansions kept as source text so the
// re-parse sees them as expansions again.
func (w *walker) codeText(wd *syntax.Word) string {
	if v, ok := litValue(wd); ok {
		return v
	}
	var b strings.Builder
	w.codeParts(&b, wd.Parts, false)
	return b.String()
}

func (w *walker) codeParts(b *strings.Builder, ps []syntax.WordPart, dq bool) {
	for _, p := range ps {
		switch p := p.(type) {
		case *syntax.Lit:
			if dq {
				b.WriteString(unescapeDq(p.Value))
			} else {
				v, _ := unescapeUnquoted(p.Value)
				b.WriteString(v)
			}
		case *syntax.SglQuoted:
			if p.Dollar {
				b.WriteString(ansiC(p.Value))
			} else {
				b.WriteString(p.Value)
			}
		case *syntax.DblQuoted:
			w.codeParts(b, p.Parts, true)
		default:
			b.WriteString(w.slice(p))
		}
	}
}

// nested walks the command and process substitutions inside wd (they run
// before the command) and reports whether any of them downloads.
func (w *walker) nested(wd *syntax.Word, x ctx) bool {
	dl := false
	for _, p := range wd.Parts {
		if w.nestedPart(p, x) {
			dl = true
		}
	}
	return dl
}

func (w *walker) nestedPart(p syntax.WordPart, x ctx) bool {
	switch p := p.(type) {
	case *syntax.Lit, *syntax.SglQuoted, *syntax.ExtGlob:
		return false
	case *syntax.CmdSubst:
		// $(cat) reads the command's stdin: curl x | bash -c "$(cat)".
		return w.subIn(p.Stmts, x, x.stdinDL)
	case *syntax.ProcSubst:
		if p.Op == syntax.CmdOut && x.outDL {
			return w.subIn(p.Stmts, x, true)
		}
		return w.sub(p.Stmts, x)
	case *syntax.DblQuoted:
		dl := false
		for _, q := range p.Parts {
			if w.nestedPart(q, x) {
				dl = true
			}
		}
		return dl
	}
	// ParamExp, ArithmExp, BraceExp: substitutions may hide anywhere inside.
	return w.walkSubsts(p, x)
}

// walkSubsts walks every substitution under n (kept out of nestedPart so the
// closure's captures are only allocated when needed).
func (w *walker) walkSubsts(n syntax.Node, x ctx) bool {
	dl := false
	syntax.Walk(n, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			if w.sub(n.Stmts, x) {
				dl = true
			}
			return false
		case *syntax.ProcSubst:
			if w.sub(n.Stmts, x) {
				dl = true
			}
			return false
		}
		return true
	})
	return dl
}

// sub walks a substitution's statements in a subshell and reports whether
// any segment it produced downloads.
func (w *walker) sub(stmts []*syntax.Stmt, x ctx) bool {
	return w.subIn(stmts, x, false)
}

// subIn is sub with stdin from a download (>(…) of a downloader's output).
func (w *walker) subIn(stmts []*syntax.Stmt, x ctx, stdinDL bool) bool {
	start := len(w.res.Segments)
	cwd := w.cwd
	sx := ctx{wrappers: x.wrappers, layers: x.layers, stdinDL: stdinDL}
	w.stmts(stmts, sx)
	w.cwd = cwd
	// A substitution that reads a download on stdin may print it.
	return w.anyDL(start) || stdinDL
}

// splitFields splits an unquoted expansion's value as bash does: on
// spaces, tabs and newlines, or on the characters of IFS when the command
// assigned it a literal (IFS=,; X=rm,-rf,/; $X).
func (w *walker) splitFields(v string) []string {
	ifs, ok := w.vars["IFS"]
	if !ok {
		return strings.Fields(v)
	}
	if ifs == "" {
		return []string{v}
	}
	return strings.FieldsFunc(v, func(r rune) bool { return strings.ContainsRune(ifs, r) })
}
