package shellguard

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Expansions that run commands. Bash runs command substitutions found in
// a variable's value in three places besides eval:
//
//   - ${x@P} expands x's value as a prompt string (promptvars is on by
//     default), which performs command substitution;
//   - arithmetic evaluation reads a variable's value as an expression, and
//     an array subscript in that expression is expanded, so x='a[$(cmd)]'
//     runs cmd in $((x)), ((x)), let x, ${a[x]}, ${s:x}, [[ x -eq 1 ]],
//     for ((…; x; …)), a[x]=v, declare -i v=x;
//   - a variable name with a subscript is evaluated the same way by ${!x}
//     (indirection), [[ -v NAME ]], test -v, unset, declare, printf -v,
//     read, mapfile and getopts.
//
// (${x@E}, @Q, @A, @a, @K, @U, @L only transform text.) A statement with
// such an expansion whose inputs the guard cannot see is never safe: it
// asks. When the value is known (assigned earlier in the command) and holds
// a substitution, that code is also classified (x='a[$(rm -rf /)]';
// echo $((x)) is floor).

// flagExec records why the current statement's expansions can run commands.
func (w *walker) flagExec(why string) {
	if w.exec == "" {
		w.exec = why
	}
}

// takeExec returns the recorded reason (an ask reason for raw) and clears it.
func (w *walker) takeExec(raw string) string {
	if w.exec == "" {
		return ""
	}
	r := "ask: " + quote(raw) + " " + w.exec
	w.exec = ""
	return r
}

// valueCode queues a known value that holds a command substitution to be
// classified as code.
func (w *walker) valueCode(v string) {
	if strings.Contains(v, "$(") || strings.Contains(v, "`") || strings.Contains(v, "<(") || strings.Contains(v, ">(") {
		w.execCode = append(w.execCode, v)
	}
}

// anyValue marks ${X:?} in an alternative value: it only refuses an empty
// value, so alone it may be anything, / included (rm -rf ${X:?} is floor),
// but "${X:?}/build" is not / (see target). NUL never occurs in a bash word.
const anyValue = "\x00"

// paramAlt is an unknown parameter expansion's value when the parameter is
// unset or takes its default: ${X:-/} is /, $UNSET is empty, ${X:?} is
// anyValue.
func (w *walker) paramAlt(p *syntax.ParamExp, dq bool) (string, bool) {
	if p.Length {
		return "0", true
	}
	if p.Exp != nil {
		switch p.Exp.Op {
		case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull,
			syntax.AlternateUnset, syntax.AlternateUnsetOrNull:
			if p.Exp.Word == nil {
				return "", true
			}
			fr := w.parts(p.Exp.Word.Parts, dq, !dq, "")
			if len(fr) != 1 {
				return "", false
			}
			return fr[0].effAlt()
		case syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
			return anyValue, true
		}
	}
	if p.Param == nil || p.NestedParam != nil {
		return "", false
	}
	return "", true
}

// execRisk checks a parameter expansion the guard could not evaluate.
func (w *walker) execRisk(p *syntax.ParamExp) {
	name := ""
	if p.Param != nil {
		name = p.Param.Value
	}
	if p.Exp != nil && p.Exp.Op == syntax.OtherParamOps && p.Exp.Word != nil && p.Exp.Word.Lit() == "P" {
		w.flagExec("runs the command substitutions in " + name + "'s value (${" + name + "@P} is prompt expansion)")
		if v, ok := w.vars[name]; ok {
			w.valueCode(v)
		}
	}
	if p.Excl && p.Names == 0 && !allIndex(p.Index) {
		v, ok := w.vars[name]
		if !ok || !isIdent(v) {
			w.flagExec("expands the variable " + name + " names (${!" + name + "}); a name with a subscript runs commands")
		}
		if ok {
			w.valueCode(v)
		}
	}
	if p.Index != nil && !allIndex(p.Index) {
		w.arithRisk(p.Index)
	}
	if p.Slice != nil {
		w.arithRisk(p.Slice.Offset)
		w.arithRisk(p.Slice.Length)
	}
}

