package shellguard

import (
	"math/rand"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
)

// TestOptionClasses: the option parser reads arguments as each program
// does. One table per class; the verdicts were checked against the real
// programs (git 2.39, GNU coreutils 9, ripgrep, jq 1.6) on this machine.
func TestOptionClasses(t *testing.T) {
	c := newTest(t, Config{})
	classes := map[string][]vcase{
		// GNU and parse-options take unique prefixes of long options;
		// an ambiguous prefix is refused by the program, so it asks.
		"abbreviations": {
			{"date --se=2020-01-01", Ask, ""}, {"date --s=x", Ask, ""}, {"date --d=now", Ask, ""}, // --d: --date or --debug
			{"date --date=now +%s", Safe, ""}, {"date --da=now", Safe, ""}, {"go env --w GOFLAGS=x", Ask, ""},
			{"go env --u X", Ask, ""}, {"go env --json", Safe, ""},
			{"git grep --open-files-in-p='touch X;' one", Ask, ""}, {"git grep --open one", Ask, ""},
			{"git grep --ext-grep one", Safe, ""}, {"git cat-file --text HEAD:f", Ask, ""}, {"git cat-file --filt HEAD:f", Ask, ""},
			{"git branch --del x", Ask, ""}, {"git branch --lis x", Safe, ""}, {"git status --porc", Safe, ""},
			{"git status --ren", Safe, ""}, {"sort --comp=gzip x", Ask, ""}, {"sort --o x", Ask, ""}, {"sort --out=y x", Ask, ""},
			{"tail --fo x", Safe, ""}, {"grep --col foo", Safe, ""}, {"ls --colo=auto", Safe, ""}, {"yq --in .a x", Ask, ""},
			{"yq --in-p .a x", Ask, ""}, {"env --sp='rm -rf /'", Floor, ""}, {"git tag --del v1", Ask, ""},
			// revision.c, diff.c and git's own options match exactly: an
			// abbreviation is an error there, so it is unknown.
			{"git log --out=x", Ask, ""}, {"git log -p --ext", Ask, ""}, {"git log --textc", Ask, ""}, {"git log --no-t", Ask, ""},
			{"git --pag status", Ask, ""}, {"git --no-pag status", Ask, ""}, {"git --exec-p status", Ask, ""},
			// exact-matching programs (ripgrep, fd, jq) refuse prefixes.
			{"rg --pr foo", Ask, ""}, {"rg --hostname-b=x foo", Ask, ""}, {"jq --ar a b .", Ask, ""},
		},
		"bundles": {
			{"sort -uo FILE x", Ask, ""}, {"sort -uoFILE x", Ask, ""}, {"sort -nru x", Safe, ""}, {"fd -Hx rm", Ask, ""},
			{"git grep -nO x", Ask, ""}, {"git grep -Ofoo x", Ask, ""}, {"git grep -nw x", Safe, ""}, {"ls -laR", Safe, ""},
			{"git status -uno", Safe, ""}, {"git status -sb", Safe, ""}, {"git branch -vD x", Ask, ""}, {"git tag -fa v1", Ask, ""},
			{"grep -rnC3 foo .", Safe, ""}, {"jq -nr . x", Safe, ""}, {"rg -iz foo", Ask, ""}, {"tree -ao x", Ask, ""},
			{"hostname -sF x", Ask, ""}, {"cut -d, -f1 x", Safe, ""}, {"head -n5 x", Safe, ""}, {"git blame -L1,2 f", Safe, ""},
			{"git -Pc core.pager=x log", Ask, ""}, // git's own options do not bundle
		},
		// GNU getopt and parse-options read options after operands.
		"permutation": {
			{"sort x -o y", Ask, ""}, {"sort x y --output=z", Ask, ""}, {"rg foo . --pre cat", Ask, ""}, {"tree . -o out", Ask, ""},
			{"git grep one -O", Ask, ""}, {"git diff HEAD --output=x", Ask, ""}, {"git log HEAD --ext-diff", Ask, ""},
			{"git cat-file HEAD:f --textconv", Ask, ""}, {"date +%s -s now", Ask, ""}, {"find . -name x -delete", Ask, ""},
			{"fd x . --exec rm", Ask, ""}, {"tail x -f", Safe, ""}, {"cat x -n", Safe, ""}, {"grep foo . -r --include=*.go", Safe, ""},
			// programs that stop at the first operand: the rest are operands.
			{"env printf %s -v", Safe, ""}, {"printf '%s' -v", Safe, ""}, {"which ls -Z", Safe, ""}, {"git remote -v", Safe, ""},
			{"seq 1 -1", Safe, ""},
		},
		"double dash": {
			{"sort -- -o", Safe, ""}, {"cat x -- -n", Safe, ""}, {"git log -p -- -o", Safe, ""}, {"git status -- foo", Safe, ""},
			{"git status --end-of-options --porcelain", Safe, ""}, {"rg -- --pre foo", Safe, ""}, {"grep -- -O x", Safe, ""},
			{"git diff -- --ext-diff", Safe, ""}, {"sort -o -- x", Ask, ""}, // -o's value is "--"
		},
		// --opt=value, --opt value, -ovalue, -o value: a value is never
		// read as an option, and an option's value is never an operand.
		"split values": {
			{"sort -k 1 -o x y", Ask, ""}, {"sort -t -o x", Safe, ""}, {"sort -t-o x", Safe, ""}, {"grep -e -O x", Safe, ""},
			{"git grep -e -O x", Safe, ""}, {"git log --grep --ext-diff", Safe, ""}, {"git log --grep=--ext-diff", Safe, ""},
			{"git log --format --output=x", Ask, ""}, // --format takes an optional stuck value only
			{"jq --arg a --args .", Safe, ""}, {"jq --arg a b -n .", Safe, ""}, {"jq --arg a", Ask, ""},
			{"date -d -s +%s", Safe, ""}, {"date -d", Ask, ""}, {"rg -e --pre foo", Safe, ""}, {"rg --regexp=--pre foo", Safe, ""},
			{"head -n -5 x", Safe, ""}, {"git -C -p status", Safe, ""}, {"cut --delimiter=, --fields 1 x", Safe, ""},
			{"git status --porcelain=v2", Safe, ""}, {"ls --color auto", Safe, ""}, // an optional value is only stuck: "auto" is an operand
			{"tail --follow=name x", Safe, ""}, {"git log --no-ext-diff=x", Ask, ""}, {"git status --short=x", Ask, ""},
		},
		// Options of git itself, before the subcommand.
		"git global": {
			{"git -c core.pager=x log", Ask, ""}, {"git -p status", Ask, ""}, {"git --paginate status", Ask, ""},
			{"git --git-dir=x status", Ask, ""}, {"git --work-tree=x status", Ask, ""}, {"git --exec-path=x status", Ask, ""},
			{"git --exec-path status", Ask, ""}, {"git --config-env=a=b status", Ask, ""}, {"git --bare log", Ask, ""},
			{"git --super-prefix=x status", Ask, ""}, {"git -C x status", Safe, ""}, {"git --no-pager log -p", Safe, ""},
			{"git -P log", Safe, ""}, {"git --namespace=x log", Safe, ""}, {"git --literal-pathspecs log", Safe, ""},
			{"git --no-optional-locks status", Safe, ""}, {"git --version", Safe, ""}, {"git help", Ask, ""},
		},
		"git subcommands": {
			{"git stash list -p", Safe, ""}, {"git stash list -p --ext-diff", Ask, ""}, {"git stash show -p --textconv", Ask, ""},
			{"git stash show -u", Safe, ""}, {"git stash drop", Ask, ""}, {"git worktree list --porcelain", Safe, ""},
			{"git worktree remove x", Ask, ""}, {"git reflog show -p", Safe, ""}, {"git reflog expire --all", Ask, ""},
			{"git reflog delete x", Ask, ""}, {"git blame --ext-diff f", Ask, ""}, {"git blame -w --porcelain f", Safe, ""},
			{"git shortlog -sn --ext-diff", Ask, ""}, {"git config --get-regexp x", Safe, ""}, {"git config -e", Ask, ""},
			{"git config --add a.b c", Ask, ""}, {"git config x y", Ask, ""}, {"git remote show origin", Safe, ""},
			{"git remote add o x", Ask, ""}, {"git branch --edit-description", Ask, ""}, {"git tag -e v1", Ask, ""},
			{"git diff --no-ext-diff --no-textconv", Safe, ""}, {"git diff --textconv", Ask, ""}, {"git log --alternate-refs", Ask, ""},
			{"git rev-parse --show-toplevel", Safe, ""}, {"git commit", Ask, ""}, {"git push", Ask, ""}, {"git -C x push", Ask, ""},
		},
		"go subcommands": {
			{"go env -w GOFLAGS=x", Ask, ""}, {"go env -w=GOFLAGS=x", Ask, ""}, {"go env -u X", Ask, ""}, {"go env --u=X", Ask, ""},
			{"go env -json GOPATH", Safe, ""}, {"go list -toolexec x ./...", Ask, ""}, {"go list -exec x ./...", Ask, ""},
			{"go list -export ./...", Ask, ""}, {"go list -compiled ./...", Ask, ""}, {"go list -overlay=x ./...", Ask, ""},
			{"go list -json ./...", Safe, ""}, {"go list -m all", Safe, ""}, {"go version -m x", Safe, ""}, {"go doc -all fmt", Safe, ""},
			{"go list -mod=mod ./...", Ask, ""}, {"go vet", Ask, ""}, {"go run .", Ask, ""}, {"go generate", Ask, ""}, {"go tool x", Ask, ""},
		},
		// options that run a helper program, whatever it is
		"helper programs": {
			{"diff -l a b", Ask, ""}, {"diff --pag a b", Ask, ""}, {"file -z x", Ask, ""}, {"file --uncompress x", Ask, ""},
			{"fd -l x", Ask, ""}, {"fd --list-details x", Ask, ""}, {"yq -s . x", Ask, ""}, {"yq --split-exp .a x", Ask, ""},
			{"yq --inplace .a x", Ask, ""}, {"yq --slurp . x", Safe, ""}, {"ag -z x", Ask, ""}, {"sort --compress-program=x y", Ask, ""},
		},
		// env -S / --split-string is a wrapper: what it runs is classified.
		"env split string": {
			{"env -S'git push --force origin HEAD:main'", Floor, ""}, {"env -S'git status'", Safe, ""},
			{"env --split-string='git diff'", Safe, ""}, {"env -S'git commit -m x'", Ask, ""}, {"env -S'sort -o x y'", Ask, ""},
			{`env -S"rm -rf /"`, Floor, ""}, {"env -iS'git status'", Ask, ""}, // a cleared environment escapes the git overrides
			{"env -P /tmp git status", Ask, ""}, {"env PATH=/tmp git status", Ask, ""}, {"PATH=/tmp git status", Ask, ""},
			{"env --ignore-env git status", Ask, ""}, {"env --un=X git status", Ask, ""}, {"env --sp='git status'", Safe, ""},
			{"env -S''", Ask, ""}, {"timeout --sig=KILL 5 git status", Safe, ""}, {"timeout --s=KILL 5 git status", Safe, ""},
		},
	}
	names := make([]string, 0, len(classes))
	for n := range classes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t.Run(n, func(t *testing.T) { runVerdicts(t, c, classes[n]) })
	}
}

