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

func init() {
	safeList = map[string]safeSpec{}
	for _, n := range strings.Fields(`cat head tail wc grep egrep fgrep pwd echo true false : which type stat du df
		printenv whoami id uname basename dirname realpath readlink cut tr diff cmp comm column
		sha1sum sha224sum sha256sum sha384sum sha512sum md5sum b2sum cksum sum test [ seq nl od hexdump
		strings ls sleep tac rev paste jq cd pushd popd`) {
		safeList[n] = safeSpec{anyArgs: true}
	}
	safeList["find"] = safeSpec{check: findCheck}
	safeList["fd"] = safeSpec{check: flagCheck(map[string]string{"-x": "runs a command for each file", "--exec": "runs a command for each file", "-X": "runs a command for each file", "--exec-batch": "runs a command for each file"}, "xX")}
	safeList["rg"] = safeSpec{check: flagCheck(map[string]string{"--pre": "runs a preprocessor command"}, "")}
	safeList["ag"] = safeSpec{check: flagCheck(map[string]string{"--pager": "runs a pager command"}, "")}
	safeList["tree"] = safeSpec{check: flagCheck(map[string]string{"-o": "writes a file", "--output": "writes a file"}, "")}
	safeList["sort"] = safeSpec{check: flagCheck(map[string]string{"-o": "writes a file", "--output": "writes a file", "--compress-program": "runs a compressor command"}, "o")}
	safeList["yq"] = safeSpec{check: flagCheck(map[string]string{"-i": "edits files in place", "--inplace": "edits files in place"}, "i")}
	safeList["file"] = safeSpec{check: flagCheck(map[string]string{"-C": "compiles a magic file", "--compile": "compiles a magic file"}, "C")}
	safeList["uniq"] = safeSpec{check: operandLimit(1, "fsw", "writes its second operand")}
	safeList["xxd"] = safeSpec{check: operandLimit(1, "cglosn", "writes its second operand")}
	safeList["hostname"] = safeSpec{check: func(a []word) string {
		for _, x := range a[1:] {
			if !strings.HasPrefix(x.val, "-") || x.val == "-F" || x.val == "--file" || x.val == "-b" || x.val == "--boot" {
				return "sets the hostname"
			}
		}
		return ""
	}}
	safeList["date"] = safeSpec{check: dateCheck}
	safeList["printf"] = safeSpec{check: func(a []word) string {
		if len(a) > 1 && a[1].val == "-v" {
			return "assigns a shell variable (printf -v)"
		}
		return ""
	}}
	safeList["env"] = safeSpec{check: func(a []word) string {
		// Only reached when env runs no command (peel found none).
		for _, x := range a[1:] {
			if x.val == "-S" || strings.HasPrefix(x.val, "--split-string") {
				return "splits a command line (env -S)"
			}
		}
		return ""
	}}
	safeList["command"] = safeSpec{check: func(a []word) string {
		for _, x := range a[1:] {
			if x.val == "-v" || x.val == "-V" {
				return ""
			}
			if !strings.HasPrefix(x.val, "-") {
				break
			}
		}
		return "runs a command"
	}}
	safeList["git"] = safeSpec{check: gitCheck}
	safeList["go"] = safeSpec{check: goCheck}
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

// flagCheck refuses the listed options (also as --opt=value) and short
// option clusters containing one of the letters in shorts.
func flagCheck(bad map[string]string, shorts string) func([]word) string {
	return func(a []word) string {
		for _, x := range a[1:] {
			v := x.val
			if v == "--" {
				break
			}
			n, _, _ := strings.Cut(v, "=")
			if why, ok := bad[n]; ok {
				return why + " (" + a[0].val + " " + n + " is not read-only)"
			}
			if shorts != "" && len(v) > 1 && v[0] == '-' && v[1] != '-' {
				for j := 1; j < len(v); j++ {
					if strings.IndexByte(shorts, v[j]) >= 0 {
						if why, ok := bad["-"+string(v[j])]; ok {
							return why + " (" + a[0].val + " " + v + " is not read-only)"
						}
					}
				}
			}
		}
		return ""
	}
}

// operandLimit refuses more than max operands (uniq IN OUT writes OUT).
func operandLimit(max int, valued, why string) func([]word) string {
	return func(a []word) string {
		n := 0
		for i := 1; i < len(a); i++ {
			v := a[i].val
			if len(v) > 1 && v[0] == '-' {
				if len(v) == 2 && strings.IndexByte(valued, v[1]) >= 0 {
					i++
				}
				continue
			}
			n++
		}
		if n > max {
			return why
		}
		return ""
	}
}

var findBad = map[string]string{
	"-delete": "deletes files", "-exec": "runs a command for each file", "-execdir": "runs a command for each file",
	"-ok": "runs a command for each file", "-okdir": "runs a command for each file",
	"-fprint": "writes a file", "-fprint0": "writes a file", "-fprintf": "writes a file", "-fls": "writes a file",
}

func findCheck(a []word) string {
	for _, x := range a[1:] {
		if why, ok := findBad[x.val]; ok {
			return why + " (find " + x.val + " is not read-only)"
		}
	}
	return ""
}

func dateCheck(a []word) string {
	for i := 1; i < len(a); i++ {
		v := a[i].val
		switch {
		case v == "-s" || strings.HasPrefix(v, "--set"):
			return "sets the clock (date " + v + " is not read-only)"
		case v == "-d" || v == "-f" || v == "-r" || v == "--date" || v == "--file" || v == "--reference":
			i++
		case strings.HasPrefix(v, "-") || strings.HasPrefix(v, "+"):
		default:
			return "sets the clock (a date operand is not read-only)"
		}
	}
	return ""
}

func goCheck(a []word) string {
	if len(a) < 2 {
		return ""
	}
	switch a[1].val {
	case "version", "doc", "help":
		return ""
	case "env":
		for _, x := range a[2:] {
			if x.val == "-w" || x.val == "-u" {
				return "changes the Go environment (go env " + x.val + " is not read-only)"
			}
		}
		return ""
	case "list":
		for _, x := range a[2:] {
			n, _, _ := strings.Cut(x.val, "=")
			switch n {
			case "-toolexec", "-exec", "-export", "-compiled", "-overlay", "--toolexec":
				return "builds packages (go list " + n + " is not read-only)"
			}
		}
		return ""
	}
	if why, ok := goReasons[a[1].val]; ok {
		return why
	}
	return goReason(a[1].val)
}

func goReason(sub string) string {
	return "is not on the read-only list (go " + sub + " builds, runs or changes things)"
}

// goReasons holds goReason of the go subcommands goCheck refuses most, built
// once instead of on every call.
var goReasons = map[string]string{}

func init() {
	for _, sub := range strings.Fields("build test run install get mod work generate vet fmt fix clean tool bug telemetry") {
		goReasons[sub] = goReason(sub)
	}
}

// gitCheck: the read-only git subcommands, flag-aware.
func gitCheck(a []word) string {
	i := 1
	for i < len(a) {
		v := a[i].val
		switch {
		case v == "-C" || v == "--git-dir" || v == "--work-tree" || v == "--namespace":
			i += 2
			continue
		case strings.HasPrefix(v, "--git-dir=") || strings.HasPrefix(v, "--work-tree=") || strings.HasPrefix(v, "--namespace="):
		case v == "--no-pager" || v == "-P" || v == "--bare" || v == "--no-replace-objects" || v == "--literal-pathspecs" ||
			v == "--glob-pathspecs" || v == "--noglob-pathspecs" || v == "--icase-pathspecs" || v == "--no-optional-locks" || v == "--no-advice":
		case v == "-c" || v == "--config-env" || strings.HasPrefix(v, "--config-env=") || strings.HasPrefix(v, "--exec-path"):
			return "sets git configuration that can run commands (git " + v + " is not read-only)"
		case strings.HasPrefix(v, "-"):
			return "uses git option " + v + " (not on the read-only list)"
		default:
			goto sub
		}
		i++
	}
	return ""
sub:
	sub, rest := a[i].val, a[i+1:]
	switch sub {
	case "status", "log", "show", "diff", "blame", "annotate", "rev-parse", "ls-files", "ls-tree", "cat-file",
		"describe", "shortlog", "grep", "whatchanged", "show-ref", "for-each-ref", "rev-list", "merge-base",
		"name-rev", "count-objects", "check-ignore", "check-attr", "show-branch", "version", "var", "diff-tree", "diff-files", "diff-index":
		for _, x := range rest {
			n, _, _ := strings.Cut(x.val, "=")
			switch n {
			case "--output", "--ext-diff", "--open-files-in-pager", "-O", "--exec", "--upload-pack":
				return "writes a file or runs a command (git " + sub + " " + n + " is not read-only)"
			}
			if sub == "grep" && strings.HasPrefix(x.val, "-O") {
				return "runs a pager command (git grep -O is not read-only)"
			}
		}
		return ""
	case "branch":
		return gitBranch(rest)
	case "remote":
		return gitRemote(rest)
	case "tag":
		return gitTag(rest)
	case "config":
		return gitConfig(rest)
	case "reflog":
		if len(rest) == 0 || rest[0].val == "show" || rest[0].val == "exists" || strings.HasPrefix(rest[0].val, "-") {
			return ""
		}
		return "changes the reflog (git reflog " + rest[0].val + " is not read-only)"
	case "stash":
		if len(rest) > 0 && (rest[0].val == "list" || rest[0].val == "show") {
			return ""
		}
		return "changes the stash (git stash is not read-only)"
	case "worktree":
		if len(rest) > 0 && rest[0].val == "list" {
			return ""
		}
		return "changes worktrees (git worktree is not read-only)"
	}
	return "is not read-only (git " + sub + " is not on the read-only list)"
}

var branchBad = map[byte]string{
	'd': "deletes a branch", 'D': "deletes a branch", 'm': "renames a branch", 'M': "renames a branch",
	'c': "copies a branch", 'C': "copies a branch", 'f': "forces a branch", 'u': "re-points a branch's upstream",
	't': "re-points a branch's upstream", 'e': "edits a branch",
}

var branchLongBad = map[string]string{
	"--delete": "deletes a branch", "--move": "renames a branch", "--copy": "copies a branch", "--force": "forces a branch",
	"--set-upstream-to": "re-points a branch's upstream", "--unset-upstream": "re-points a branch's upstream",
	"--set-upstream": "re-points a branch's upstream", "--track": "re-points a branch's upstream",
	"--no-track": "re-points a branch's upstream", "--edit-description": "opens an editor on a branch description",
	"--create-reflog": "creates a branch", "--recurse-submodules": "creates branches in submodules",
}

func gitBranch(rest []word) string {
	list := false
	names := 0
	for i := 0; i < len(rest); i++ {
		v := rest[i].val
		if v == "--" {
			names += len(rest) - i - 1
			break
		}
		if strings.HasPrefix(v, "--") {
			n, _, eq := strings.Cut(v, "=")
			switch n {
			case "--list", "--all", "--remotes", "--contains", "--no-contains", "--merged", "--no-merged", "--show-current":
				list = true
			case "--points-at", "--sort", "--format":
				list = list || n == "--points-at"
				if !eq {
					i++
				}
			case "--verbose", "--quiet", "--color", "--no-color", "--column", "--no-column", "--ignore-case", "--abbrev", "--no-abbrev", "--omit-empty":
			default:
				why, ok := branchLongBad[n]
				if !ok {
					why = "uses an option that is not read-only"
				}
				return why + " (git branch " + n + " is not read-only)"
			}
			continue
		}
		if len(v) > 1 && v[0] == '-' {
			for j := 1; j < len(v); j++ {
				switch c := v[j]; c {
				case 'a', 'r', 'l':
					list = true
				case 'v', 'q', 'i':
				default:
					why, ok := branchBad[c]
					if !ok {
						why = "uses an option that is not read-only"
					}
					return why + " (git branch " + v + " is not read-only)"
				}
			}
			continue
		}
		names++
	}
	if names > 0 && !list {
		return "creates a branch (a name after git branch creates it unless -l/--list makes it a pattern)"
	}
	return ""
}

func gitRemote(rest []word) string {
	for _, x := range rest {
		v := x.val
		if v == "-v" || v == "--verbose" {
			continue
		}
		switch v {
		case "show", "get-url":
			return ""
		case "add", "remove", "rm", "rename", "set-url", "set-head", "set-branches", "prune", "update":
			return "changes remotes (git remote " + v + " is not read-only)"
		}
		return "is not read-only (git remote " + v + " is not on the read-only list)"
	}
	return ""
}

func gitTag(rest []word) string {
	list := false
	names := 0
	for i := 0; i < len(rest); i++ {
		v := rest[i].val
		if v == "--" {
			names += len(rest) - i - 1
			break
		}
		if strings.HasPrefix(v, "--") {
			n, _, eq := strings.Cut(v, "=")
			switch n {
			case "--list", "--contains", "--no-contains", "--merged", "--no-merged":
				list = true
			case "--points-at", "--sort", "--format":
				list = list || n == "--points-at"
				if !eq {
					i++
				}
			case "--column", "--no-column", "--color", "--no-color", "--ignore-case", "--omit-empty":
			case "--sign", "--local-user":
				return "signs a tag (git tag " + n + " is not read-only)"
			case "--force":
				return "forces a tag (git tag --force is not read-only)"
			case "--delete":
				return "deletes a tag (git tag --delete is not read-only)"
			default:
				return "creates or changes a tag (git tag " + n + " is not read-only)"
			}
			continue
		}
		if len(v) > 1 && v[0] == '-' {
			for j := 1; j < len(v); j++ {
				switch v[j] {
				case 'l':
					list = true
				case 'n':
					list = true
					j = len(v) // -n<num>
				case 'i':
				case 's', 'u':
					return "signs a tag (git tag " + v + " is not read-only)"
				case 'f':
					return "forces a tag (git tag " + v + " is not read-only)"
				case 'd':
					return "deletes a tag (git tag " + v + " is not read-only)"
				default:
					return "creates or changes a tag (git tag " + v + " is not read-only)"
				}
			}
			continue
		}
		names++
	}
	if names > 0 && !list {
		return "creates a tag (a name after git tag creates it unless -l/--list makes it a pattern)"
	}
	return ""
}

func gitConfig(rest []word) string {
	read := false
	names := 0
	for i := 0; i < len(rest); i++ {
		v := rest[i].val
		n, _, eq := strings.Cut(v, "=")
		switch {
		case i == 0 && (v == "get" || v == "list"):
			read = true
		case n == "--get" || n == "--get-all" || n == "--get-regexp" || n == "--get-urlmatch" || n == "--get-color" || n == "--get-colorbool" || v == "--list" || v == "-l":
			read = true
		case n == "--file" || n == "-f" || n == "--blob" || n == "--type" || n == "--default":
			if !eq {
				i++
			}
		case v == "--global" || v == "--system" || v == "--local" || v == "--worktree" || v == "--show-origin" || v == "--show-scope" ||
			v == "--name-only" || v == "--null" || v == "-z" || v == "--includes" || v == "--no-includes" || v == "--bool" || v == "--int" ||
			v == "--path" || v == "--bool-or-int" || v == "--expiry-date":
		case strings.HasPrefix(v, "-"):
			return "writes git configuration (git config " + n + " is not read-only)"
		default:
			names++
		}
	}
	if read || names == 1 {
		return ""
	}
	if names == 0 {
		return "is not read-only (git config without --get or --list)"
	}
	return "writes git configuration (git config NAME VALUE is not read-only)"
}
