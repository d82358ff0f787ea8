package schema

import (
	"regexp/syntax"
	"sync"
	"unicode/utf8"
)

// lazyRegexp is a pattern of the schemas (pattern, patternProperties), compiled on first use: a validation
// meets few of the patterns. A pattern that does not compile matches nothing (so the value or key is
// reported, failing closed); checkPatterns, which the tests run, refuses such a schema.
//
// Patterns are parsed and compiled by regexp/syntax exactly as regexp.Compile does, and the program is
// run by a small Pike VM that only answers whether there is a match, as regexp.MatchString does
// (TestPatternMatchesRegexp, FuzzPatternMatch). The regexp package would also build a one-pass program
// and literal prefixes, which made compiling the six patterns an `inspect` meets cost two to three times
// as much on a cold start, to run faster matches a validation has no use for.
type lazyRegexp struct {
	src  string
	once sync.Once
	prog *syntax.Prog
	cond syntax.EmptyOp // the empty-width conditions every match starts with
	err  error
}

func (l *lazyRegexp) compile() error {
	l.once.Do(func() {
		re, err := syntax.Parse(l.src, syntax.Perl)
		if err != nil {
			l.err = err
			return
		}
		if l.prog, l.err = syntax.Compile(re.Simplify()); l.err == nil {
			l.cond = l.prog.StartCond()
		}
	})
	return l.err
}

// MatchString reports whether s contains a match of the pattern (patterns are not anchored).
func (l *lazyRegexp) MatchString(s string) bool { return l.compile() == nil && l.match(s) }

func (l *lazyRegexp) String() string { return l.src }

// endOfText stands for the rune before the text and after it.
const endOfText rune = -1

// step returns the rune at pos and its width (an invalid UTF-8 byte is U+FFFD, one byte wide), or
// endOfText and 0 at the end.
func step(s string, pos int) (rune, int) {
	if pos >= len(s) {
		return endOfText, 0
	}
	if c := s[pos]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[pos:])
}

// threads is a set of program counters in the order they were added (a sparse set).
type threads struct {
	sparse []uint32
	dense  []uint32
}

func (q *threads) has(pc uint32) bool {
	j := q.sparse[pc]
	return j < uint32(len(q.dense)) && q.dense[j] == pc
}

// add adds pc and what it leads to without consuming a rune, under the empty-width conditions cond.
func (q *threads) add(p *syntax.Prog, pc uint32, cond syntax.EmptyOp) {
	for pc != 0 && !q.has(pc) { // instruction 0 is always InstFail
		j := len(q.dense)
		q.sparse[pc] = uint32(j)
		q.dense = q.dense[:j+1] // within capacity: a pc is added once
		q.dense[j] = pc
		switch i := &p.Inst[pc]; i.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			q.add(p, i.Out, cond)
			pc = i.Arg
		case syntax.InstEmptyWidth:
			if syntax.EmptyOp(i.Arg)&^cond != 0 {
				return
			}
			pc = i.Out
		case syntax.InstNop, syntax.InstCapture:
			pc = i.Out
		default: // InstFail, InstMatch and the rune instructions wait for the next step
			return
		}
	}
}

// match runs the program over s, as regexp's NFA does for MatchString: a new thread starts at every
// position (only at the start when the program is anchored there), and any thread that reaches
// InstMatch is a match.
func (l *lazyRegexp) match(s string) bool {
	p := l.prog
	if l.cond == ^syntax.EmptyOp(0) {
		return false // the program can never match
	}
	n := len(p.Inst)
	var small [4][96]uint32 // enough for the schemas' patterns (the longest has 95 instructions)
	var run, next threads
	if n <= len(small[0]) {
		run = threads{sparse: small[0][:n], dense: small[1][:0:n]}
		next = threads{sparse: small[2][:n], dense: small[3][:0:n]}
	} else {
		run = threads{sparse: make([]uint32, n), dense: make([]uint32, 0, n)}
		next = threads{sparse: make([]uint32, n), dense: make([]uint32, 0, n)}
	}
	anchored := l.cond&syntax.EmptyBeginText != 0
	pos := 0
	r, width := step(s, 0)
	r1, width1 := endOfText, 0
	if r != endOfText {
		r1, width1 = step(s, width)
	}
	cond := syntax.EmptyOpContext(endOfText, r)
	for {
		if len(run.dense) == 0 && anchored && pos != 0 {
			return false // anchored at the start, and every thread has died
		}
		if pos == 0 || !anchored {
			run.add(p, uint32(p.Start), cond)
		}
		cond = syntax.EmptyOpContext(r, r1) // the conditions at the next position
		for _, pc := range run.dense {
			i := &p.Inst[pc]
			var ok bool
			switch i.Op {
			case syntax.InstMatch:
				return true
			case syntax.InstRune:
				ok = i.MatchRune(r)
			case syntax.InstRune1:
				ok = r == i.Rune[0]
			case syntax.InstRuneAny:
				ok = true
			case syntax.InstRuneAnyNotNL:
				ok = r != '\n'
			}
			if ok {
				next.add(p, i.Out, cond)
			}
		}
		if width == 0 {
			return false
		}
		pos += width
		r, width = r1, width1
		if r != endOfText {
			r1, width1 = step(s, pos+width)
		}
		run, next = next, run
		next.dense = next.dense[:0]
	}
}
