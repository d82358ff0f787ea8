package shellguard

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// segIn carries what the walker knows about a segment besides its words.
type segIn struct {
	raw      string
	redirs   []string
	write    string // a file the segment's redirections write
	device   string // a block device the segment's redirections write
	shape    string // preset floor shape
	reason   string // preset reason
	unparsed bool   // from the raw scan of unparsable input
	expr     bool   // [[ ]], (( )), let
	decl     bool   // export, declare, local, readonly
	assign   bool   // NAME=value alone
	unknown  bool   // a node kind the walker does not know
	ask      string // preset ask reason
	net      bool   // a redirection opens a network connection
}

// call walks a simple command: its assignments, words and redirections,
// then classifies it (simple).
func (w *walker) call(s *syntax.Stmt, ce *syntax.CallExpr, x ctx, r stmtRedirs) {
	if len(ce.Assigns) == 0 && len(ce.Args) > 0 && len(ce.Args[0].Parts) == 1 {
		if l, ok := ce.Args[0].Parts[0].(*syntax.Lit); ok && reservedStart(l.Value) {
			w.bashSyntax("the reserved word " + quote(l.Value) + " where a command starts")
		}
	}
	danger, prefix := w.callAssigns(ce, x)
	args, mark := w.evalWords(ce.Args, x)
	// One deferred call, not one per prefix variable: a defer in a loop
	// makes every defer of the function a heap-allocated record.
	var saved []savedVar
	defer w.endCall(mark, &saved)
	in := segIn{raw: w.slice(s), redirs: r.texts, write: r.write, device: r.device, net: r.net}
	if r.write != "" {
		app := false
		for _, rd := range s.Redirs {
			if rd.Op == syntax.AppOut {
				app = true
			}
		}
		w.noteWritten(ce, r, x, app)
	}
	if len(args) > 0 && len(prefix) > 0 {
		// NAME=value CMD: the command (and the scripts it runs) sees the
		// value; its own words were expanded before.
		w.envRuns(prefix, x)
		for _, pv := range prefix {
			old, had := w.vars[pv.name]
			w.setVar(pv.name, pv.val)
			saved = append(saved, savedVar{pv.name, old, had})
		}
	}
	if r.hasStdin || r.stdinDL {
		x.stdin, x.hasStdin, x.stdinDL = r.stdin, r.hasStdin, r.stdinDL
	}
	if len(args) > 0 {
		w.builtinNameRisk(args)
		w.printfAssign(args, x.cond)
		w.readAssign(args, x)
	}
	in.ask = w.takeExec(in.raw)
	if len(args) == 0 {
		// NAME=CMD alone: later commands of the shell see it.
		w.envRuns(w.knownAssigns(ce.Assigns), x)
		in.assign = true
		w.emit(nil, x, in, peeled{danger: danger})
		return
	}
	w.simple(args, x, in, danger)
}

// callAssigns walks a simple command's NAME=value words: alone they
// assign shell variables; before a command they are returned as prefix
// (when literal), and danger names the first that changes what the
// command runs (PATH, LD_PRELOAD, …).
func (w *walker) callAssigns(ce *syntax.CallExpr, x ctx) (danger string, prefix []prefixVar) {
	for _, a := range ce.Assigns {
		if a.Array != nil {
			w.walkNodeSubsts(a.Array, x)
			if a.Name != nil && len(ce.Args) == 0 {
				if a.Append {
					w.forgetArray(a.Name.Value)
				} else {
					w.assignArray(a.Name.Value, a.Array, x)
				}
			}
		}
		if a.Index != nil {
			w.walkNodeSubsts(a.Index, x)
			if a.Name != nil && len(ce.Args) == 0 {
				w.forgetArray(a.Name.Value)
			}
		}
		if a.Index != nil {
			w.arithRisk(a.Index)
		}
		var v []word
		if a.Value != nil {
			v = []word{w.evalOne(a.Value, x)}
		}
		if a.Name == nil {
			continue
		}
		if len(ce.Args) > 0 && len(v) == 1 && v[0].known && a.Array == nil && a.Index == nil {
			prefix = append(prefix, prefixVar{a.Name.Value, v[0].val})
		}
		if dangerousEnv(a.Name.Value) && danger == "" {
			danger = a.Name.Value
		}
		if len(ce.Args) == 0 && a.Array == nil && a.Index == nil && !a.Append {
			if len(v) == 1 {
				w.assignVar(a.Name.Value, v[0].val, v[0].known, x.cond)
				w.noteDLVar(a.Name.Value, v[0])
			} else if a.Value == nil {
				w.assignVar(a.Name.Value, "", true, x.cond)
			} else {
				w.assignVar(a.Name.Value, "", false, x.cond)
			}
		}
	}
	return danger, prefix
}