// allIndex reports a [@] or [*] subscript.
func allIndex(e syntax.ArithmExpr) bool {
	wd, ok := e.(*syntax.Word)
	if !ok {
		return false
	}
	l := wd.Lit()
	return l == "@" || l == "*"
}

// arithRisk checks an arithmetic expression: every variable it reads must
// have a value the guard knows to be harmless, or be assigned within it.
func (w *walker) arithRisk(es ...syntax.ArithmExpr) {
	var assigned []string
	for _, e := range es {
		if e != nil {
			assigned = arithAssigned(assigned, e)
		}
	}
	for _, e := range es {
		if e != nil {
			w.arithRefs(e, assigned)
		}
	}
}

// arithAssigned appends the names e assigns (i=0, i+=2).
func arithAssigned(assigned []string, e syntax.ArithmExpr) []string {
	syntax.Walk(e, func(n syntax.Node) bool {
		if b, ok := n.(*syntax.BinaryArithm); ok && isArithAssign(b.Op) {
			if wd, ok := b.X.(*syntax.Word); ok {
				if l := wd.Lit(); isIdent(l) {
					assigned = append(assigned, l)
				}
			}
		}
		_, sub := n.(*syntax.CmdSubst)
		return !sub
	})
	return assigned
}

// arithRefs checks the names e reads.
func (w *walker) arithRefs(e syntax.ArithmExpr, assigned []string) {
	syntax.Walk(e, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			w.flagExec("evaluates command output as arithmetic (an array subscript in it runs commands)")
			return false
		case *syntax.Lit:
			w.arithName(n.Value, assigned)
		case *syntax.ParamExp:
			if n.Param != nil {
				w.arithName(n.Param.Value, assigned)
				if positional(n.Param.Value) {
					w.flagExec("evaluates a positional parameter as arithmetic (an array subscript in it runs commands)")
				}
			}
			if !n.Short && (n.Exp != nil || n.Repl != nil || n.Excl || n.Slice != nil) {
				w.flagExec("evaluates an expansion as arithmetic (an array subscript in it runs commands)")
			}
		}
		return true
	})
}

// arithName checks one name read by arithmetic evaluation.
func (w *walker) arithName(s string, assigned []string) {
	if !isIdent(s) || arithSpecial(s) {
		return
	}
	for _, a := range assigned {
		if a == s {
			return
		}
	}
	v, ok := w.vars[s]
	if ok && strings.Trim(v, "0123456789abcdefABCDEFxX#+- \t") == "" {
		return
	}
	if ok {
		w.valueCode(v)
	}
	w.flagExec("evaluates " + s + "'s value as arithmetic (an array subscript in it runs commands)")
}

// arithSpecial: shell variables whose value is always a number.
func arithSpecial(s string) bool {
	switch s {
	case "RANDOM", "SRANDOM", "SECONDS", "LINENO", "BASHPID", "PPID", "UID", "EUID", "EPOCHSECONDS", "EPOCHREALTIME",
		"HISTCMD", "OPTIND", "COLUMNS", "LINES", "SHLVL", "BASH_SUBSHELL":
		return true
	}
	return false
}

// nameRisk checks a word a builtin takes as a variable name (unset x,
// [[ -v x ]], printf -v x, read x): a subscript in it is arithmetic.
func (w *walker) nameRisk(a word) {
	if !a.known {
		w.flagExec("takes a variable name it cannot see (a name with a subscript runs commands)")
		return
	}
	i := strings.IndexByte(a.val, '[')
	if i < 0 {
		return
	}
	sub := a.val[i:]
	if strings.ContainsAny(sub, "$`") {
		w.valueCode(a.val)
		w.flagExec("evaluates the subscript of " + a.val + ", which runs commands")
		return
	}
	name, _, _ := strings.Cut(sub[1:], "]")
	for _, f := range strings.FieldsFunc(name, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) {
		w.arithName(f, nil)
	}
}