// allTables is every option table with the command line that reaches it
// (its name) and an operand that keeps the command otherwise read-only.
func allTables() []*optTable {
	seen := map[*optTable]bool{}
	var out []*optTable
	add := func(t *optTable) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	for _, m := range []map[string]*optTable{tables, gitTables, goTables} {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			add(m[k])
		}
	}
	add(gitGlobal)
	return out
}

// longsOf is defs[i]'s long names, in sorted order.
func (t *optTable) longsOf(i int) []string {
	t.ready()
	var out []string
	for k, r := range t.names {
		if int(r.def) == i {
			out = append(out, t.nameAt(k))
		}
	}
	return out
}

// shortsOf is defs[i]'s short letters.
func (t *optTable) shortsOf(i int) string {
	t.ready()
	var out []byte
	for c, d := range t.short {
		if int(d) == i+1 {
			out = append(out, byte(c))
		}
	}
	return string(out)
}

// allNames is every long name of t, sorted.
func (t *optTable) allNames() []string {
	t.ready()
	out := make([]string, len(t.names))
	for k := range t.names {
		out[k] = t.nameAt(k)
	}
	return out
}

// spell is the command line that gives t the option spelled o.
func spell(t *optTable, o string) string {
	switch {
	case t == gitGlobal:
		return "git " + o + " status"
	case t.name == "find":
		return "find . " + o
	case t.name == "env":
		return "env " + o + " true"
	}
	return t.name + " " + o + " x"
}