// simple peels wrappers off one command and classifies it, recursing into
// the scripts it runs (bash -c, eval, here-docs fed to a shell, find -exec).
func (w *walker) simple(args []word, x ctx, in segIn, danger string) {
	if w.stdinDL {
		x.stdinDL = true // exec < <(curl …) made the shell's stdin a download
	}
	p := w.peel(args)
	if p.danger == "" {
		p.danger = danger
	}
	sc := simpleCall{w: w, x: x, in: in, p: p, argv: p.argv}
	sc.name = cmdName(sc.argv[0])
	sc.lname = strings.ToLower(sc.name)
	if p.xargs && x.hasStdin {
		nul := false
		for _, wr := range p.wrappers {
			if strings.HasPrefix(wr, "xargs") && (strings.Contains(wr, " -0") || strings.Contains(wr, "--null")) {
				nul = true
			}
		}
		sc.argv = xargsInput(sc.argv, x.stdin, p.xargsRepl, nul)
		sc.p.argv = sc.argv
	}
	sc.nested()
	if sc.in.net && (isShell(sc.lname) || isInterpreter(sc.lname)) {
		sc.floor("runs a shell on a network connection")
	}
	if sc.runner() {
		return
	}
	w.emit(sc.argv, x, sc.in, sc.p)
	sc.after()
}

// simpleCall is one simple command while simple classifies it: the peeled
// words and what the cases below learn about the segment.
type simpleCall struct {
	w           *walker
	x           ctx
	in          segIn
	p           peeled
	argv        []word
	name, lname string
}

// inner is the context of a script the command runs; extra names the
// layer ("bash -c", "eval", "alias x").
func (sc *simpleCall) inner(extra string) ctx {
	x, p, in := &sc.x, &sc.p, &sc.in
	y := ctx{redirs: x.redirs, write: x.write, danger: x.danger}
	if p.danger != "" {
		y.danger = p.danger
	}
	y.wrappers = append(append(append([]string(nil), x.wrappers...), p.wrappers...), extra)
	y.layers = append(append(append([]string(nil), x.layers...), p.layers...), joinText(sc.argv))
	if len(in.redirs) > 0 {
		y.redirs = append(append([]string(nil), x.redirs...), in.redirs...)
	}
	if in.write != "" {
		y.write = in.write
	}
	return y
}

// floor presets the segment's floor verdict: the command is a shell or
// program running a download (ShapePipeToShell); why is the reason's tail.
func (sc *simpleCall) floor(why string) {
	sc.in.shape, sc.in.reason = ShapePipeToShell, "floor: "+quote(joinText(sc.argv))+" "+why
}

