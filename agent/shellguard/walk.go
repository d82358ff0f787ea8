package shellguard

import (
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// maxDepth bounds nested scripts (bash -c inside eval inside ...).
const maxDepth = 12

// maxLoopItems bounds how many values of a for loop the body is walked with.
const maxLoopItems = 8

// walker walks one Classify call's syntax trees and collects segments.
type walker struct {
	c        *Classifier
	res      Result
	src      string // source of the script being walked (nested scripts swap it)
	cwd      string // current directory, "" when unknown
	vars     map[string]string
	multi    map[string]bool // variables assigned different values
	depth    int
	dls      []int           // indexes of segments whose output is code the guard cannot see (curl, base64 -d, ...)
	dlFiles  []string        // files (and clone directories) downloaded earlier in the command
	dlVars   map[string]bool // variables assigned a download or decoder output (X=$(curl …))
	findTree string          // the protected directory the last find over one lists
	findSeg  int             // that find's segment
	exec     string          // an expansion of the current statement that can run commands (see flagExec)
	execCode []string        // known values holding substitutions that such an expansion runs
	funcs    map[string]bool // functions the command defines
	fbody    map[string]fnDef
	aliases  map[string]string   // aliases the command defines
	globVar  string              // a for variable iterating over a glob (see forClause)
	written  map[string]string   // files a static command wrote, by resolved path (see noteWritten)
	stdinDL  bool                // exec < <(curl …): the shell's own stdin is a download
	active   map[string]bool     // functions being walked (see callFunc)
	gitCfg   []string            // NAME=VALUE set by git config earlier in the command (see noteGitConfig)
	lists    map[string][]string // arrays assigned literal elements; "@" is the positional parameters (see args.go)
	strs     []string            // arena for Segment.Argv and Segment.Redirects
	words    []word              // stack of evaluated words (see evalWords)
	top      Verdict             // the highest verdict of the segments so far
	pending  lazyReason          // the reason finish writes (see walker.reason)

	// Initial backing arrays of the result: one allocation for a typical
	// command. The walker is allocated (and zeroed and collected) on every
	// Classify: keep it small (TestWalkerSize).
	segBuf [4]Segment
	strBuf [16]string
	// wordBuf is empty: the word stack is scratch that no result refers to,
	// so Classify takes it from wordStacks. A walker built by hand (tests)
	// starts from this and grows its stack on the heap.
	wordBuf [0]word
}

// wordStack is the initial backing array of a walker's word stack.
type wordStack [16]word

// wordStacks holds word stacks between Classify calls.
var wordStacks = sync.Pool{New: func() any { return new(wordStack) }}

// strArena returns a slice of n strings from the arena.
func (w *walker) strArena(n int) []string {
	if w.strs == nil && n <= len(w.strBuf) {
		w.strs = w.strBuf[:0]
	}
	if cap(w.strs)-len(w.strs) < n {
		size := 32
		if n > size {
			size = n
		}
		w.strs = make([]string, 0, size)
	}
	s := w.strs[len(w.strs) : len(w.strs)+n : len(w.strs)+n]
	w.strs = w.strs[:len(w.strs)+n]
	return s
}

// ctx is the context a statement is walked in.
type ctx struct {
	wrappers  []string // wrappers of enclosing scripts (bash -c, eval)
	layers    []string // argv texts of enclosing wrapper layers, for deny rules
	redirs    []string // output redirections of enclosing compound commands
	write     string   // a file an enclosing redirection writes, "" if none
	stdinDL   bool     // stdin comes from a downloader or decoder (a pipe, <(…), a here-string of $(curl …))
	outDL     bool     // the command's output is a download: >(…) in its words reads it
	stdinTree string   // stdin lists everything under this protected directory (find / | xargs rm)
	stdin     string   // static stdin text (echo x |, here-doc), for xargs and shells
	hasStdin  bool
	cond      bool   // inside a conditional or loop
	forks     bool   // a stage of a pipeline or a background job: runs in a new process
	danger    string // a dangerous assignment on an enclosing wrapper (BASH_ENV=x bash -c ...)
}

func (w *walker) anyDL(start int) bool {
	return len(w.dls) > 0 && w.dls[len(w.dls)-1] >= start
}

func (w *walker) stmts(stmts []*syntax.Stmt, x ctx) {
	for _, s := range stmts {
		w.stmt(s, x)
	}
}

// stmtRedirs is what a statement's redirections mean.
type stmtRedirs struct {
	texts    []string
	stdinDL  bool   // stdin is a download or decoder output (< <(curl …), <<< "$(curl …)", < /dev/tcp/…)
	net      bool   // a redirection opens a network connection (/dev/tcp, /dev/udp)
	write    string // first file written
	device   string // block device written
	stdin    string // here-doc / here-string text
	hasStdin bool
}

// redirs evaluates a statement's redirections: what they read, write
// and open.
func (w *walker) redirs(s *syntax.Stmt, x ctx) stmtRedirs {
	var r stmtRedirs
	if len(s.Redirs) > 0 {
		r.texts = w.strArena(len(s.Redirs))[:0]
	}
	for _, rd := range s.Redirs {
		dl := false
		if rd.Word != nil && w.nested(rd.Word, x) {
			dl = true
		}
		if rd.Hdoc != nil && w.nested(rd.Hdoc, x) {
			dl = true
		}
		r.texts = append(r.texts, w.redirText(rd))
		var target word
		if rd.Word != nil {
			target = w.evalOne(rd.Word, x)
			w.secretRedirect(rd, target) // secretfiles.go
		}
		if target.known && (strings.HasPrefix(target.val, "/dev/tcp/") || strings.HasPrefix(target.val, "/dev/udp/")) {
			r.net = true
		}
		if !w.redirIn(&r, rd, target, dl) {
			w.redirOut(&r, target)
		}
	}
	return r
}

// redirIn applies an input redirection (here-document, here-string, <
// file, <&) or a descriptor duplication to r; it says whether rd was one.
func (w *walker) redirIn(r *stmtRedirs, rd *syntax.Redirect, target word, dl bool) bool {
	switch rd.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		if rd.Hdoc != nil {
			if v, ok := w.staticWord(rd.Hdoc, true); ok {
				r.stdin, dl = v, false
			} else {
				r.stdin = w.slice(rd.Hdoc)
			}
		}
		r.hasStdin, r.stdinDL = !dl, dl
		return true
	case syntax.WordHdoc:
		if rd.Word != nil {
			if v, ok := w.staticWord(rd.Word, false); ok {
				r.stdin, dl = v, false
			} else {
				r.stdin = w.codeText(rd.Word)
			}
			r.hasStdin, r.stdinDL = !dl, dl
		}
		return true
	case syntax.RdrIn, syntax.DplIn:
		if target.known && rd.Op == syntax.RdrIn {
			w.pathArg(target.val, true)
			if p := w.resolve(target.val); p != "" && w.isDownloaded(p) || r.net {
				dl = true
			}
		}
		if dl {
			r.stdinDL, r.hasStdin = true, false
		}
		return true
	case syntax.DplOut:
		// >&2, >&-, 2>&1 duplicate descriptors; >&file writes file.
		if !target.known || isFD(target.val) {
			return true
		}
	}
	return false
}

