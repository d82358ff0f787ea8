package shellguard

import (
	"strings"
)

// safeSpec is one entry of the read-only safe list.
type safeSpec struct {
	// anyArgs: no argument (option, operand count, unknown expansion) can
	// make the command write or execute; otherwise every argument must be
	// known and check decides.
	anyArgs bool
	// check returns "" when the arguments keep the command read-only, or
	// the reason it is not ("deletes a branch (git branch -D is not read-only)").
	check func(argv []word) string
}

var safeList map[string]safeSpec

func initSafeList() {
	safeList = map[string]safeSpec{}
	// Commands whose arguments are all operands (no options to parse).
	for _, n := range strings.Fields(`echo true false : test [`) {
		safeList[n] = safeSpec{anyArgs: true}
	}
	// Commands with an option table and nothing else to check.
	for _, n := range strings.Fields(`cat head tail wc grep egrep fgrep pwd which type stat du df printenv whoami id uname
		basename dirname realpath readlink cut tr diff cmp comm column sha1sum sha224sum sha256sum sha384sum sha512sum md5sum
		b2sum cksum sum seq nl od hexdump strings ls sleep tac rev paste jq cd pushd popd rg fd ag tree sort yq file printf`) {
		safeList[n] = tableSpec(tables[n], nil)
	}
	// Operands that write or set state: every argument must be literal.
	for _, n := range []string{"uniq", "xxd", "date", "hostname"} {
		tables[n].danger = true
	}
	safeList["uniq"] = tableSpec(tables["uniq"], operandLimit(1, "writes its second operand"))
	safeList["xxd"] = tableSpec(tables["xxd"], operandLimit(1, "writes its second operand"))
	safeList["hostname"] = tableSpec(tables["hostname"], func(a []word, r optRes) string {
		if r.operands > 0 {
			return "sets the hostname"
		}
		return ""
	})
	safeList["date"] = tableSpec(tables["date"], func(a []word, r optRes) string {
		for k := 0; k < r.operands && k < len(r.first); k++ {
			if !strings.HasPrefix(a[r.first[k]].val, "+") {
				return "sets the clock (a date operand is not read-only)"
			}
		}
		return ""
	})
	// Only reached when env runs nothing (peel found no command): printing.
	safeList["env"] = tableSpec(envTable, nil)
	safeList["command"] = tableSpec(tables["command"], func(a []word, r optRes) string {
		if r.marks&markRead == 0 {
			return "runs a command"
		}
		return ""
	})
	safeList["find"] = safeSpec{check: findCheck}
	safeList["set"] = safeSpec{check: setCheck}
	safeList["git"] = safeSpec{check: gitCheck}
	safeList["go"] = safeSpec{check: goCheck}
}

// tableSpec is the safe-list entry of a command with an option table: its
// options are parsed as the program parses them, then post checks operands.
// A table without writing or running options keeps the command safe with
// arguments the guard cannot see.
func tableSpec(t *optTable, post func(a []word, r optRes) string) safeSpec {
	if t == nil {
		panic("shellguard: no option table")
	}
	return safeSpec{anyArgs: !t.danger, check: func(a []word) string {
		r := t.parse(a, 1)
		if r.why == "" && post != nil {
			return post(a, r)
		}
		return r.why
	}}
}

