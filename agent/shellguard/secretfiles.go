package shellguard

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/oceancode/oceancode/internal/secret"
)

// ShapeSecretFile is the floor shape of a segment that names a secrets file
// (.env, *.env, *.env.* other than .env.example/.sample/.template) or a
// /proc/<pid>/environ or /proc/<pid>/mem file: as an argument, through a
// glob that can match one, or as an input redirection's target. The read
// tool refuses those files, and so does the shell, under every mode and
// rule: agent/gate turns the verdict into the read tool's own refusal.
//
// The guard reads no files, so a glob is judged by its text (see
// secret.GlobMayName): .e*, *env*, .[e]nv are refused; *, *.go are not.
const ShapeSecretFile = "secret-file"

// noReadCmds print, test or change the metadata of their operands, never
// reading the files' contents out (echo .env >> .gitignore, test -f .env,
// ls .env*, chmod 600 .env, rm .env). mv, cp and ln are not among them: a
// secrets file under another name reads like any file. find is, unless it
// runs something (-exec, -ok, …) or prints into a file.
var noReadCmds = map[string]bool{"echo": true, "printf": true, "test": true, "[": true, "ls": true, "stat": true,
	"file": true, "du": true, "chmod": true, "chown": true, "chgrp": true, "touch": true, "rm": true, "rmdir": true,
	"mkdir": true, "find": true}

// namesOnly is NamesOnly for a segment's words.
func namesOnly(argv []word) bool {
	return namesOnlyAt(cmdName(argv[0]), len(argv), func(i int) (string, bool) { return argv[i].val, argv[i].known })
}

// namesOnlyAt is namesOnly for a command name and n words read with at.
func namesOnlyAt(name string, n int, at func(int) (string, bool)) bool {
	if !noReadCmds[name] {
		return false
	}
	for i := 1; i < n; i++ {
		v, known := at(i)
		// A list of names read from a file prints its lines (file -f .env,
		// du --files0-from=.env): that is reading it.
		if strings.Contains(v, "files0-from") || strings.Contains(v, "files-from") || name == "file" && strings.HasPrefix(v, "-f") {
			return false
		}
		if name != "find" {
			continue
		}
		switch v {
		case "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls":
			return false
		}
		if !known {
			return false
		}
	}
	return true
}

// patternFirst take a pattern or filter before their files (grep KEY .env,
// jq .env x.json): a name there is a pattern, not a file.
var patternFirst = map[string]bool{"grep": true, "egrep": true, "fgrep": true, "zgrep": true, "rg": true, "ag": true,
	"ack": true, "jq": true, "yq": true}

// patternWord returns the index of the pattern word of a patternFirst
// command (-1 if it has none: -e and -f give the patterns). A short option
// of these programs that takes a value (-A 3, -m 1, -g '*.go') skips that
// value; an option misread here only makes a file be judged, never a
// pattern.
func patternWord(argv []word) int {
	if !patternFirst[cmdName(argv[0])] {
		return -1
	}
	for i := 1; i < len(argv); i++ {
		v := argv[i].val
		switch {
		case !argv[i].known:
			return -1
		case v == "--":
			if i+1 < len(argv) {
				return i + 1
			}
			return -1
		case v == "-e" || v == "-f" || v == "--regexp" || v == "--file" || strings.HasPrefix(v, "--regexp=") ||
			strings.HasPrefix(v, "--file=") || len(v) > 2 && (v[:2] == "-e" || v[:2] == "-f"):
			return -1 // the patterns come from options: every operand is a file
		case len(v) == 2 && v[0] == '-' && strings.IndexByte("ABCmgtTMjrd", v[1]) >= 0:
			i++ // its value
		case strings.HasPrefix(v, "-") && len(v) > 1:
		default:
			return i
		}
	}
	return -1
}

// NamesOnly reports whether a command (its words after wrappers are
// peeled) never reads its operands' contents out (echo, printf, test, ls,
// stat, chmod, rm, find without -exec, …): a secrets file it names is not
// refused.
func NamesOnly(argv []string) bool {
	if len(argv) == 0 {
		return false
	}
	return namesOnlyAt(base(argv[0]), len(argv), func(i int) (string, bool) { return argv[i], true })
}

// secretArgs marks seg as the secret-file floor when one of argv's words
// names a secrets file, or a path in a secrets directory (see
// secretDirArg).
func (w *walker) secretArgs(seg *Segment, argv []word, in segIn, lt *lazyText, cwd string) {
	if seg.Verdict == Floor || len(argv) == 0 || in.expr || namesOnly(argv) {
		return
	}
	if len(w.c.dirs) > 0 {
		if p, dir := w.secretDirArg(argv, cwd); p != "" {
			seg.Verdict, seg.Shape = Floor, ShapeSecretFile
			seg.Reason = "floor: " + quote(lt.get()) + " reads " + p + secretDirWhy(p, dir) + ": " + secret.FileRefusal
			return
		}
	}
	if plainWords(argv) {
		return
	}
	name0 := strings.TrimRight(cmdName(argv[0]), "0123456789.")
	code, pat := codeCmds[name0], patternWord(argv)
	for i, a := range argv {
		if i == pat {
			continue
		}
		var name string
		switch {
		case code && i > 0 && name0 == "sed":
			name = secretToken(a, false)
		case code && i > 0 && strings.ContainsAny(a.val, "()[]{};\"'` =<>|&,"):
			name = secretToken(a, true) // program text, not a file name
		default:
			name = secretWord(a)
		}
		if name != "" {
			seg.Verdict, seg.Shape = Floor, ShapeSecretFile
			seg.Reason = "floor: " + quote(lt.get()) + " names the secrets file " + name + ": " + secret.FileRefusal
			return
		}
	}
}