// TestTableNames: every name in a table is a plain option name.
func TestTableNames(t *testing.T) {
	for _, tb := range allTables() {
		for i := range tb.defs {
			for _, l := range tb.longsOf(i) {
				if strings.ContainsAny(l, "=?!@, ") || strings.HasPrefix(l, "-") {
					t.Errorf("table %s: bad long name %q", tb.name, l)
				}
			}
		}
	}
}

// TestWriteExecOptions: every option a table marks as writing or running,
// in every spelling (short, long, --long=value, a unique prefix, bundled,
// after an operand), is never safe.
func TestWriteExecOptions(t *testing.T) {
	c := newTest(t, Config{})
	n := 0
	for _, tb := range allTables() {
		for di, d := range tb.defs {
			if d.eff == effRead {
				continue
			}
			var forms []string
			val := func(o string) []string {
				if d.arg == argReq || d.arg == argReq2 {
					return []string{o + " v w", o + "=v w"}
				}
				return []string{o, o + "=v"}
			}
			dash := "--"
			if tb.style.single {
				dash = "-"
			}
			for _, l := range tb.longsOf(di) {
				forms = append(forms, val(dash+l)...)
				if tb.style.abbrev {
					for k := len(l) - 1; k >= 1; k-- {
						if i, ok := tb.lookupLong(l[:k]); !ok || i != di {
							break
						}
						forms = append(forms, val(dash+l[:k])...)
					}
				}
			}
			for _, s := range tb.shortsOf(di) {
				forms = append(forms, "-"+string(s)+" v", "-"+string(s)+"v")
				for oi, o := range tb.defs {
					if o.eff == effRead && o.arg == argNone && tb.shortsOf(oi) != "" {
						forms = append(forms, "-"+tb.shortsOf(oi)[:1]+string(s)+" v")
						break
					}
				}
			}
			for _, f := range forms {
				n++
				cmd := spell(tb, f)
				if r := c.Classify(cmd, ""); r.Verdict == Safe {
					t.Errorf("Classify(%q) = safe (%s); the option %s", cmd, r.Reason, d.reason())
				}
				if tb.style.permute && tb != gitGlobal && tb.name != "find" {
					cmd = tb.name + " x " + f
					if r := c.Classify(cmd, ""); r.Verdict == Safe {
						t.Errorf("Classify(%q) = safe (%s); the option %s", cmd, r.Reason, d.reason())
					}
				}
			}
		}
	}
	if n < 200 {
		t.Fatalf("only %d write/exec spellings checked", n)
	}
	t.Logf("%d write/exec spellings checked", n)
}