// notSafe returns "" when the segment is on the safe list, else why it asks.
// The reason is quoted: it follows the segment's text ("X" is not ...).
func (w *walker) notSafe(argv []word, in segIn, p peeled, write string) (why string, quoted bool) {
	if in.unknown {
		return "uses shell syntax the guard does not inspect", true
	}
	if write != "" {
		return "output redirected to " + write, false
	}
	if p.danger != "" {
		return "the assignment to " + p.danger + " changes what the command runs", false
	}
	if in.assign || in.expr || in.decl {
		return "", false
	}
	if len(argv) == 0 {
		return "empty segment", false
	}
	if !argv[0].lit || strings.ContainsAny(argv[0].val, "$`") {
		return "has a command name that is not a literal", true
	}
	if p.elevated {
		return "runs as another user", true
	}
	if p.uncertain {
		return "has wrapper options the guard does not know", true
	}
	for _, e := range w.c.extra {
		if prefixWords(argv, e) {
			for _, a := range argv {
				if !a.known {
					return "has arguments that are not literal", true
				}
			}
			return "", false
		}
	}
	name := argv[0].val
	if w.funcs[name] {
		return "", false // a function of this command: its body is classified as segments
	}
	if strings.IndexByte(name, '/') >= 0 {
		if !systemBin(name) {
			return "runs a program by path", true
		}
		name = base(name)
		if name == "git" {
			// The bash tool neutralises git through PATH (docs/shellguard.md).
			return "runs git by path, past the overrides that keep its configured programs from running", true
		}
	}
	if p.clearsEnv && (name == "git" || name == "go") {
		return "runs " + name + " with a cleared environment or PATH, past the overrides that keep its configured programs from running", true
	}
	spec, ok := safeList[name]
	if !ok {
		return "is not on the read-only list", true
	}
	if p.xargs && !spec.anyArgs {
		return "takes arguments from stdin (xargs)", true
	}
	if !spec.anyArgs {
		for _, a := range argv[1:] {
			if !a.known {
				return "has arguments that are not literal", true
			}
		}
	}
	if spec.check != nil {
		if why := spec.check(argv); why != "" {
			return why, true
		}
	}
	return "", false
}

func prefixWords(argv []word, pre []string) bool {
	if len(argv) < len(pre) {
		return false
	}
	for i, p := range pre {
		if !argv[i].known || argv[i].val != p {
			return false
		}
	}
	return true
}

// operandLimit refuses more than max operands (uniq IN OUT writes OUT).
func operandLimit(max int, why string) func([]word, optRes) string {
	return func(_ []word, r optRes) string {
		if r.operands > max {
			return why
		}
		return ""
	}
}

// findCheck reads find's arguments: global options, start paths, then the
// expression, whose primaries (tests, actions, options) match exactly.
func findCheck(a []word) string {
	t := findTable
	i := 1
	// Leading options -H -L -P -D opts -Olevel.
	for ; i < len(a); i++ {
		v := a[i].val
		if !a[i].known {
			return "has arguments that are not literal"
		}
		if v == "-H" || v == "-L" || v == "-P" || (len(v) > 2 && v[:2] == "-O" && isDigits(v[2:])) {
			continue
		}
		if v == "-D" {
			i++
			continue
		}
		if v == "--" {
			i++
		}
		break
	}
	inExpr := false
	for ; i < len(a); i++ {
		x := a[i]
		if !x.known {
			return "has arguments that are not literal"
		}
		v := x.val
		switch v {
		case "(", ")", "!", ",":
			inExpr = true
			continue
		}
		if len(v) < 2 || v[0] != '-' {
			if inExpr {
				return t.unknown(v) // find refuses a path after the expression
			}
			if x.glob && mayBeOption(x) {
				return "has a glob that could expand to an option (find " + v + ")"
			}
			continue
		}
		inExpr = true
		n := v[1:]
		if len(n) == 7 && strings.HasPrefix(n, "newer") && strings.IndexByte("aBcmt", n[5]) >= 0 && strings.IndexByte("aBcmt", n[6]) >= 0 {
			n = "newerXY"
		}
		d, _, ok := t.findLong(n)
		if !ok {
			return t.unknown(v)
		}
		if d.eff != effRead {
			return d.reason() + " (find " + v + " is not read-only)"
		}
		if d.arg == argReq {
			i++
		}
	}
	return ""
}

func goCheck(a []word) string {
	if len(a) < 2 {
		return ""
	}
	sub := a[1].val
	if sub == "help" {
		return ""
	}
	if t, ok := goTables[sub]; ok {
		return t.parse(a, 2).why
	}
	if why, ok := goReasons[sub]; ok {
		return why
	}
	return goReason(sub)
}

func goReason(sub string) string {
	return "is not on the read-only list (go " + sub + " builds, runs or changes things)"
}

// goReasons holds goReason of the go subcommands goCheck refuses most, built
// once instead of on every call.
var goReasons = map[string]string{}

func initGoReasons() {
	for _, sub := range strings.Fields("build test run install get mod work generate vet fmt fix clean tool bug telemetry") {
		goReasons[sub] = goReason(sub)
	}
}

