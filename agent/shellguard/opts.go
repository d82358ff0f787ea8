package shellguard

import (
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// One option parser serves every safe-listed program. A program's options
// are a declarative table (opttables.go): each option's short letters and
// long names, whether it takes a value, and whether it only reads, writes or
// runs something. The parser reads the arguments the way the program does
// (GNU getopt_long, git's parse-options, Go's flag package, ...), so an
// abbreviation, a bundle or an option after the operands cannot hide what an
// option does. A command stays on the safe list only when every option it
// carries is known and read-only.

// optArg says whether an option takes a value.
type optArg uint8

const (
	argNone optArg = iota
	argReq         // a value: stuck (--o=v, -ov) or the next word (--o v, -o v)
	argOpt         // an optional value, only stuck (--o=v, -ov)
	argReq2        // two values in the next words (jq --arg NAME VALUE)
)

// optEffect is what an option does.
type optEffect uint8

const (
	effRead  optEffect = iota
	effWrite           // writes files or changes state
	effExec            // runs a program
)

// Marks an option can set for the program's own check (optRes.marks).
const (
	markList    uint32 = 1 << iota // git branch/tag: list mode (a name is a pattern)
	markRead                       // git config: a read action
	markValue                      // the option's value is a path or state the check looks at
	markSet                        // date -s, hostname -F: sets state
	markNoIndex                    // git grep --no-index / diff --no-index
)

// optDef is one option of a table. It holds no pointers (nor does any
// slice of a table but its name), so the collector never scans the tables:
// they stay live for the process and every GC cycle would otherwise walk
// their thousands of strings and map slots (twice the rest of the heap).
type optDef struct {
	mark uint32
	why  uint16 // index into reasons: for effWrite/effExec, what it does
	arg  optArg
	eff  optEffect
}

// reason is what a writing or running option does ("writes a file").
func (d *optDef) reason() string { return (*reasons.Load())[d.why] }

// reasons interns the tables' reasons (optDef.why). Tables are built on
// first use, possibly by two goroutines at once, so the list is appended
// under reasonsMu and published whole: a reader's list holds every id a
// table it has seen built was given.
var (
	reasons   atomic.Pointer[[]string]
	reasonsMu sync.Mutex
	reasonIDs = map[string]uint16{}
)

func init() { reasons.Store(&[]string{""}) }

func reasonID(s string) uint16 {
	if s == "" {
		return 0
	}
	reasonsMu.Lock()
	defer reasonsMu.Unlock()
	if id, ok := reasonIDs[s]; ok {
		return id
	}
	list := *reasons.Load()
	if len(list) > 0xffff {
		panic("shellguard: too many option reasons")
	}
	id := uint16(len(list))
	list = append(list, s)
	reasons.Store(&list)
	reasonIDs[s] = id
	return id
}

// nameRef is one long option name of a table: blob[off:off+n], naming
// defs[def].
type nameRef struct {
	off uint32
	n   uint16
	def uint16
}

// optStyle is how a program parses its arguments.
type optStyle struct {
	abbrev  bool // unique prefixes of long options are accepted (getopt_long, parse-options)
	permute bool // options may follow operands (GNU getopt, parse-options)
	// single: long options take one dash (find -name, go -json); no bundles.
	single bool
	// numeric: -NUM is an option (head -5, git log -3, grep -2).
	numeric bool
	// gitNeg: --no-NAME negates NAME and --NAME negates no-NAME (parse-options).
	gitNeg bool
	// endOpts: --end-of-options also ends options (git).
	endOpts bool
	// plusOperand: a word starting with '+' is an operand (date +FMT).
	dashOperand bool // "-" alone is an operand (stdin)
	// noBundle: short options cannot be bundled (-ab is not -a -b).
	noBundle bool
}

// optTable is one program's (or git subcommand's) options.
type optTable struct {
	name string
	defs []optDef
	// blob holds the long names in sorted order; names indexes it, sorted,
	// for exact and prefix search.
	blob  string
	names []nameRef
	// next holds options the program hands on to another parser that
	// matches exactly (git blame's revision options); tried when this
	// table does not know a name.
	next  *optTable
	short [128]int16 // letter -> defs index+1
	style optStyle
	// danger: some option writes or runs: every argument must be literal and
	// a glob must not be able to expand to an option.
	danger bool
	// spec and whys are what build reads on the table's first use (ready):
	// a process builds only the tables of the commands it sees.
	spec  string
	whys  map[string]string
	built sync.Once
}

// optRes is what parsing found.
type optRes struct {
	why      string // "" when every option is known and read-only
	operands int
	first    [4]int // indexes of the first operands
	marks    uint32
	end      int // index where parsing stopped (stop-at-first programs: the first operand)
}

// stop ends parsing at the first operand: the rest are operands.
func (r *optRes) stop(i, n int) optRes {
	r.end = i
	for ; i < n; i++ {
		r.operand(i)
	}
	return *r
}

func (r *optRes) operand(i int) {
	if r.operands < len(r.first) {
		r.first[r.operands] = i
	}
	r.operands++
}

// newTable builds a table from a compact spec: space-separated entries
// "names[=|?][!w|!x|!s][@mark]"; names are comma-separated, one letter is a
// short option, longer is a long one; '=' takes a value, '?' an optional
// stuck value; !w writes, !x runs a program, !s changes system state; the
// reason of a !-entry comes from whys (by its first name) or a default.
func newTable(name string, style optStyle, spec string, whys map[string]string) *optTable {
	// Every effect is written "!w", "!x" or "!s", and no name holds a '!'.
	return &optTable{name: name, style: style, spec: spec, whys: whys, danger: strings.IndexByte(spec, '!') >= 0}
}

// renamed is a table of the same options under another name (git show is
// git log's).
func (t *optTable) renamed(name string) *optTable {
	return &optTable{name: name, style: t.style, spec: t.spec, whys: t.whys, next: t.next, danger: t.danger}
}

// ready builds the table (and the one it hands on to) on first use.
func (t *optTable) ready() {
	t.built.Do(t.build)
	if t.next != nil {
		t.next.built.Do(t.next.build)
	}
}

// build parses the spec into defs, the short index and the sorted long
// names; a malformed spec panics (TestTablesBuild builds every table).
func (t *optTable) build() {
	ents := strings.Fields(t.spec)
	t.defs = make([]optDef, 0, len(ents))
	var longs []longName
	for _, ent := range ents {
		d, why, names := parseOptEntry(t.name, ent)
		if w, ok := t.whys[names[0]]; ok {
			why = w
		}
		d.why = reasonID(why)
		i := len(t.defs)
		for _, n := range names {
			if len(n) == 1 && !t.style.single {
				c := n[0]
				if c >= 128 || t.short[c] != 0 {
					panic("shellguard: table " + t.name + ": duplicate short option -" + n)
				}
				t.short[c] = int16(i + 1)
			} else if n != "" {
				longs = append(longs, longName{n, i})
			}
		}
		t.defs = append(t.defs, d)
	}
	if len(t.defs) > 0x7fff {
		panic("shellguard: table " + t.name + ": too many options")
	}
	t.indexLongs(longs)
}

// longName is a long option's name and the index of its definition.
type longName struct {
	n   string
	def int
}

// parseOptEntry reads one entry of a table spec: "n,name=!w@L" is the
// names, the argument (= required, =2 two, ? optional), the effect (!w
// writes, !x runs, !s changes state) with its default reason, and the
// marks (@L list, @R read, @S set, @N no-index).
func parseOptEntry(table, ent string) (d optDef, why string, names []string) {
	if i := strings.IndexByte(ent, '@'); i >= 0 {
		for _, m := range ent[i+1:] {
			switch m {
			case 'L':
				d.mark |= markList
			case 'R':
				d.mark |= markRead
			case 'S':
				d.mark |= markSet
			case 'N':
				d.mark |= markNoIndex
			default:
				panic("shellguard: table " + table + ": bad mark in " + ent)
			}
		}
		ent = ent[:i]
	}
	if i := strings.IndexByte(ent, '!'); i >= 0 {
		switch ent[i+1:] {
		case "w":
			d.eff, why = effWrite, "writes a file"
		case "x":
			d.eff, why = effExec, "runs a program"
		case "s":
			d.eff, why = effWrite, "changes state"
		default:
			panic("shellguard: table " + table + ": bad effect in " + ent)
		}
		ent = ent[:i]
	}
	switch {
	case strings.HasSuffix(ent, "=2"):
		d.arg, ent = argReq2, ent[:len(ent)-2]
	case strings.HasSuffix(ent, "="):
		d.arg, ent = argReq, ent[:len(ent)-1]
	case strings.HasSuffix(ent, "?"):
		d.arg, ent = argOpt, ent[:len(ent)-1]
	}
	return d, why, strings.Split(ent, ",")
}

// indexLongs stores the long option names sorted in one string, for the
// binary search of parse.
func (t *optTable) indexLongs(longs []longName) {
	sort.Slice(longs, func(i, j int) bool { return longs[i].n < longs[j].n })
	var blob strings.Builder
	t.names = make([]nameRef, len(longs))
	for k, l := range longs {
		if k > 0 && longs[k-1].n == l.n {
			panic("shellguard: table " + t.name + ": duplicate long option " + l.n)
		}
		t.names[k] = nameRef{off: uint32(blob.Len()), n: uint16(len(l.n)), def: uint16(l.def)}
		blob.WriteString(l.n)
	}
	t.blob = blob.String()
}

// nameAt is the k-th long name in sorted order.
func (t *optTable) nameAt(k int) string {
	r := t.names[k]
	return t.blob[r.off : r.off+uint32(r.n)]
}

// search is the index of the first long name >= n.
func (t *optTable) search(n string) int {
	lo, hi := 0, len(t.names)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if t.nameAt(m) < n {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// exact finds a long option by its exact name.
func (t *optTable) exact(n string) (int, bool) {
	t.ready()
	if k := t.search(n); k < len(t.names) && t.nameAt(k) == n {
		return int(t.names[k].def), true
	}
	return 0, false
}

// lookupLong finds a long option by exact name or, with abbreviations, by a
// unique prefix (prefixes of several names of one option are not ambiguous).
func (t *optTable) lookupLong(n string) (int, bool) {
	t.ready()
	k := t.search(n)
	if k < len(t.names) && t.nameAt(k) == n {
		return int(t.names[k].def), true
	}
	if !t.style.abbrev || n == "" {
		return 0, false
	}
	found := -1
	for ; k < len(t.names) && strings.HasPrefix(t.nameAt(k), n); k++ {
		i := int(t.names[k].def)
		if found >= 0 && found != i {
			return 0, false // ambiguous: the program refuses it
		}
		found = i
	}
	return found, found >= 0
}

// gitLong resolves a parse-options long option with its negations:
// --no-NAME negates NAME and --NAME negates an option named no-NAME. An
// abbreviation is taken only when every way of reading it (as a name or as
// a negation) names the same option; otherwise git calls it ambiguous.
func (t *optTable) gitLong(n string) (int, bool, bool) {
	if i, ok := t.exact(n); ok {
		return i, false, true
	}
	rest, isNo := strings.CutPrefix(n, "no-")
	if isNo {
		if i, ok := t.exact(rest); ok {
			return i, true, true
		}
	}
	if i, ok := t.exactNo(n); ok {
		return i, true, true
	}
	if n == "" || strings.HasPrefix("no-", n) {
		return 0, false, false // "--n", "--no": a prefix of every negation
	}
	found, neg := -1, false
	try := func(pre string, negated bool) bool {
		for k := t.search(pre); k < len(t.names) && strings.HasPrefix(t.nameAt(k), pre); k++ {
			i := int(t.names[k].def)
			if found >= 0 && found != i {
				return false
			}
			found, neg = i, negated
		}
		return true
	}
	if !try(n, false) || (isNo && !try(rest, true)) {
		return 0, false, false
	}
	return found, neg, found >= 0
}

// exactNo finds the option named "no-"+n without building that string.
func (t *optTable) exactNo(n string) (int, bool) {
	lo, hi := 0, len(t.names)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if lessNo(t.nameAt(m), n) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(t.names) {
		if x := t.nameAt(lo); len(x) == len(n)+3 && x[:3] == "no-" && x[3:] == n {
			return int(t.names[lo].def), true
		}
	}
	return 0, false
}

// lessNo reports x < "no-"+n.
func lessNo(x, n string) bool {
	const p = "no-"
	if len(x) < len(p) {
		return x < p[:len(x)] || x == p[:len(x)]
	}
	if x[:3] != p {
		return x[:3] < p
	}
	return x[3:] < n
}

// findLong finds a long option here or in t.next (exact names only).
func (t *optTable) findLong(n string) (d *optDef, neg, ok bool) {
	t.ready()
	var i int
	if t.style.gitNeg {
		i, neg, ok = t.gitLong(n)
	} else {
		i, ok = t.lookupLong(n)
	}
	if ok {
		return &t.defs[i], neg, true
	}
	if t.next != nil {
		if i, ok := t.next.exact(n); ok {
			return &t.next.defs[i], false, true
		}
	}
	return nil, false, false
}

func (t *optTable) findShort(c byte) *optDef {
	t.ready()
	if c >= 128 {
		return nil
	}
	if i := t.short[c]; i != 0 {
		return &t.defs[i-1]
	}
	if t.next != nil {
		if i := t.next.short[c]; i != 0 {
			return &t.next.defs[i-1]
		}
	}
	return nil
}

// optNotSafe is the reason an option makes the command leave the safe list.
func (t *optTable) optNotSafe(d *optDef, spelled string) string {
	if len(spelled) > 2 && spelled[1] == '-' {
		spelled, _, _ = strings.Cut(spelled, "=") // the option, not its value
	}
	return d.reason() + " (" + t.name + " " + spelled + " is not read-only)"
}

func (t *optTable) unknown(spelled string) string {
	return "uses an option the guard does not know (" + t.name + " " + spelled + ")"
}

// mayBeOption reports whether a word the guard cannot see, or a glob, may
// turn into an option at run time.
func mayBeOption(a word) bool {
	if !a.known {
		return true
	}
	if a.glob && a.val != "" {
		switch a.val[0] {
		case '*', '?', '[', '-':
			return true
		}
	}
	return false
}

// parse reads a[from:] as the program's arguments. It stops at the first
// operand when the program does (style.permute false) or at the end.
func (t *optTable) parse(a []word, from int) optRes {
	t.ready()
	r := optRes{end: len(a)}
	st := &t.style
	for i := from; i < len(a); i++ {
		x := a[i]
		if mayBeOption(x) {
			if t.danger {
				if !x.known {
					r.why = "has arguments that are not literal"
				} else {
					r.why = "has a glob that could expand to an option (" + t.name + " " + x.val + ")"
				}
				return r
			}
			// Nothing it could become writes or runs; as an operand it
			// keeps a stop-at-first program's options where they are.
			if !st.permute {
				return r.stop(i, len(a))
			}
			r.operand(i)
			continue
		}
		v := x.val
		if v == "--" || (st.endOpts && v == "--end-of-options") {
			if !st.permute {
				return r.stop(i+1, len(a))
			}
			for j := i + 1; j < len(a); j++ {
				r.operand(j)
			}
			return r
		}
		if len(v) < 2 || v[0] != '-' {
			if !st.permute {
				return r.stop(i, len(a))
			}
			r.operand(i)
			continue
		}
		if st.numeric && isDigits(v[1:]) {
			continue
		}
		var ok bool
		if v[1] == '-' || st.single {
			i, ok = t.parseLong(a, i, v, &r)
		} else {
			i, ok = t.parseShort(a, i, v, &r)
		}
		if !ok {
			return r
		}
	}
	return r
}

// parseLong reads the long option v at a[i]; it returns the index of its
// last word (its values) and false when the option makes the command not
// safe (r.why says why).
func (t *optTable) parseLong(a []word, i int, v string, r *optRes) (int, bool) {
	st := &t.style
	body := v[1:]
	if v[1] == '-' {
		body = v[2:]
	}
	n, _, eq := strings.Cut(body, "=")
	d, neg, ok := t.findLong(n)
	if !ok {
		r.why = t.unknown(v)
		return i, false
	}
	if d.eff != effRead && !neg {
		r.why = t.optNotSafe(d, v)
		return i, false
	}
	arg := d.arg
	if neg {
		arg = argNone
	}
	switch arg {
	case argNone:
		if eq && !st.single {
			r.why = t.unknown(v) // the program refuses a value
			return i, false
		}
	case argReq, argReq2:
		need := 1
		if arg == argReq2 {
			need = 2
		}
		if eq {
			need--
		}
		if i+need >= len(a) {
			r.why = t.unknown(v) // a missing value: the program refuses it
			return i, false
		}
		i += need
	}
	r.marks |= d.mark
	return i, true
}

// parseShort reads the cluster of short options v at a[i], as parseLong.
func (t *optTable) parseShort(a []word, i int, v string, r *optRes) (int, bool) {
	st := &t.style
	for j := 1; j < len(v); j++ {
		c := v[j]
		d := t.findShort(c)
		if d == nil {
			if st.numeric && c >= '0' && c <= '9' {
				continue
			}
			r.why = t.unknown(v)
			return i, false
		}
		if d.eff != effRead {
			r.why = t.optNotSafe(d, v)
			return i, false
		}
		r.marks |= d.mark
		if d.arg == argNone {
			if st.noBundle && len(v) > 2 {
				r.why = t.unknown(v)
				return i, false
			}
			continue
		}
		if (d.arg == argReq || d.arg == argReq2) && j == len(v)-1 {
			need := 1
			if d.arg == argReq2 {
				need = 2
			}
			if i+need >= len(a) {
				r.why = t.unknown(v)
				return i, false
			}
			i += need
		}
		break // the rest of the cluster is the value
	}
	return i, true
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