// redirOut applies an output (or read-write) redirection to r: the first
// file it writes, or the device.
func (w *walker) redirOut(r *stmtRedirs, target word) {
	if !target.known {
		if r.write == "" {
			r.write = target.text
		}
		return
	}
	p := w.resolve(target.val)
	if p != "" && isDevice(p) {
		r.device = target.val
		return
	}
	if p != "" && harmlessDev(p) {
		return
	}
	w.pathArg(target.val, true)
	if r.write == "" {
		r.write = target.val
	}
}

func (w *walker) redirText(rd *syntax.Redirect) string {
	s := rd.OpPos
	if rd.N != nil {
		s = rd.N.Pos()
	}
	e := rd.End()
	if rd.Hdoc != nil && rd.Word != nil {
		e = rd.Word.End()
	}
	if !s.IsValid() || !e.IsValid() || int(e.Offset()) > len(w.src) || s.Offset() > e.Offset() {
		return rd.Op.String()
	}
	return w.src[s.Offset():e.Offset()]
}

func isFD(s string) bool {
	if s == "-" || s == "" {
		return true
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func (w *walker) stmt(s *syntax.Stmt, x ctx) {
	if s == nil {
		return
	}
	saved := w.exec
	w.exec = ""
	if s.Background {
		x.forks = true
	}
	w.stmt1(s, x)
	if w.exec != "" {
		// An expansion in a compound command's own words (for items, case
		// subject, arithmetic for) that runs commands.
		w.emit(nil, x, segIn{raw: w.slice(s), ask: w.takeExec(w.slice(s))}, peeled{})
	}
	if len(w.execCode) > 0 {
		codes := w.execCode
		w.execCode = nil
		for _, c := range codes {
			w.code(c, x, false)
		}
	}
	w.exec = saved
}

func (w *walker) stmt1(s *syntax.Stmt, x ctx) {
	if ce, ok := s.Cmd.(*syntax.CallExpr); ok && (x.stdinDL || downloaderArgs(ce.Args)) {
		x.outDL = true // what it writes to >(…) is a download
	}
	r := w.redirs(s, x)
	if s.Cmd == nil {
		if len(r.texts) > 0 || r.device != "" {
			in := segIn{raw: w.slice(s), redirs: r.texts, write: r.write, device: r.device}
			w.emit(nil, x, in, peeled{})
		}
		return
	}
	if _, ok := s.Cmd.(*syntax.CallExpr); !ok && (len(r.texts) > 0) {
		x = w.compoundRedirs(s, x, r)
	}
	switch c := s.Cmd.(type) {
	case *syntax.CallExpr:
		w.call(s, c, x, r)
	case *syntax.BinaryCmd:
		if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
			w.pipeline(c, x)
			return
		}
		w.stmt(c.X, x)
		y := x
		y.cond = true
		w.stmt(c.Y, y)
	case *syntax.Subshell:
		cwd := w.cwd
		w.stmts(c.Stmts, x)
		w.cwd = cwd
	case *syntax.Block:
		w.stmts(c.Stmts, x)
	case *syntax.IfClause:
		y := x
		y.cond = true
		for ic := c; ic != nil; ic = ic.Else {
			w.stmts(ic.Cond, y)
			w.stmts(ic.Then, y)
		}
	case *syntax.WhileClause:
		if endless(c) && backgrounds(c.Do) {
			w.emitForkLoop(c, x)
		}
		y := x
		y.cond = true
		w.stmts(c.Cond, y)
		w.stmts(c.Do, y)
	case *syntax.ForClause:
		w.forClause(c, x)
	case *syntax.CaseClause:
		w.caseClause(c, x)
	case *syntax.FuncDecl:
		w.funcDecl(s, c, x)
	case *syntax.ArithmCmd, *syntax.TestClause, *syntax.LetClause:
		w.exprCmd(s, c, x, r)
	case *syntax.DeclClause:
		w.declClause(s, c, x, r)
	case *syntax.TimeClause:
		if c.Stmt == nil && s.Background {
			w.bashSyntax("time with no command, in the background")
		}
		y := x
		y.wrappers = append(append([]string(nil), x.wrappers...), "time")
		w.stmt(c.Stmt, y)
	case *syntax.CoprocClause:
		if c.Name != nil && hasExtGlob(c.Name) {
			w.bashSyntax("an extended glob as a coprocess name")
		}
		y := x
		y.wrappers = append(append([]string(nil), x.wrappers...), "coproc")
		w.stmt(c.Stmt, y)
	case *syntax.TestDecl:
		w.stmt(c.Body, x)
	default:
		w.emit([]word{{val: w.slice(c), text: w.slice(c)}}, x, segIn{raw: w.slice(s), unknown: true}, peeled{})
	}
}

// compoundRedirs applies the redirections of a compound command to the
// context of everything inside it.
func (w *walker) compoundRedirs(s *syntax.Stmt, x ctx, r stmtRedirs) ctx {
	// Redirections of a compound command apply to everything inside.
	x.redirs = append(append([]string(nil), x.redirs...), r.texts...)
	if r.write != "" && x.write == "" {
		x.write = r.write
	}
	if r.device != "" {
		w.emit(nil, x, segIn{raw: w.slice(s), redirs: r.texts, device: r.device}, peeled{})
	}
	if r.hasStdin || r.stdinDL {
		x.stdin, x.hasStdin, x.stdinDL = r.stdin, r.hasStdin, r.stdinDL
	}
	return x
}

// caseClause walks a case statement: its word, the expansions in its
// patterns, and its bodies as conditional.
func (w *walker) caseClause(c *syntax.CaseClause, x ctx) {
	w.evalOne(c.Word, x)
	y := x
	y.cond = true
	for _, it := range c.Items {
		for _, p := range it.Patterns {
			w.nested(p, x)
			w.peekWord(p) // expansions in a pattern run like any other (${x@P})
			if hasExtGlob(p) {
				w.bashSyntax("an extended glob in a case pattern without shopt -s extglob")
			}
		}
		w.stmts(it.Stmts, y)
	}
}

// exprCmd walks (( )), [[ ]] and let: their substitutions and risky
// arithmetic, then emits them as one expression segment.
func (w *walker) exprCmd(s *syntax.Stmt, c syntax.Command, x ctx, r stmtRedirs) {
	w.walkNodeSubsts(c, x)
	switch c := c.(type) {
	case *syntax.ArithmCmd:
		w.arithRisk(c.X)
	case *syntax.LetClause:
		for _, e := range c.Exprs {
			w.arithRisk(e)
		}
	case *syntax.TestClause:
		w.testRisk(c.X)
	}
	w.emit([]word{{val: w.slice(c), text: w.slice(c), lit: true, known: true}}, x,
		segIn{raw: w.slice(s), redirs: r.texts, write: r.write, expr: true, ask: w.takeExec(w.slice(s))}, peeled{})
}

// walkNodeSubsts walks every substitution under n.
func (w *walker) walkNodeSubsts(n syntax.Node, x ctx) {
	syntax.Walk(n, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			w.sub(n.Stmts, x)
			return false
		case *syntax.ProcSubst:
			w.sub(n.Stmts, x)
			return false
		}
		return true
	})
}