// nested walks what the command runs besides its own verdict: an alias it
// defined, its NAME=CMD environment, sudo -s words, the runTable's
// commands, a shell a wrapper runs, toybox's applet.
func (sc *simpleCall) nested() {
	w, argv, name, lname, p := sc.w, sc.argv, sc.name, sc.lname, &sc.p
	if v, ok := w.aliases[name]; ok && !w.funcs[name] && len(p.wrappers) == 0 {
		// An alias the command defined: bash expands it only on a later
		// line and with shopt -s expand_aliases, the guard always does.
		code := make([]string, 1, len(argv))
		code[0] = v
		for _, a := range argv[1:] {
			code = append(code, w.wordCode(a))
		}
		delete(w.aliases, name) // bash does not expand an alias inside itself
		w.code(strings.Join(code, " "), sc.inner("alias "+name), true)
		w.aliases[name] = v
	}
	if len(p.envs) > 0 {
		w.envRuns(p.envs, sc.inner(""))
	}
	if p.line != "" && len(argv) > 0 {
		// sudo -s CMD…: the words are joined and run by a shell.
		code := make([]string, 0, len(argv))
		for _, a := range argv {
			code = append(code, w.wordCode(a))
		}
		w.code(strings.Join(code, " "), sc.inner(p.line), false)
	}
	if !w.runs(lname, argv, sc.inner) && execWrapper(lname) {
		// chroot / sh -c '…', runuser -u x -- bash -c '…': the first shell
		// or eval among the later words runs a script.
		for j := 1; j < len(argv); j++ {
			if n := strings.ToLower(cmdName(argv[j])); isShell(n) || n == "eval" {
				sub := append([]word(nil), argv[j:]...)
				w.simple(sub, sc.inner(lname), segIn{raw: joinText(sub)}, "")
				break
			}
		}
	}
	if lname == "toybox" && len(argv) > 1 {
		sub := append([]word(nil), argv[1:]...)
		in := &sc.in
		w.simple(sub, sc.inner("toybox"), segIn{raw: joinText(sub), redirs: in.redirs, write: in.write, device: in.device}, "")
	}
}

// runner handles the commands that run code given as words or on stdin
// (shells, eval, source, interpreters, trap, alias); done says the script
// was walked and the command emitted.
func (sc *simpleCall) runner() (done bool) {
	lname, argv := sc.lname, sc.argv
	switch {
	case isShell(lname):
		return sc.shell()
	case lname == "eval":
		return sc.eval()
	case lname == "source" || lname == ".":
		sc.source()
	case isInterpreter(lname):
		sc.interpreter()
	case lname == "su":
		sc.p.elevated = true
	case lname == "trap" && len(argv) >= 3:
		if c := argv[1]; c.val != "-" && c.val != "" {
			sc.w.code(sc.w.wordCode(c), sc.inner("trap"), false)
		}
	case lname == "alias":
		w := sc.w
		for _, a := range argv[1:] {
			if n, v, ok := strings.Cut(a.val, "="); ok && a.known {
				w.code(v, sc.inner("alias"), false)
				if w.aliases == nil {
					w.aliases = map[string]string{}
				}
				w.aliases[n] = v
			}
		}
	}
	return false
}

// shell handles bash -c CODE, bash SCRIPT and bash reading stdin.
func (sc *simpleCall) shell() (done bool) {
	w, x, argv, name := sc.w, &sc.x, sc.argv, sc.name
	sa := shellArgs(argv)
	switch {
	case sa.code > 0:
		cw := argv[sa.code]
		if sc.p.xargs && x.stdinDL {
			sc.floor("runs code xargs reads from a download or decoder")
			return false
		}
		if cw.dl {
			sc.floor("runs a downloaded or decoded script")
			return false
		}
		w.emitUnlessFloor(sc.in, *x, sc.p)
		w.secretShellArgs(argv[sa.code+1:], sc.in.raw) // secretfiles.go
		y := sc.inner(name + " -c")
		y.stdinDL, y.stdin, y.hasStdin = x.stdinDL, x.stdin, x.hasStdin // the script's stdin is the shell's
		if rest := argv[sa.code+1:]; len(rest) > 0 {
			saved := w.bindArgs(&rest[0], rest[1:])
			w.code(w.wordCode(cw), y, false)
			w.restoreArgs(saved)
		} else {
			w.code(w.wordCode(cw), y, false)
		}
		return true
	case sa.script > 0:
		if argv[sa.script].dl || x.stdinDL && stdinPath(argv[sa.script].val) {
			sc.floor("runs a downloaded or decoded script")
		} else if src, ok := w.fileCode(argv[sa.script], *x); ok {
			w.code(src, sc.inner(name+" <(…)"), false)
		} else if src, ok := w.writtenCode(argv[sa.script]); ok {
			w.code(src, sc.inner(name+" "+argv[sa.script].val), false)
		}
	default: // the program comes from stdin
		if x.stdinDL {
			sc.floor("runs a script piped from a download or decoder")
			return false
		}
		if x.hasStdin {
			w.emitUnlessFloor(sc.in, *x, sc.p)
			w.code(x.stdin, sc.inner(name+" <<stdin"), false)
			return true
		}
	}
	return false
}