// builtinNameRisk checks the variable-name operands of the builtins that
// evaluate subscripts.
func (w *walker) builtinNameRisk(argv []word) {
	switch argv[0].val {
	case "unset":
		for _, a := range argv[1:] {
			if !(a.known && strings.HasPrefix(a.val, "-")) {
				w.nameRisk(a)
			}
		}
	case "test", "[":
		for i := 1; i+1 < len(argv); i++ {
			if argv[i].val == "-v" {
				w.nameRisk(argv[i+1])
			}
		}
	case "printf":
		for i := 1; i+1 < len(argv); i++ {
			if argv[i].val == "-v" {
				w.nameRisk(argv[i+1])
				break
			}
			if !strings.HasPrefix(argv[i].val, "-") {
				break
			}
		}
	case "read", "mapfile", "readarray", "wait":
		withArg := map[string]string{"read": "adinNptu", "mapfile": "dnOsuCc", "readarray": "dnOsuCc", "wait": "p"}[argv[0].val]
		for i := 1; i < len(argv); i++ {
			a := argv[i]
			if a.known && strings.HasPrefix(a.val, "-") && len(a.val) > 1 {
				last := a.val[len(a.val)-1]
				if strings.IndexByte(withArg, last) >= 0 && i+1 < len(argv) {
					i++
					if argv[0].val == "wait" || last == 'a' && argv[0].val == "read" {
						w.nameRisk(argv[i])
					}
				}
				continue
			}
			if argv[0].val != "wait" {
				w.nameRisk(a)
			}
		}
	case "getopts":
		if len(argv) > 2 {
			w.nameRisk(argv[2])
		}
	}
}

// testRisk checks [[ ]]: arithmetic comparisons evaluate their operands,
// -v evaluates a subscript.
func (w *walker) testRisk(e syntax.TestExpr) {
	syntax.Walk(e, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.BinaryTest:
			switch n.Op {
			case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
				w.testOperand(n.X)
				w.testOperand(n.Y)
			}
		case *syntax.ParamExp:
			w.execRisk(n)
		case *syntax.UnaryTest:
			if n.Op == syntax.TsVarSet {
				if wd, ok := n.X.(*syntax.Word); ok {
					w.nameRisk(w.peekWord(wd))
				}
			}
		case *syntax.CmdSubst, *syntax.ProcSubst:
			return false
		}
		return true
	})
}

func (w *walker) testOperand(e syntax.TestExpr) {
	wd, ok := e.(*syntax.Word)
	if !ok {
		return
	}
	if v, ok := litValue(wd); ok {
		if isIdent(v) {
			w.arithName(v, nil)
		} else if strings.ContainsAny(v, "[$`") {
			w.valueCode(v)
			w.flagExec("evaluates " + quote(v) + " as arithmetic (an array subscript in it runs commands)")
		}
		return
	}
	for _, p := range wd.Parts {
		if dq, ok := p.(*syntax.DblQuoted); ok && len(dq.Parts) == 1 {
			p = dq.Parts[0]
		}
		switch p := p.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		case *syntax.ParamExp:
			if p.Param != nil && !p.Excl && p.Exp == nil && p.Index == nil && p.Slice == nil && p.Repl == nil && !p.Length {
				w.arithName(p.Param.Value, nil)
				if positional(p.Param.Value) {
					w.flagExec("evaluates a positional parameter as arithmetic (an array subscript in it runs commands)")
				}
			} else if !p.Length {
				w.flagExec("evaluates an expansion as arithmetic (an array subscript in it runs commands)")
			}
		default:
			w.flagExec("evaluates an expansion as arithmetic (an array subscript in it runs commands)")
		}
	}
}

// declRisk checks declare/local/typeset/export/readonly: subscripts of the
// names it assigns, integer (-i) values, and names it cannot see.
func (w *walker) declRisk(d *syntax.DeclClause) {
	integer := false
	for _, a := range d.Args {
		if a.Name == nil && a.Value != nil {
			if v, ok := litValue(a.Value); ok && strings.HasPrefix(v, "-") {
				if strings.ContainsRune(v, 'i') {
					integer = true
				}
				continue
			}
			v := w.peekWord(a.Value)
			n, _, _ := strings.Cut(v.val, "=")
			w.nameRisk(word{val: n, known: v.known})
			continue
		}
		if a.Index != nil {
			w.arithRisk(a.Index)
		}
		if integer && a.Value != nil {
			if v, ok := litValue(a.Value); !ok || strings.ContainsAny(v, "[$`") || isIdent(v) {
				w.flagExec("evaluates the value of an integer variable as arithmetic (an array subscript in it runs commands)")
			}
		}
	}
}