func (w *walker) forClause(c *syntax.ForClause, x ctx) {
	y := x
	y.cond = true
	wi, ok := c.Loop.(*syntax.WordIter)
	if !ok {
		w.walkNodeSubsts(c.Loop, x)
		if cl, ok := c.Loop.(*syntax.CStyleLoop); ok {
			w.arithRisk(cl.Init, cl.Cond, cl.Post)
			if cl.Cond == nil && backgrounds(c.Do) {
				w.emitForkLoop(c, x)
			}
		}
		w.stmts(c.Do, y)
		return
	}
	items, mark := w.evalWords(wi.Items, x)
	items = append([]word(nil), items...)
	w.popWords(mark)
	name := wi.Name.Value
	if len(items) == 0 || len(items) > maxLoopItems {
		w.unsetVar(name)
		w.stmts(c.Do, y)
		return
	}
	// Walk the body once per literal value so $name is seen with each.
	oldGlob := w.globVar
	for _, it := range items {
		if it.known {
			w.setVar(name, it.val)
		} else {
			w.unsetVar(name)
		}
		// for d in /*: each value is one match of the glob; the body is
		// walked once with the pattern standing for them.
		if it.glob {
			w.globVar = name
		} else if w.globVar == name {
			w.globVar = ""
		}
		w.stmts(c.Do, y)
	}
	w.globVar = oldGlob
	w.unsetVar(name)
}