// eval walks eval's words as a script that keeps cd and variables.
func (sc *simpleCall) eval() (done bool) {
	w, x, argv := sc.w, &sc.x, sc.argv
	code := make([]string, 0, len(argv)-1)
	ev := argv[1:]
	if len(ev) > 0 && ev[0].known && ev[0].val == "--" {
		ev = ev[1:]
	}
	for _, a := range ev {
		if a.dl {
			sc.floor("evaluates a download or decoded text")
		}
		code = append(code, w.wordCode(a))
	}
	if sc.in.shape == "" && len(code) > 0 {
		w.emitUnlessFloor(sc.in, *x, sc.p)
		y := sc.inner("eval")
		y.stdinDL, y.stdin, y.hasStdin = x.stdinDL, x.stdin, x.hasStdin
		w.code(strings.Join(code, " "), y, true)
		return true
	}
	return false
}

// source walks the file source (or .) reads, when its text is known.
func (sc *simpleCall) source() {
	w, argv := sc.w, sc.argv
	for _, a := range argv[1:] {
		if a.dl || (sc.x.stdinDL && stdinPath(a.val)) {
			sc.floor("sources a download or decoded text")
		}
	}
	if len(argv) > 1 && sc.in.shape == "" {
		if src, ok := w.fileCode(argv[1], sc.x); ok {
			w.code(src, sc.inner(sc.lname), true)
		} else if src, ok := w.writtenCode(argv[1]); ok {
			w.code(src, sc.inner(sc.lname), true)
		}
	}
}

// interpreter handles python, perl, node…: a downloaded program, and
// inline code that runs its own arguments as a command.
func (sc *simpleCall) interpreter() {
	w, argv, lname := sc.w, sc.argv, sc.lname
	for i, a := range argv[1:] {
		if a.dl {
			sc.floor("runs a downloaded or decoded program")
		}
		if a.known && runsArgv(a.val) && i+2 < len(argv) {
			// python -c 'os.system(sys.argv[1])' 'rm -rf /',
			// perl -e 'system @ARGV' rm -rf /: the arguments are the command.
			code := make([]string, 0, len(argv)-i-2)
			for _, b := range argv[i+2:] {
				code = append(code, w.wordCode(b))
			}
			w.code(strings.Join(code, " "), sc.inner(lname+" argv"), false)
			if len(argv)-i-2 > 1 {
				w.code(w.wordCode(argv[i+2]), sc.inner(lname+" argv"), false)
			}
			break
		}
	}
	if sc.x.stdinDL && readsProgramFromStdin(argv) {
		sc.floor("runs a program piped from a download or decoder")
	}
}