// peekWord evaluates a word without walking the substitutions in it (the
// statement's walk does that).
func (w *walker) peekWord(wd *syntax.Word) word {
	if v, ok := litValue(wd); ok {
		return word{val: v, text: v, lit: true, known: true}
	}
	fr := w.parts(wd.Parts, false, true, "")
	if len(fr) != 1 {
		return word{}
	}
	return word{val: fr[0].val, text: fr[0].text, known: fr[0].known}
}

// printfAssign: printf -v NAME FORMAT ARGS assigns NAME what the guard can
// evaluate (printf -v X '\x72m'; $X -rf / is floor).
func (w *walker) printfAssign(argv []word, cond bool) {
	if len(argv) < 4 || argv[0].val != "printf" || argv[1].val != "-v" || !argv[2].known || !isIdent(argv[2].val) {
		return
	}
	vals := make([]string, 0, len(argv)-3)
	known := true
	for _, a := range argv[3:] {
		known = known && a.known
		vals = append(vals, a.val)
	}
	if known && vals[0] == "--" {
		vals = vals[1:]
	}
	v, ok := "", false
	if known && len(vals) > 0 {
		v, ok = printfOut(vals[0], vals[1:])
	}
	w.assignVar(argv[2].val, v, ok, cond)
}

func isArithAssign(op syntax.BinAritOperator) bool {
	switch op {
	case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn, syntax.RemAssgn, syntax.AndAssgn,
		syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn, syntax.ShrAssgn:
		return true
	}
	return false
}

// readAssign: read NAME… from a static stdin assigns what the guard can
// see (read X <<< /; rm -rf $X); from a download, the names hold it.
func (w *walker) readAssign(argv []word, x ctx) {
	if argv[0].val != "read" || !x.hasStdin && !x.stdinDL {
		return
	}
	var names []string
	raw := false
	for i := 1; i < len(argv); i++ {
		v := argv[i].val
		if !argv[i].known {
			return
		}
		if strings.HasPrefix(v, "-") && len(v) > 1 {
			if strings.ContainsAny(v, "a") {
				return
			}
			if strings.ContainsRune(v, 'r') {
				raw = true
			}
			if strings.IndexByte("dinNptu", v[len(v)-1]) >= 0 {
				i++
			}
			continue
		}
		if !isIdent(v) {
			return
		}
		names = append(names, v)
	}
	if len(names) == 0 {
		names = []string{"REPLY"}
	}
	if x.stdinDL {
		if w.dlVars == nil {
			w.dlVars = map[string]bool{}
		}
		for _, n := range names {
			w.unsetVar(n)
			w.dlVars[n] = true
		}
		return
	}
	line, _, _ := strings.Cut(x.stdin, "\n")
	if !raw && strings.IndexByte(line, '\\') >= 0 {
		for _, n := range names {
			w.assignVar(n, "", false, x.cond)
		}
		return
	}
	f := strings.Fields(line)
	for i, n := range names {
		v := ""
		switch {
		case i == len(names)-1 && i < len(f):
			// the last name takes the rest of the line
			rest := strings.TrimLeft(line, " \t")
			for k := 0; k < i; k++ {
				rest = strings.TrimLeft(rest[len(f[k]):], " \t")
			}
			v = strings.TrimRight(rest, " \t")
		case i < len(f):
			v = f[i]
		}
		w.assignVar(n, v, true, x.cond)
	}
}

// positional: $1, $@, $* (what a script was called with).
func positional(s string) bool {
	return s == "@" || s == "*" || s != "" && strings.Trim(s, "0123456789") == ""
}
