package shellguard

import (
	"errors"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

type parserBox struct {
	p *syntax.Parser
	r strings.Reader
}

var parsers = sync.Pool{New: func() any {
	return &parserBox{p: syntax.NewParser(syntax.Variant(syntax.LangBash))}
}}

// parse parses src as a bash program with a pooled parser.
func parse(src string) (*syntax.File, error) {
	b := parsers.Get().(*parserBox)
	b.r.Reset(src)
	f, err := b.p.Parse(&b.r, "")
	b.r.Reset("")
	parsers.Put(b)
	return f, err
}

// maxRecoverTries bounds how many prefixes recover re-parses.
const maxRecoverTries = 64

// recover handles src that does not parse. Bash runs the complete commands
// before a syntax error, so those are classified normally: first the
// complete top-level statements the parser yields before the error, then
// the longest prefix of the remainder ending at a separator that parses
// (rm -rf / && ' keeps rm -rf /). What is left is scanned word by word for
// floor shapes. Nothing here can make the command safe: finish caps the
// verdict at Ask.
func (w *walker) recover(src string, x ctx) {
	// Bash runs a here-document that reaches the end of input as if it
	// were closed there (with a warning): so does the guard.
	if _, err := parse(src); err != nil {
		if d := unclosedHeredoc(err.Error()); d != "" {
			fixed := src + "\n" + d + "\n"
			if f, err := parse(fixed); err == nil {
				old := w.src
				w.src = fixed
				w.stmts(f.Stmts, x)
				w.src = old
				return
			}
		}
	}
	stmts, errOff := parsePrefix(src)

	old := w.src
	w.src = src
	end := 0
	if len(stmts) > 0 {
		if e := stmts[len(stmts)-1].End(); e.IsValid() && int(e.Offset()) <= len(src) {
			end = int(e.Offset())
			w.stmts(stmts, x)
		}
	}
	w.src = old
	rest := src[end:]
	errOff -= end

	rest = w.longestPrefix(rest, errOff, x)
	w.rawScan(rest, x)
	w.suffixes(rest, x)
}

// parsePrefix returns the complete statements before src's first parse
// error and the error's offset (len(src) when it has none).
func parsePrefix(src string) ([]*syntax.Stmt, int) {
	b := parsers.Get().(*parserBox)
	b.r.Reset(src)
	var stmts []*syntax.Stmt
	errOff := len(src)
	failed := false
	// Never break out of StmtsSeq: in mvdan.cc/sh v3.14.1 it yields the final
	// error even after the loop body returned false, which panics.
	for s, err := range b.p.StmtsSeq(&b.r) {
		if failed {
			continue
		}
		if err != nil {
			failed = true
			var pe syntax.ParseError
			if errors.As(err, &pe) && pe.Pos.IsValid() {
				errOff = int(pe.Pos.Offset())
			}
			continue
		}
		stmts = append(stmts, s)
	}
	b.r.Reset("")
	parsers.Put(b)
	return stmts, errOff
}

// longestPrefix walks the longest prefix of rest that parses, trying the
// cuts before the error first, and returns what is left.
func (w *walker) longestPrefix(rest string, errOff int, x ctx) string {
	old := w.src
	cuts := rawCuts(rest)
	order := make([]int, 0, len(cuts))
	for i := len(cuts) - 1; i >= 0; i-- {
		if cuts[i] <= errOff {
			order = append(order, cuts[i])
		}
	}
	for i := len(cuts) - 1; i >= 0; i-- {
		if cuts[i] > errOff {
			order = append(order, cuts[i])
		}
	}
	for n, cut := range order {
		if n >= maxRecoverTries {
			break
		}
		f, err := parse(rest[:cut])
		if err != nil || len(f.Stmts) == 0 {
			continue
		}
		w.src = rest[:cut]
		w.stmts(f.Stmts, x)
		w.src = old
		rest = rest[cut:]
		break
	}
	return rest
}

// suffixes walks the longest statement list that parses after a separator of
// unparsable text (done; :(){ :|:& };: and fi; cat x > /dev/sda): the raw
// scan sees only command words, the parsed suffix shows function
// definitions and redirections too. Bash itself runs none of it when the
// whole input is rejected, but a command whose first part is broken is
// never read as harmless for the rest.
func (w *walker) suffixes(rest string, x ctx) {
	for n, c := range rawCuts(rest) {
		if n >= maxRecoverTries {
			return
		}
		tail := rest[c+1:]
		if strings.TrimSpace(tail) == "" {
			return
		}
		f, err := parse(tail)
		if err != nil || len(f.Stmts) == 0 {
			continue
		}
		old := w.src
		w.src = tail
		w.stmts(f.Stmts, x)
		w.src = old
		return
	}
}

// rawCuts returns the offsets of top-level command separators (; & | and
// newlines) outside quotes, a best-effort tokenizer for unparsable input.
func rawCuts(s string) []int {
	var cuts []int
	var q byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case q == '\'':
			if c == '\'' {
				q = 0
			}
		case q == '"':
			if c == '\\' {
				i++
			} else if c == '"' {
				q = 0
			}
		case c == '\\':
			i++
		case c == '\'' || c == '"':
			q = c
		case c == ';' || c == '&' || c == '|' || c == '\n':
			if len(cuts) == 0 || cuts[len(cuts)-1] != i {
				cuts = append(cuts, i)
			}
		}
	}
	return cuts
}