func (w *walker) setVar(name, val string) {
	if w.multi[name] {
		return
	}
	if w.vars == nil {
		w.vars = map[string]string{}
	}
	w.vars[name] = val
}

func (w *walker) assignVar(name, val string, known, cond bool) {
	old, had := w.vars[name]
	if !known || (had && old != val && cond) || w.multi[name] {
		w.unsetVar(name)
		if had || cond {
			if w.multi == nil {
				w.multi = map[string]bool{}
			}
			w.multi[name] = true
		}
		return
	}
	w.setVar(name, val)
}

// noteDLVar remembers a variable assigned a download or decoder output.
func (w *walker) noteDLVar(name string, v word) {
	if v.dl && !v.known {
		if w.dlVars == nil {
			w.dlVars = map[string]bool{}
		}
		w.dlVars[name] = true
	}
}

func (w *walker) unsetVar(name string) {
	delete(w.vars, name)
}

// pipeline walks a | b | c: stages are subshells; a stage after a
// downloader has stdinDL, a stage after a static echo gets its text.
func (w *walker) pipeline(b *syntax.BinaryCmd, x ctx) {
	var buf [8]*syntax.Stmt
	stages := flattenPipe(buf[:0], b)
	dl := x.stdinDL
	stdin, has := x.stdin, x.hasStdin
	tree := x.stdinTree
	cwd := w.cwd
	for i, st := range stages {
		if tc, ok := st.Cmd.(*syntax.TimeClause); ok && tc.Stmt == nil && i < len(stages)-1 {
			w.bashSyntax("time with no command before a pipe")
		}
		xi := x
		xi.forks = true
		xi.stdinDL = dl
		xi.stdin, xi.hasStdin = stdin, has
		xi.stdinTree = tree
		if i > 0 {
			xi.cond = true
		}
		start := len(w.res.Segments)
		w.stmt(st, xi)
		w.cwd = cwd
		tree = ""
		if w.findTree != "" && w.findSeg >= start {
			tree = w.findTree
		}
		if out, ok := w.stageOut(st, stdin, has); ok {
			// Output the guard evaluated (echo, printf, a decoder of
			// literal text) is what the next stage reads.
			stdin, has, dl = out, true, false
			continue
		}
		stdin, has = "", false
		if w.anyDL(start) {
			dl = true
		}
	}
}