// after applies what the command changes for the commands after it (cd,
// set --, git config) and walks what it schedules or calls (crontab, a
// script written earlier, a function the command defined).
func (sc *simpleCall) after() {
	w, x, in, p, argv, name, lname := sc.w, sc.x, sc.in, sc.p, sc.argv, sc.name, sc.lname
	switch {
	case lname == "cd" || lname == "pushd" || lname == "popd":
		w.chdir(argv)
	case lname == "set":
		w.setArgs(argv)
	case (lname == "crontab" || lname == "at" || lname == "batch") && x.hasStdin && (len(argv) == 1 || argv[len(argv)-1].val == "-" || lname != "crontab"):
		// crontab - / at now read the jobs they schedule from stdin.
		w.code(cronCode(lname, x.stdin), sc.inner(lname), false)
	case len(argv) == 1 && strings.HasPrefix(argv[0].val, "./") || strings.HasPrefix(argv[0].val, "/") && w.written[w.resolve(argv[0].val)] != "":
		if src, ok := w.writtenCode(argv[0]); ok {
			w.code(src, sc.inner(argv[0].val), false)
		}
	case lname == "exec" && len(argv) == 1 && x.stdinDL:
		w.stdinDL = true
	case lname == "parallel" && x.stdinDL && !hasCommandWord(argv[1:]):
		w.emit(argv, x, segIn{raw: in.raw, shape: ShapePipeToShell, reason: "floor: " + quote(joinText(argv)) + " runs the lines of a download or decoder output as commands"}, p)
	case lname == "git":
		w.noteGitConfig(argv, sc.inner)
	case w.active[name] && x.forks && len(p.wrappers) == 0:
		// A function reached again from its own body in a pipe or the
		// background, here through eval or a nested script: a fork bomb.
		w.emit(argv, x, segIn{raw: in.raw, shape: ShapeForkBomb, reason: "floor: function " + quote(name) + " calls itself in a pipe or in the background (a fork bomb)"}, p)
	case w.fbody != nil && len(p.wrappers) == 0:
		w.callFunc(name, argv, x)
	}
}

// emitUnlessFloor emits the wrapper command itself only when it is a floor
// hit on its own (rare: the script is classified separately).
func (w *walker) emitUnlessFloor(in segIn, x ctx, p peeled) {
	if in.device != "" || in.shape != "" || in.ask != "" {
		w.emit(nil, x, segIn{raw: in.raw, redirs: in.redirs, device: in.device, shape: in.shape, reason: in.reason, ask: in.ask}, p)
	}
}

// wordCode is the shell text of a word to re-parse as code.
func (w *walker) wordCode(a word) string {
	if a.known || a.node == nil {
		return a.val
	}
	return w.codeText(a.node)
}

// code parses src as a nested script and walks it. persist: cd and
// variables carry over (eval); otherwise the script runs in a child.
func (w *walker) code(src string, x ctx, persist bool) {
	if w.depth >= maxDepth {
		w.emit([]word{{val: src, text: src}}, x, segIn{raw: src, ask: "ask: scripts are nested too deeply to inspect"}, peeled{})
		return
	}
	w.depth++
	old, cwd := w.src, w.cwd
	w.src = src
	f, err := parse(src)
	if err != nil {
		w.recover(src, x)
		w.src = src
		w.emit([]word{{val: src, text: src}}, x, segIn{raw: src, ask: "ask: nested script does not parse: " + err.Error()}, peeled{})
	} else {
		w.stmts(f.Stmts, x)
	}
	w.src = old
	w.depth--
	if !persist {
		w.cwd = cwd
	}
}

// xargsInput appends the words of a static stdin (echo / | xargs rm -rf)
// to the command, or substitutes them for the -I replacement string.
func xargsInput(argv []word, stdin, repl string, nul bool) []word {
	items := strings.Fields(stdin)
	switch {
	case nul:
		// -0: items end at NUL bytes only.
		items = strings.Split(strings.TrimSuffix(stdin, "\x00"), "\x00")
	case repl != "":
		// -I: one item per line, leading blanks removed.
		items = items[:0:0]
		for _, l := range strings.Split(stdin, "\n") {
			if l = strings.TrimLeft(l, " \t"); l != "" {
				items = append(items, l)
			}
		}
	}
	if len(items) == 0 {
		return argv
	}
	out := append([]word(nil), argv...)
	if repl == "" {
		for _, it := range items {
			out = append(out, word{val: it, text: it, known: true})
		}
		return out
	}
	for i := range out {
		if strings.Contains(out[i].val, repl) {
			v := strings.ReplaceAll(out[i].val, repl, items[0])
			out[i] = word{val: v, text: v, known: out[i].known}
		}
	}
	return out
}