// unknownLong returns a random long option name that no option of t (or
// the table it hands on to) has, as a name, a prefix or a negation.
func unknownLong(rng *rand.Rand, t *optTable) string {
	names := t.allNames()
	if t.next != nil {
		names = append(names, t.next.allNames()...)
	}
	for range 10000 {
		b := make([]byte, 2+rng.Intn(10))
		for i := range b {
			b[i] = "abcdefghijklmnopqrstuvwxyz-"[rng.Intn(27)]
		}
		n := strings.Trim(string(b), "-")
		if len(n) < 2 {
			continue
		}
		clash := false
		for _, x := range names {
			for _, y := range []string{n, strings.TrimPrefix(n, "no-"), "no-" + n} {
				if strings.HasPrefix(x, y) {
					clash = true
				}
			}
		}
		if !clash {
			return n
		}
	}
	panic("no unknown option name for " + t.name)
}

// unknownShort returns a letter t has no short option for, or 0.
func unknownShort(rng *rand.Rand, t *optTable) byte {
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	for range 100 {
		c := letters[rng.Intn(len(letters))]
		if t.findShort(c) == nil {
			return c
		}
	}
	return 0
}

// TestUnknownOptionNeverSafe (property): a safe-listed command with any
// option its table does not know — long or short, bundled, stuck, after an
// operand, under a wrapper or in a chain — is never safe.
func TestUnknownOptionNeverSafe(t *testing.T) {
	c := newTest(t, Config{})
	rng := rand.New(rand.NewSource(9))
	wrappers := []string{"%s", "env %s", "timeout 5 %s", "nice %s", "%s | cat", "ls && %s", "bash -c '%s'", "echo $(%s)"}
	n := 0
	check := func(cmd string) {
		for _, w := range wrappers {
			n++
			form := strings.Replace(w, "%s", cmd, 1)
			if r := c.Classify(form, ""); r.Verdict == Safe {
				t.Errorf("Classify(%q) = safe (%s)", form, r.Reason)
			}
		}
	}
	for _, tb := range allTables() {
		dash := "--"
		if tb.style.single {
			dash = "-"
		}
		for range 20 {
			l := unknownLong(rng, tb)
			check(spell(tb, dash+l))
			check(spell(tb, dash+l+"=v"))
			if tb.style.permute && tb != gitGlobal && tb.name != "find" {
				check(tb.name + " x " + dash + l)
			}
			if tb.style.single {
				continue
			}
			s := unknownShort(rng, tb)
			if s == 0 {
				continue
			}
			check(spell(tb, "-"+string(s)))
			for oi, o := range tb.defs {
				if o.eff == effRead && o.arg == argNone && tb.shortsOf(oi) != "" && tb != gitGlobal {
					check(spell(tb, "-"+tb.shortsOf(oi)[:1]+string(s)))
					break
				}
			}
		}
	}
	t.Logf("%d commands with unknown options checked", n)
}