// flattenPipe appends the stages of a pipeline (a | b | c) in order.
func flattenPipe(out []*syntax.Stmt, b *syntax.BinaryCmd) []*syntax.Stmt {
	for _, s := range [2]*syntax.Stmt{b.X, b.Y} {
		if bc, ok := s.Cmd.(*syntax.BinaryCmd); ok && (bc.Op == syntax.Pipe || bc.Op == syntax.PipeAll) && len(s.Redirs) == 0 && !s.Negated && !s.Background {
			out = flattenPipe(out, bc)
			continue
		}
		out = append(out, s)
	}
	return out
}

// funcDecl checks for fork bombs and walks the body (it runs when called).
func (w *walker) funcDecl(s *syntax.Stmt, fd *syntax.FuncDecl, x ctx) {
	if fd.Body != nil {
		switch fd.Body.Cmd.(type) {
		case *syntax.Block, *syntax.Subshell, *syntax.IfClause, *syntax.WhileClause, *syntax.ForClause, *syntax.CaseClause,
			*syntax.ArithmCmd, *syntax.TestClause:
		default:
			w.bashSyntax("a function body that is not a compound command")
		}
	}
	name := ""
	if fd.Name != nil {
		name = fd.Name.Value
	}
	if name != "" && forkBomb(name, fd.Body) {
		w.emit([]word{{val: name + "()", text: name + "()", lit: true, known: true}}, x,
			segIn{raw: w.slice(s), shape: ShapeForkBomb,
				reason: "floor: function " + quote(name) + " calls itself in a pipe or in the background (a fork bomb)"}, peeled{})
		return
	}
	if name != "" {
		if w.funcs == nil {
			w.funcs = map[string]bool{}
		}
		w.funcs[name] = true
		if w.fbody == nil {
			w.fbody = map[string]fnDef{}
		}
		w.fbody[name] = fnDef{body: fd.Body, src: w.src}
	}
	y := x
	y.cond = true
	y.wrappers = append(append([]string(nil), x.wrappers...), "function "+name)
	cwd := w.cwd
	w.stmt(fd.Body, y)
	w.cwd = cwd
}

// forkBomb reports whether body calls name in a pipeline or in the
// background: unbounded self-replication.
func forkBomb(name string, body *syntax.Stmt) bool {
	found := false
	var visit func(s *syntax.Stmt, piped bool)
	isSelf := func(s *syntax.Stmt) bool {
		ce, ok := s.Cmd.(*syntax.CallExpr)
		if !ok || len(ce.Args) == 0 {
			return false
		}
		v, ok := litValue(ce.Args[0])
		return ok && v == name
	}
	visit = func(s *syntax.Stmt, piped bool) {
		if s == nil || found {
			return
		}
		if isSelf(s) && (piped || s.Background) {
			found = true
			return
		}
		switch c := s.Cmd.(type) {
		case *syntax.BinaryCmd:
			p := piped || c.Op == syntax.Pipe || c.Op == syntax.PipeAll
			bg := s.Background
			visit(c.X, p || bg)
			visit(c.Y, p || bg)
		case *syntax.Block:
			for _, t := range c.Stmts {
				visit(t, piped || s.Background)
			}
		case *syntax.Subshell:
			for _, t := range c.Stmts {
				visit(t, piped || s.Background)
			}
		case *syntax.IfClause:
			for ic := c; ic != nil; ic = ic.Else {
				for _, t := range ic.Then {
					visit(t, piped)
				}
			}
		case *syntax.WhileClause:
			for _, t := range c.Do {
				visit(t, true) // a self-call in a loop multiplies too
			}
		case *syntax.ForClause:
			for _, t := range c.Do {
				visit(t, true)
			}
		}
	}
	visit(body, false)
	return found
}