func isShell(name string) bool {
	switch name {
	case "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "yash", "posh", "rbash":
		return true
	}
	return false
}

func isInterpreter(name string) bool {
	switch name {
	case "perl", "ruby", "node", "nodejs", "php", "lua", "deno", "bun", "tclsh", "osascript", "pwsh":
		return true
	}
	return strings.HasPrefix(name, "python") || strings.HasPrefix(name, "pypy")
}

// shellArgsInfo locates the -c script or script file of a shell command.
type shellArgsInfo struct {
	code   int // index of the -c string, 0 if none
	script int // index of the script file, 0 if none
}

func shellArgs(argv []word) shellArgsInfo {
	var r shellArgsInfo
	hasC := false
	i := 1
	for i < len(argv) {
		a := argv[i]
		if !a.known {
			break
		}
		v := a.val
		if v == "--" || v == "-" {
			i++
			break
		}
		if len(v) < 2 || (v[0] != '-' && v[0] != '+') {
			break
		}
		i++
		if strings.HasPrefix(v, "--") {
			switch v {
			case "--rcfile", "--init-file":
				i++
			case "--command":
				hasC = true
			}
			continue
		}
		for j := 1; j < len(v); j++ {
			switch v[j] {
			case 'c':
				hasC = true
			case 'o', 'O':
				if j == len(v)-1 {
					i++
				}
			}
		}
	}
	if i < len(argv) {
		if hasC {
			r.code = i
		} else {
			r.script = i
		}
	}
	return r
}

// readsProgramFromStdin reports whether an interpreter reads its program
// from stdin: no -c/-e code and no script operand (or "-").
func readsProgramFromStdin(argv []word) bool {
	for i := 1; i < len(argv); i++ {
		v := argv[i].val
		if !argv[i].known {
			return false
		}
		if v == "-" || v == "-s" {
			return true
		}
		if strings.HasPrefix(v, "--") {
			switch v {
			case "--eval", "--print", "--command":
				return false
			}
			continue
		}
		if strings.HasPrefix(v, "-") {
			last := v[len(v)-1]
			if strings.ContainsAny(v[1:], "ceEmpr") && (last == 'c' || last == 'e' || last == 'E' || last == 'm' || last == 'p' || last == 'r') {
				return false
			}
			if v == "-W" || v == "-X" || v == "-I" || v == "-M" || v == "--require" {
				i++
			}
			continue
		}
		return false
	}
	return true
}

func (w *walker) chdir(argv []word) {
	name := cmdName(argv[0])
	if name == "popd" {
		w.cwd = ""
		return
	}
	var target *word
	for i := 1; i < len(argv); i++ {
		if argv[i].known && (argv[i].val == "-L" || argv[i].val == "-P" || argv[i].val == "-e" || argv[i].val == "-@") {
			continue
		}
		target = &argv[i]
		break
	}
	if target == nil {
		w.cwd = w.c.home
		if w.c.home != homeSentinel && !w.inside(w.c.home) {
			w.addOutside(w.c.home)
		}
		return
	}
	if !target.known || target.val == "-" {
		w.cwd = ""
		return
	}
	w.pathArg(target.val, true)
	w.cwd = w.resolve(target.val)
}

// stdinPath: a path that names the command's standard input.
func stdinPath(v string) bool {
	return v == "/dev/stdin" || v == "-" || v == "/proc/self/fd/0" || v == "/dev/fd/0"
}