// FuzzOptionParse: the option parser never panics on any arguments, stays
// within them, and an unknown option placed first is never read-only.
func FuzzOptionParse(f *testing.F) {
	for _, s := range []string{"-uo FILE x", "--se=x", "-- -o", "--end-of-options --x", "-n5 --col x -", "--arg a b .",
		"-Ofoo", "--no-ext-diff --no-t", "-C", "--", "-", "---x", "--=", "-=", "--no-", "-5 -nr", "x -o"} {
		f.Add(s)
	}
	all := allTables()
	f.Fuzz(func(t *testing.T, in string) {
		if len(in) > 512 {
			return
		}
		var a []word
		a = append(a, word{val: "prog", text: "prog", lit: true, known: true})
		for _, s := range strings.Fields(in) {
			a = append(a, word{val: s, text: s, lit: true, known: true, glob: strings.ContainsAny(s, "*?[")})
		}
		for _, tb := range all {
			r := tb.parse(a, 1)
			if r.end < 0 || r.end > len(a) || r.operands > len(a) {
				t.Fatalf("%s: parse(%q) = end %d, %d operands", tb.name, in, r.end, r.operands)
			}
			for k := 0; k < r.operands && k < len(r.first); k++ {
				if r.first[k] < 1 || r.first[k] >= len(a) {
					t.Fatalf("%s: parse(%q): operand index %d", tb.name, in, r.first[k])
				}
			}
			u := append([]word{a[0], {val: "--zq-not-an-option", text: "--zq-not-an-option", lit: true, known: true}}, a[1:]...)
			if tb.style.single {
				u[1].val = "-zq-not-an-option"
			}
			if r := tb.parse(u, 1); r.why == "" {
				t.Fatalf("%s: an unknown first option is read-only in %q", tb.name, in)
			}
		}
	})
}