// declClause: declare/export/local/readonly/typeset.
func (w *walker) declClause(s *syntax.Stmt, d *syntax.DeclClause, x ctx, r stmtRedirs) {
	ws := []word{{val: d.Variant.Value, text: d.Variant.Value, lit: true, known: true}}
	danger := ""
	for _, a := range d.Args {
		if a.Value != nil {
			w.nested(a.Value, x)
		}
		if a.Array != nil {
			w.walkNodeSubsts(a.Array, x)
		}
		if a.Name == nil {
			if a.Value != nil {
				ws = w.evalWord(ws, a.Value, x, false)
			}
			continue
		}
		txt := w.slice(a)
		ws = append(ws, word{val: txt, text: txt, lit: true, known: true})
		if dangerousEnv(a.Name.Value) && danger == "" {
			danger = a.Name.Value
		}
		if a.Value != nil && a.Array == nil && !a.Naked {
			v := w.evalOne(a.Value, x)
			w.assignVar(a.Name.Value, v.val, v.known, x.cond)
			w.noteDLVar(a.Name.Value, v)
		}
	}
	w.declRisk(d)
	w.envRuns(w.knownAssigns(d.Args), x)
	w.emit(ws, x, segIn{raw: w.slice(s), redirs: r.texts, write: r.write, device: r.device, decl: true, ask: w.takeExec(w.slice(s))}, peeled{danger: danger})
}

// maxQuoted bounds the command text quoted in a reason.
const maxQuoted = 160

// quote quotes s for a reason: double quotes, with \ " and control
// characters escaped, cut at maxQuoted bytes.
func quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	quoteBody(&b, s, maxQuoted)
	b.WriteByte('"')
	return b.String()
}

func quoteBody(b *strings.Builder, s string, limit int) int {
	for i := 0; i < len(s); i++ {
		if limit <= 0 {
			b.WriteString("...")
			return 0
		}
		limit--
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c < 0x20 || c == 0x7f:
			b.WriteString(`\x`)
			b.WriteByte("0123456789abcdef"[c>>4])
			b.WriteByte("0123456789abcdef"[c&15])
		default:
			b.WriteByte(c)
		}
	}
	return limit
}

// writeQuoted writes the words joined by spaces, quoted like quote.
func writeQuoted(b *strings.Builder, argv []string) {
	b.WriteByte('"')
	limit := maxQuoted
	for i, a := range argv {
		if limit <= 0 {
			break
		}
		if i > 0 {
			b.WriteByte(' ')
			limit--
		}
		limit = quoteBody(b, a, limit)
	}
	b.WriteByte('"')
}

// endless reports a while/until loop whose condition never ends it
// (while true, while :, while [ 1 ], while ((1)), until false).
func endless(c *syntax.WhileClause) bool {
	if len(c.Cond) != 1 {
		return false
	}
	s := c.Cond[0]
	if s.Background || len(s.Redirs) > 0 {
		return false
	}
	want := !c.Until != s.Negated
	switch cmd := s.Cmd.(type) {
	case *syntax.CallExpr:
		if len(cmd.Args) == 0 {
			return false
		}
		n, ok := litValue(cmd.Args[0])
		if !ok {
			return false
		}
		switch base(n) {
		case "true", ":":
			return want && len(cmd.Args) >= 1
		case "false":
			return !want
		case "[", "test":
			if len(cmd.Args) >= 2 {
				v, ok := litValue(cmd.Args[1])
				return want && ok && v != "" && v != "]" && (len(cmd.Args) == 2 || len(cmd.Args) == 3 && n == "[")
			}
		}
	case *syntax.ArithmCmd:
		if wd, ok := cmd.X.(*syntax.Word); ok {
			l := wd.Lit()
			return l != "" && strings.Trim(l, "0123456789") == "" && strings.Trim(l, "0") != "" == want
		}
	}
	return false
}

// backgrounds reports whether stmts start a background job or a coprocess
// anywhere (outside function definitions) and never wait for them.
func backgrounds(stmts []*syntax.Stmt) bool {
	found, waits := false, false
	for _, s := range stmts {
		syntax.Walk(s, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.Stmt:
				if n.Background {
					found = true
				}
			case *syntax.CoprocClause:
				found = true
			case *syntax.CallExpr:
				if len(n.Args) > 0 && n.Args[0].Lit() == "wait" {
					waits = true
				}
			case *syntax.FuncDecl:
				return false
			}
			return true
		})
	}
	return found && !waits
}

// emitForkLoop emits the floor segment of an endless loop that starts a
// background process on every pass.
func (w *walker) emitForkLoop(c syntax.Node, x ctx) {
	raw := w.slice(c)
	w.emit([]word{{val: raw, text: raw, lit: true, known: true}}, x,
		segIn{raw: raw, shape: ShapeForkBomb, reason: "floor: " + quote(raw) + " starts a background process on every pass of an endless loop (a fork bomb)"}, peeled{})
}