// plainWords reports whether no word of argv can name a secrets file
// whichever way secretArgs reads it: every word is known and fails
// maySpellSecret. secretWord and secretToken only judge a known word's
// value or substrings of it with secretPath, which needs "env", a glob
// metacharacter or "/proc/" in what it judges — so in the whole value.
// Most commands are plain: this spares them the per-command lookups.
func plainWords(argv []word) bool {
	for i := range argv {
		if !argv[i].known || maySpellSecret(argv[i].val) {
			return false
		}
	}
	return true
}

// codeCmds take program text as arguments (python -c, node -e, awk and sed
// scripts): a secrets file named in a string literal of such a word counts,
// as in python3 -c 'print(open(".env").read())' — but not process.env.HOME
// (sed scripts have no quotes: every path-like token of one counts, as
// in sed 'r .env'). A version suffix is ignored: python3.12.
var codeCmds = map[string]bool{"python": true, "node": true, "nodejs": true, "ruby": true, "perl": true, "php": true,
	"deno": true, "bun": true, "awk": true, "gawk": true, "mawk": true, "nawk": true, "sed": true, "jq": true, "lua": true,
	"osascript": true, "pwsh": true, "tclsh": true, "Rscript": true}

// secretToken returns a secrets file named in a program text: by one of
// its string literals ('…', "…", `…`) when quoted, else by any run of the
// characters a path can hold unquoted.
func secretToken(a word, quoted bool) string {
	v := a.val
	if !a.known {
		v = a.text
	}
	if quoted {
		for i := 0; i < len(v); i++ {
			q := v[i]
			if q != '\'' && q != '"' && q != '`' {
				continue
			}
			j := strings.IndexByte(v[i+1:], q)
			if j < 0 {
				break
			}
			if name := secretPath(v[i+1:i+1+j], true); name != "" {
				return name
			}
			i += j + 1
		}
		return ""
	}
	for _, tok := range strings.FieldsFunc(v, func(r rune) bool {
		return !(r == '.' || r == '_' || r == '-' || r == '/' || r == '*' || r == '?' || r == '[' || r == ']' ||
			r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) {
		if name := secretPath(tok, true); name != "" {
			return name
		}
	}
	return ""
}

// secretDirArg returns the first word of argv (resolved against cwd) that
// is in one of the classifier's secrets directories, or that is a
// directory above one which the command walks (recursiveReader), with the
// secrets directory; "" when none. A word after "=" (--file=…, if=…)
// counts as a path too.
func (w *walker) secretDirArg(argv []word, cwd string) (string, string) {
	rec := recursiveReader(argv)
	for _, a := range argv[1:] {
		if !a.known || a.val == "" {
			continue
		}
		for _, v := range [2]string{a.val, afterEq(a.val)} {
			if v == "" || v[0] != '/' && !strings.Contains(v, "/") && v != "." && v != ".." {
				continue
			}
			p := resolveIn(v, cwd)
			if p == "" {
				continue
			}
			for _, d := range w.c.dirs {
				if secret.UnderDir(p, d) || rec && secret.UnderDir(d, p) {
					return p, d
				}
			}
		}
	}
	return "", ""
}

// afterEq is what follows a word's first '=' ("" when none).
func afterEq(v string) string {
	if _, after, ok := strings.Cut(v, "="); ok {
		return after
	}
	return ""
}

// secretDirWhy says how a path meets a secrets directory.
func secretDirWhy(p, dir string) string {
	if secret.UnderDir(p, dir) {
		return " (in oceancode's state or config directory " + dir + ")"
	}
	return " (it walks oceancode's state or config directory " + dir + ")"
}

// recursiveReader reports whether a command (not names-only) reads the
// files below a directory it is given: find (running something on them),
// grep -r and its kin, rg, ag, ack, tar, zip -r, cp -r/-a, scp -r,
// rsync, cpio, pax, 7z.
func recursiveReader(argv []word) bool {
	switch name := cmdName(argv[0]); name {
	case "find", "rg", "ag", "ack", "tar", "bsdtar", "rsync", "zip", "7z", "cpio", "pax":
		return true
	case "grep", "egrep", "fgrep", "zgrep", "cp", "scp":
		for _, a := range argv[1:] {
			v := a.val
			if !a.known {
				return true
			}
			if strings.HasPrefix(v, "--") {
				if v == "--recursive" || v == "--dereference-recursive" || v == "--archive" || v == "--directories=recurse" {
					return true
				}
				continue
			}
			if len(v) > 1 && v[0] == '-' && strings.ContainsAny(v[1:], "rRa") {
				return true
			}
		}
	}
	return false
}

// secretRedirect adds a secret-file floor segment for an input redirection
// (<, <>, <&) whose target names a secrets file.
func (w *walker) secretRedirect(rd *syntax.Redirect, target word) {
	switch rd.Op {
	case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn:
	default:
		return
	}
	if target.known && rd.Op == syntax.DplIn && isFD(target.val) {
		return
	}
	name := secretWord(target)
	if name == "" && target.known && target.val != "" {
		if p := resolveIn(target.val, w.cwd); p != "" {
			for _, d := range w.c.dirs {
				if secret.UnderDir(p, d) {
					name = p
				}
			}
		}
	}
	if name == "" {
		return
	}
	text := w.redirText(rd)
	w.res.Segments = append(w.res.Segments, Segment{Raw: text, Redirects: []string{text}, Verdict: Floor, Shape: ShapeSecretFile,
		Reason: "floor: " + quote(text) + " reads the secrets file " + name + ": " + secret.FileRefusal})
	w.top = Floor
}

// secretShellArgs adds a secret-file floor segment when an argument after
// a shell's -c script — $0, $1, … inside it — names a secrets file
// (sh -c 'cat "$0"' .env).
func (w *walker) secretShellArgs(args []word, raw string) {
	for _, a := range args {
		if name := secretWord(a); name != "" {
			w.res.Segments = append(w.res.Segments, Segment{Raw: raw, Verdict: Floor, Shape: ShapeSecretFile,
				Reason: "floor: " + quote(raw) + " passes the secrets file " + name + " to its script: " + secret.FileRefusal})
			w.top = Floor
			return
		}
	}
}

// secretWord returns the secrets file a word names ("" if none): its value,
// or for a word the guard cannot evaluate its source text, as a whole and
// after "=" (--env-file=.env, if=.env), "@" (curl -d @.env) and ":"
// (git show HEAD:.env).
func secretWord(a word) string {
	v := a.val
	if !a.known {
		v = a.text
	}
	if v == "" || a.known && !maySpellSecret(v) {
		return ""
	}
	if name := secretPath(v, a.known); name != "" {
		return name
	}
	if i := strings.IndexByte(v, '='); i >= 0 {
		if name := secretPath(v[i+1:], a.known); name != "" {
			return name
		}
	}
	if v[0] == '@' {
		if name := secretPath(v[1:], a.known); name != "" {
			return name
		}
	}
	if i := strings.LastIndexByte(v, ':'); i >= 0 && !strings.Contains(v, "://") {
		return secretPath(v[i+1:], a.known)
	}
	return ""
}

// secretPath judges one path: its last element is a secrets file's name
// or a glob that can match one, or it is a /proc environ or mem file. An
// element the guard could not evaluate ("$F", "${F:-.env}") names one when
// its text mentions ".env".
func secretPath(p string, known bool) string {
	if known && strings.HasPrefix(p, "/proc/") && secret.ProcFile(p) {
		return p
	}
	if !known && strings.HasPrefix(p, "/proc/") {
		el := strings.Split(strings.TrimRight(p, "/"), "/")
		if last := el[len(el)-1]; (last == "environ" || last == "mem") && (len(el) == 4 || len(el) == 6 && el[3] == "task") {
			return p
		}
	}
	el := strings.TrimRight(p, "/")
	if i := strings.LastIndexByte(el, '/'); i >= 0 {
		el = el[i+1:]
	}
	if el == "" || known && strings.ContainsAny(el, " \t\n") {
		return "" // a sentence, not a file name ("git commit -m 'ignore .env.local'")
	}
	if !known {
		if strings.ContainsAny(el, "$`") {
			if strings.Contains(strings.ToLower(el), ".env") {
				return el
			}
			return ""
		}
		el = dropQuotes.Replace(el)
	}
	if secret.FileName(el) {
		return el
	}
	// A glob even when quoted: find -name '.e*', a quoted word a program
	// expands itself.
	if strings.ContainsAny(el, "*?[") && secret.GlobMayName(el) {
		return el
	}
	return ""
}

// dropQuotes removes the quotes left in an unevaluated word's text.
var dropQuotes = strings.NewReplacer(`"`, "", `'`, "")

// maySpellSecret is the cheap first test for a known word: every name
// secretPath accepts contains "env" (.env, x.env, .env.local, environ), a
// glob metacharacter or "/proc/" (…/mem). Most words have none of them, and
// the shell guard asks this of every word of every command.
func maySpellSecret(v string) bool {
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '*', '?', '[':
			return true
		case 'e', 'E':
			if i+3 <= len(v) && strings.EqualFold(v[i:i+3], "env") {
				return true
			}
		case '/':
			if strings.HasPrefix(v[i:], "/proc/") {
				return true
			}
		}
	}
	return false
}