// TestTablesPointerFree: the tables' per-option slices hold no pointers, so
// the collector never scans them (they stay live for the process).
func TestTablesPointerFree(t *testing.T) {
	var hasPtr func(reflect.Type) bool
	hasPtr = func(ty reflect.Type) bool {
		switch ty.Kind() {
		case reflect.Pointer, reflect.String, reflect.Slice, reflect.Map, reflect.Interface, reflect.Func, reflect.Chan, reflect.UnsafePointer:
			return true
		case reflect.Array:
			return hasPtr(ty.Elem())
		case reflect.Struct:
			for i := range ty.NumField() {
				if hasPtr(ty.Field(i).Type) {
					return true
				}
			}
		}
		return false
	}
	for _, v := range []any{optDef{}, nameRef{}} {
		if ty := reflect.TypeOf(v); hasPtr(ty) {
			t.Errorf("%s holds a pointer: every GC cycle would scan the tables", ty)
		}
	}
}

// TestLongLookup: exact names, unique prefixes, ambiguity and git's
// negations on a small table.
func TestLongLookup(t *testing.T) {
	tb := newTable("t", gitPO, "a,all no-verify verbose version= x,exec=!x", nil)
	name := func(i int) string { return tb.longsOf(i)[0] }
	for _, tc := range []struct {
		in       string
		want     string // "" = not found
		neg, git bool
	}{
		{in: "all", want: "all"},
		{in: "al", want: "all"},
		{in: "ver", want: ""}, // verbose or version
		{in: "verb", want: "verbose"},
		{in: "exec", want: "exec"},
		{in: "zzz", want: ""},
		{in: "", want: ""},
		{in: "no-verify", want: "no-verify", git: true},
		{in: "verify", want: "no-verify", neg: true, git: true},
		{in: "no-all", want: "all", neg: true, git: true},
		{in: "no-al", want: "all", neg: true, git: true},
		{in: "no-", want: "", git: true},
		{in: "n", want: "", git: true},
		{in: "no-ver", want: "", git: true}, // no-verify, no-verbose, no-version
		{in: "al", want: "all", git: true},
	} {
		var i int
		var neg, ok bool
		if tc.git {
			i, neg, ok = tb.gitLong(tc.in)
		} else {
			i, ok = tb.lookupLong(tc.in)
		}
		got := ""
		if ok {
			got = name(i)
		}
		if got != tc.want || ok && neg != tc.neg {
			t.Errorf("lookup %q (git %v) = %q neg %v, want %q neg %v", tc.in, tc.git, got, neg, tc.want, tc.neg)
		}
	}
}

// TestTablesBuild builds every option table (they are built on first use):
// a malformed spec, a duplicate name or a bad mark panics here, not in a
// user's session; and a table's danger flag, known before it is built,
// agrees with its options.
func TestTablesBuild(t *testing.T) {
	loadTables()
	all := []*optTable{gitGlobal, gitLog, envTable, findTable}
	for _, m := range []map[string]*optTable{tables, gitTables, goTables} {
		for _, tb := range m {
			all = append(all, tb)
		}
	}
	for _, tb := range all {
		tb.ready()
		danger := false
		for _, d := range tb.defs {
			danger = danger || d.eff != effRead
		}
		if danger && !tb.danger {
			t.Errorf("table %s: an option writes or runs but the table is not marked dangerous", tb.name)
		}
	}
}

// TestTablesBuildConcurrently: tables are built on first use, so two
// sessions' guards may build one table, or two tables sharing the reasons
// list, at the same time (run under -race: make race).
func TestTablesBuildConcurrently(t *testing.T) {
	loadTables()
	var fresh []*optTable
	for _, tb := range tables {
		fresh = append(fresh, tb.renamed(tb.name)) // unbuilt copies
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, tb := range fresh {
				r := tb.parse([]word{{val: tb.name, known: true}, {val: "--help", known: true}, {val: "-x", known: true}}, 1)
				if r.why != "" && !strings.Contains(r.why, tb.name) {
					t.Errorf("%s: reason %q does not name the command", tb.name, r.why)
				}
			}
		}()
	}
	wg.Wait()
}
