package shellguard

import (
	"regexp"
	"strconv"
	"strings"

	shpattern "mvdan.cc/sh/v3/pattern"
	"mvdan.cc/sh/v3/syntax"
)

// Positional parameters and arrays: what a function, a bash -c script or
// set -- was given, and arrays assigned literal elements, so that
// f(){ rm -rf "$1"; }; f /, bash -c 'rm -rf "$1"' _ /, set -- rm -rf /; "$@"
// and a=(rm -rf /); "${a[@]}" are evaluated like the command they run.

// fnDef is a function the command defines: its body and the source its
// positions refer to.
type fnDef struct {
	body *syntax.Stmt
	src  string
}

// maxPositional is how many of $1…$9 are bound.
const maxPositional = 9

// posSave is the positional state bindArgs replaced.
type posSave struct {
	vals [maxPositional + 1]string
	had  [maxPositional + 1]bool
	list []string
	hadL bool
}

// bindArgs sets $0 (when zero is not nil) and $1… and "$@" to args, and
// returns what restoreArgs puts back. Unknown arguments leave their
// parameter unknown.
func (w *walker) bindArgs(zero *word, args []word) posSave {
	var s posSave
	if w.vars == nil {
		w.vars = map[string]string{}
	}
	if w.lists == nil {
		w.lists = map[string][]string{}
	}
	for i := 0; i <= maxPositional; i++ {
		k := strconv.Itoa(i)
		s.vals[i], s.had[i] = w.vars[k]
		if i > 0 || zero != nil {
			delete(w.vars, k)
		}
	}
	s.list, s.hadL = w.lists["@"]
	if zero != nil && zero.known {
		w.vars["0"] = zero.val
	}
	all := make([]string, 0, len(args))
	known := true
	for i, a := range args {
		if !a.known {
			known = false
			continue
		}
		all = append(all, a.val)
		if i < maxPositional {
			w.vars[strconv.Itoa(i+1)] = a.val
		}
	}
	if known {
		w.lists["@"] = all
	} else {
		delete(w.lists, "@")
	}
	return s
}

func (w *walker) restoreArgs(s posSave) {
	for i := 0; i <= maxPositional; i++ {
		k := strconv.Itoa(i)
		if s.had[i] {
			w.vars[k] = s.vals[i]
		} else {
			delete(w.vars, k)
		}
	}
	if s.hadL {
		w.lists["@"] = s.list
	} else {
		delete(w.lists, "@")
	}
}

// setArgs: set -- a b c (or set a b c) replaces the positional parameters
// for the rest of the command.
func (w *walker) setArgs(argv []word) {
	pos, ends, _, known := setParse(argv)
	if !known || pos >= len(argv) && !ends {
		return // set -e, set -o pipefail: options only
	}
	w.bindArgs(nil, argv[pos:])
}

// setParse reads the set builtin's arguments as bash does: options (-e, +x,
// bundles such as -euo NAME, -o/+o NAME), then positional parameters after
// "--", "-" or the first word that is not an option. pos is the index of
// the first positional parameter (len(argv) when there is none), ends
// whether "--" or "-" ended the options (set -- alone clears them), bad why
// an option is not one bash has ("" when all are), known false when a word
// before the positional parameters is not literal.
func setParse(argv []word) (pos int, ends bool, bad string, known bool) {
	for i := 1; i < len(argv); i++ {
		if !argv[i].known {
			return i, false, "", false
		}
		v := argv[i].val
		if v == "--" || v == "-" {
			return i + 1, true, bad, true
		}
		if len(v) < 2 || v[0] != '-' && v[0] != '+' {
			return i, false, bad, true
		}
		for j := 1; j < len(v); j++ {
			switch c := v[j]; {
			case c == 'o':
				if i+1 < len(argv) && argv[i+1].known && !strings.HasPrefix(argv[i+1].val, "-") && !strings.HasPrefix(argv[i+1].val, "+") {
					i++
					if bad == "" && !contains(setOptionNames, argv[i].val) {
						bad = "has an option name bash's set does not know (" + argv[i].val + ")"
					}
				}
			case strings.IndexByte("abefhkmnptuvxBCEHPT", c) < 0:
				if bad == "" {
					bad = "has an option bash's set does not know (-" + string(c) + ")"
				}
			}
		}
	}
	return len(argv), false, bad, true
}