// gitCheck: git's own options, then a read-only subcommand with its options.
func gitCheck(a []word) string {
	r := gitGlobal.parse(a, 1)
	if r.why != "" {
		return r.why
	}
	i := r.end
	if i >= len(a) {
		return ""
	}
	sub := a[i].val
	switch sub {
	case "branch":
		return gitNames(gitTables[sub], a, i, "creates a branch (a name after git branch creates it unless -l/--list makes it a pattern)")
	case "tag":
		return gitNames(gitTables[sub], a, i, "creates a tag (a name after git tag creates it unless -l/--list makes it a pattern)")
	case "config":
		return gitConfig(a, i)
	case "remote":
		return gitVerb(a, i, "remote", "changes remotes (git remote %s is not read-only)", "show", "get-url")
	case "stash":
		if i+1 < len(a) && (a[i+1].val == "list" || a[i+1].val == "show") {
			return gitTables["stash "+a[i+1].val].parse(a, i+2).why
		}
		return "changes the stash (git stash is not read-only)"
	case "worktree":
		if i+1 < len(a) && a[i+1].val == "list" {
			return gitTables["worktree list"].parse(a, i+2).why
		}
		return "changes worktrees (git worktree is not read-only)"
	case "reflog":
		if i+1 < len(a) {
			switch a[i+1].val {
			case "show":
				i++
			case "exists":
				return gitTables["reflog exists"].parse(a, i+2).why
			case "expire", "delete", "drop":
				return "changes the reflog (git reflog " + a[i+1].val + " is not read-only)"
			}
		}
		return gitTables["reflog"].parse(a, i+1).why
	}
	t, ok := gitTables[sub]
	if !ok || strings.IndexByte(sub, ' ') >= 0 {
		return "is not read-only (git " + sub + " is not on the read-only list)"
	}
	return t.parse(a, i+1).why
}

// gitNames: git branch and git tag list unless a name is given outside
// list mode (-l, -a, -r, --contains, ...).
func gitNames(t *optTable, a []word, i int, create string) string {
	r := t.parse(a, i+1)
	if r.why != "" {
		return r.why
	}
	if r.operands > 0 && r.marks&markList == 0 {
		return create
	}
	return ""
}

// gitVerb: git remote [-v] [show|get-url ...]; other verbs change things.
func gitVerb(a []word, i int, name, why string, verbs ...string) string {
	t := gitTables[name]
	r := t.parse(a, i+1)
	if r.why != "" {
		return r.why
	}
	if r.end >= len(a) {
		return ""
	}
	v := a[r.end].val
	for _, ok := range verbs {
		if v == ok {
			return gitTables[name+" "+v].parse(a, r.end+1).why
		}
	}
	switch v {
	case "add", "remove", "rm", "rename", "set-url", "set-head", "set-branches", "prune", "update":
		return strings.Replace(why, "%s", v, 1)
	}
	return "is not read-only (git " + name + " " + v + " is not on the read-only list)"
}

// gitConfig: reads only (--get*, --list, a single name).
func gitConfig(a []word, i int) string {
	t := gitTables["config"]
	r := t.parse(a, i+1)
	if r.why != "" {
		return r.why
	}
	if r.marks&markRead != 0 {
		return ""
	}
	if r.operands == 1 {
		return ""
	}
	if r.operands == 0 {
		return "is not read-only (git config without --get or --list)"
	}
	return "writes git configuration (git config NAME VALUE is not read-only)"
}

// setOptionNames are the names bash's set -o / +o takes.
var setOptionNames = strings.Fields(`allexport braceexpand emacs errexit errtrace functrace hashall histexpand history
	ignoreeof interactive-comments keyword monitor noclobber noexec noglob nolog notify nounset onecmd physical pipefail
	posix privileged verbose vi xtrace`)

// setCheck: the set builtin only changes the shell's own options and
// positional parameters (set -euo pipefail, set -- a b), which the walker
// follows (setArgs); a letter or -o name bash does not have is unknown, so
// it asks.
func setCheck(a []word) string {
	_, _, bad, _ := setParse(a)
	return bad
}