// fileCode is the script a shell or source reads from a file argument the
// guard can see: a process substitution of static output (source <(echo
// …)) or standard input holding static text (echo … | source /dev/stdin).
func (w *walker) fileCode(a word, x ctx) (string, bool) {
	if stdinPath(a.val) && a.known {
		return x.stdin, x.hasStdin
	}
	if !a.proc || a.node == nil || len(a.node.Parts) != 1 {
		return "", false
	}
	ps, ok := a.node.Parts[0].(*syntax.ProcSubst)
	if !ok || ps.Op != syntax.CmdIn {
		return "", false
	}
	return w.staticOutput(ps.Stmts)
}

// noteGitConfig: git config NAME VALUE (git config set, --add, any scope)
// changes what later git commands of the same command run, as -c does:
// git config alias.p 'push -f'; git p is a force push. A shell alias
// (alias.x='!…') is a script: it is classified where it is defined.
func (w *walker) noteGitConfig(argv []word, inner func(string) ctx) {
	i := gitSubcommand(argv)
	if i <= 0 || argv[i].val != "config" {
		return
	}
	var ops []word
	for j := i + 1; j < len(argv); j++ {
		v := argv[j].val
		switch {
		case !argv[j].known:
			return
		case v == "-f" || v == "--file" || v == "--blob" || v == "--type" || v == "--default" || v == "--comment" || v == "--value":
			j++
		case strings.HasPrefix(v, "-"):
			if v == "--unset" || v == "--unset-all" || v == "--get" || v == "--get-all" || v == "--get-regexp" || v == "-l" || v == "--list" || v == "--remove-section" || v == "--rename-section" {
				return
			}
		default:
			ops = append(ops, argv[j])
		}
	}
	if len(ops) == 3 && ops[0].val == "set" {
		ops = ops[1:]
	}
	if len(ops) != 2 {
		return
	}
	k, v := ops[0].val, ops[1].val
	w.gitCfg = append(w.gitCfg, k+"="+v)
	// A key whose value git runs (core.pager, alias.x=!…) is a command
	// left in the repository for later: classified where it is set.
	w.gitConfigRuns(k+"="+v, inner("git config "+k))
}

// hasCommandWord: an argument that is not an option (parallel's command).
func hasCommandWord(a []word) bool {
	for _, x := range a {
		if !x.known || !strings.HasPrefix(x.val, "-") {
			return true
		}
	}
	return false
}

// runsArgv: interpreter code that runs its own arguments as a command.
func runsArgv(code string) bool {
	if !strings.Contains(code, "argv") && !strings.Contains(code, "ARGV") {
		return false
	}
	for _, m := range []string{"system", "exec", "popen", "subprocess", "spawn", "call(", "run(", "`"} {
		if strings.Contains(code, m) {
			return true
		}
	}
	return false
}

// prefixVar is a NAME=value before a command, with a known value.
type prefixVar struct{ name, val string }

// savedVar is a variable's value before a NAME=value prefix set it.
type savedVar struct {
	name, old string
	had       bool
}

// endCall undoes what call set for its command: the prefix variables,
// last first, then the words it pushed.
func (w *walker) endCall(mark int, saved *[]savedVar) {
	for i := len(*saved) - 1; i >= 0; i-- {
		v := (*saved)[i]
		if v.had {
			w.vars[v.name] = v.old
		} else {
			delete(w.vars, v.name)
		}
	}
	w.popWords(mark)
}

// knownAssigns lists the assignments whose value the guard knows (for
// envRuns), from the variables just assigned.
func (w *walker) knownAssigns(as []*syntax.Assign) []prefixVar {
	var out []prefixVar
	for _, a := range as {
		if a.Name == nil || a.Array != nil || a.Index != nil {
			continue
		}
		if v, ok := w.vars[a.Name.Value]; ok {
			out = append(out, prefixVar{a.Name.Value, v})
		}
	}
	return out
}