// rawRun is one command of unparsable input: quote-removed words and
// whether it reads a pipe from a downloader.
type rawRun struct {
	words []string
	pipe  bool // preceded by '|'
}

// rawRuns splits s into commands at separators and brackets outside quotes,
// removing quotes and backslashes. Unterminated quotes run to the end.
func rawRuns(s string) []rawRun {
	var runs []rawRun
	var cur rawRun
	var b strings.Builder
	inWord := false
	flushWord := func() {
		if inWord {
			cur.words = append(cur.words, b.String())
			b.Reset()
			inWord = false
		}
	}
	flushRun := func(pipe bool) {
		flushWord()
		if len(cur.words) > 0 {
			runs = append(runs, cur)
		}
		cur = rawRun{pipe: pipe}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\'':
			inWord = true
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				b.WriteString(s[i+1:])
				i = len(s)
			} else {
				b.WriteString(s[i+1 : i+1+j])
				i += j + 1
			}
		case '"':
			inWord = true
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				b.WriteByte(s[i])
			}
		case '\\':
			inWord = true
			if i+1 < len(s) {
				i++
				if s[i] != '\n' {
					b.WriteByte(s[i])
				}
			}
		case ' ', '\t':
			flushWord()
		case '|':
			pipe := !(i+1 < len(s) && s[i+1] == '|')
			if !pipe {
				i++
			}
			flushRun(pipe)
		case ';', '&', '\n', '(', ')', '{', '}', '`', '<', '>':
			flushRun(false)
		case '$':
			if i+1 < len(s) && s[i+1] == '(' {
				flushRun(false)
				i++
				continue
			}
			inWord = true
			b.WriteByte(c)
		default:
			inWord = true
			b.WriteByte(c)
		}
	}
	flushRun(false)
	return runs
}

// rawScan emits a segment for each command of unparsable text, checking only
// the floor (pipe-to-shell included); every such segment asks at least.
func (w *walker) rawScan(s string, x ctx) {
	if strings.TrimSpace(s) == "" {
		return
	}
	dl := false
	for _, r := range rawRuns(s) {
		if !r.pipe {
			dl = false
		}
		words := r.words
		for len(words) > 1 && rawKeyword(words[0]) {
			words = words[1:]
		}
		ws := make([]word, len(words))
		for i, v := range words {
			ws[i] = w.rawWord(v)
		}
		xi := x
		xi.stdinDL = dl
		start := len(w.res.Segments)
		w.simple(ws, xi, segIn{raw: strings.Join(r.words, " "), unparsed: true}, "")
		if w.anyDL(start) {
			dl = true
		}
	}
}

// bashSyntax records input mvdan.cc/sh parses but bash rejects (bash -n is
// the reference, see TestBashRejectsNeverSafe): the command is treated as
// not parsing, so it is never safe or allowed.
func (w *walker) bashSyntax(why string) {
	if w.res.ParseError == nil {
		w.res.ParseError = errors.New("shellguard: parse command: bash rejects it: " + why)
	}
}

// reservedStart reports a reserved word bash does not accept where a
// command starts (else ls, in ls, } x, ]]).
func reservedStart(v string) bool {
	switch v {
	case "then", "else", "elif", "fi", "do", "done", "esac", "in", "}", "]]":
		return true
	}
	return false
}

// hasExtGlob reports an extended glob (@(…), !(…), *(…), +(…), ?(…)) in a
// word: bash without shopt -s extglob (its default when not interactive)
// rejects it outside [[ ]].
func hasExtGlob(wd *syntax.Word) bool {
	for _, p := range wd.Parts {
		if _, ok := p.(*syntax.ExtGlob); ok {
			return true
		}
	}
	return false
}

// unclosedHeredoc is the delimiter of the here-document a parse error says
// is not closed, or "".
func unclosedHeredoc(msg string) string {
	const p = "unclosed here-document `"
	i := strings.Index(msg, p)
	if i < 0 {
		return ""
	}
	d, _, ok := strings.Cut(msg[i+len(p):], "`")
	if !ok {
		return ""
	}
	return d
}

// rawKeyword: words that start a compound command or negate, skipped before
// the command of an unparsable run (if rm -rf /; then, ! rm -rf /).
func rawKeyword(v string) bool {
	switch v {
	case "!", "if", "then", "else", "elif", "while", "until", "do", "time", "coproc", "{", "exec", "command":
		return true
	}
	return false
}

// rawWord evaluates a quote-removed word of unparsable input as far as the
// floor needs: ~ and $HOME, and $NAME taken as unset (rm -rf $X/).
func (w *walker) rawWord(v string) word {
	wd := word{val: v, text: v, known: true, glob: strings.ContainsAny(v, "*?[")}
	switch {
	case v == "~" || strings.HasPrefix(v, "~/"):
		wd.val = w.c.home + v[1:]
	case strings.HasPrefix(v, "$HOME") || strings.HasPrefix(v, "${HOME}"):
		wd.val = w.c.home + strings.TrimPrefix(strings.TrimPrefix(v, "${HOME}"), "$HOME")
	case strings.HasPrefix(v, "$"):
		rest := v[1:]
		if strings.HasPrefix(rest, "{") {
			if j := strings.IndexByte(rest, '}'); j >= 0 {
				rest = rest[j+1:]
			}
		} else {
			rest = strings.TrimLeft(rest, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
		}
		wd.known, wd.altOK, wd.alt = false, true, rest
	}
	return wd
}