// callFunc walks the body of a function the command defined, with its
// arguments bound to $1…, as bash runs it.
func (w *walker) callFunc(name string, argv []word, x ctx) bool {
	d, ok := w.fbody[name]
	if !ok || d.body == nil || w.depth >= maxDepth || w.active[name] {
		return false
	}
	if w.active == nil {
		w.active = map[string]bool{}
	}
	w.active[name] = true
	defer delete(w.active, name)
	w.depth++
	saved := w.bindArgs(nil, argv[1:])
	fn, hadFn := w.vars["FUNCNAME"]
	w.vars["FUNCNAME"] = name
	old, cwd := w.src, w.cwd
	w.src = d.src
	y := x
	y.cond = true
	y.wrappers = append(append([]string(nil), x.wrappers...), "function "+name)
	w.stmt(d.body, y)
	w.src, w.cwd = old, cwd
	w.restoreArgs(saved)
	if hadFn {
		w.vars["FUNCNAME"] = fn
	} else {
		delete(w.vars, "FUNCNAME")
	}
	w.depth--
	return true
}

// assignArray records a=(literal elements); anything else forgets a.
func (w *walker) assignArray(name string, arr *syntax.ArrayExpr, x ctx) {
	vals := make([]string, 0, len(arr.Elems))
	for _, e := range arr.Elems {
		if e.Index != nil || e.Value == nil {
			w.forgetArray(name)
			return
		}
		mark := len(w.words)
		w.words = w.evalWord(w.words, e.Value, x, true)
		for _, v := range w.words[mark:] {
			if !v.known {
				w.popWords(mark)
				w.forgetArray(name)
				return
			}
			vals = append(vals, v.val)
		}
		w.popWords(mark)
	}
	if w.lists == nil {
		w.lists = map[string][]string{}
	}
	w.lists[name] = vals
	if len(vals) > 0 {
		w.assignVar(name, vals[0], true, x.cond)
	} else {
		w.assignVar(name, "", true, x.cond)
	}
}

func (w *walker) forgetArray(name string) {
	delete(w.lists, name)
	w.assignVar(name, "", false, false)
}

// listParam evaluates "$@", "$*", "${a[@]}", "${a[*]}" and "${a[N]}" when
// the list is known.
func (w *walker) listParam(p *syntax.ParamExp, src string) (frag, bool) {
	if len(w.lists) == 0 || p.Param == nil || p.Excl || p.Length || p.Slice != nil || p.Repl != nil || p.Exp != nil || p.Names != 0 {
		return frag{}, false
	}
	name := p.Param.Value
	if name == "*" {
		name = "@"
	}
	l, ok := w.lists[name]
	if !ok {
		return frag{}, false
	}
	if p.Index == nil {
		if name != "@" {
			return frag{}, false // $a is ${a[0]}, kept in vars
		}
		return frag{val: strings.Join(l, " "), text: src, known: true, split: true, list: true}, true
	}
	if allIndex(p.Index) {
		return frag{val: strings.Join(l, " "), text: src, known: true, split: true, list: true}, true
	}
	if wd, ok := p.Index.(*syntax.Word); ok {
		if n, err := strconv.Atoi(wd.Lit()); err == nil && n >= 0 {
			if n < len(l) {
				return frag{val: l[n], text: src, known: true, split: true}, true
			}
			return frag{text: src, known: true, split: true}, true
		}
	}
	return frag{}, false
}

// trimParam evaluates ${NAME%pat}, ${NAME%%pat}, ${NAME#pat} and
// ${NAME##pat} of a known value with a literal pattern, as bash does
// (rm -rf ${HOME%/*} removes home's parent).
func (w *walker) trimParam(p *syntax.ParamExp, val, src string) (frag, bool) {
	if p.Exp.Word == nil {
		return frag{val: val, text: src, known: true}, true
	}
	pat, ok := litValue(p.Exp.Word)
	if !ok {
		return frag{}, false
	}
	suffix := p.Exp.Op == syntax.RemSmallSuffix || p.Exp.Op == syntax.RemLargeSuffix
	small := p.Exp.Op == syntax.RemSmallSuffix || p.Exp.Op == syntax.RemSmallPrefix
	expr, err := shpattern.Regexp(pat, shpattern.EntireString)
	if err != nil {
		return frag{}, false
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return frag{}, false
	}
	n := len(val)
	for k := 0; k <= n; k++ {
		// k is the length of the part tried for removal: shortest first
		// for % and #, longest first for %% and ##.
		l := k
		if !small {
			l = n - k
		}
		if suffix && re.MatchString(val[n-l:]) {
			return frag{val: val[:n-l], text: src, known: true}, true
		}
		if !suffix && re.MatchString(val[:l]) {
			return frag{val: val[l:], text: src, known: true}, true
		}
	}
	return frag{val: val, text: src, known: true}, true
}
