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

// noReadCmds print or test their operands' names, never the files' contents
// (echo .env >> .gitignore, test -f .env, ls .env*).
var noReadCmds = map[string]bool{"echo": true, "printf": true, "test": true, "[": true, "ls": true, "stat": true}

// NamesOnly reports whether a command (its name, argv[0]) only prints or
// tests its operands' names and never reads the files (echo, printf, test,
// [, ls, stat): a secrets file it names is not refused.
func NamesOnly(argv0 string) bool {
	if i := strings.LastIndexByte(argv0, '/'); i >= 0 {
		argv0 = argv0[i+1:]
	}
	return noReadCmds[argv0]
}

// secretArgs marks seg as the secret-file floor when one of argv's words
// names a secrets file.
func (w *walker) secretArgs(seg *Segment, argv []word, in segIn, lt *lazyText) {
	if seg.Verdict == Floor || len(argv) == 0 || in.expr || noReadCmds[cmdName(argv[0])] {
		return
	}
	code := codeCmds[strings.TrimRight(cmdName(argv[0]), "0123456789.")]
	for _, a := range argv {
		name := secretWord(a)
		if name == "" && code {
			name = secretToken(a)
		}
		if name != "" {
			seg.Verdict, seg.Shape = Floor, ShapeSecretFile
			seg.Reason = "floor: " + quote(lt.get()) + " names the secrets file " + name + ": " + secret.FileRefusal
			return
		}
	}
}

// codeCmds take program text as arguments (python -c, node -e, awk and sed
// scripts): a secrets file named anywhere inside such a word counts, as in
// python3 -c 'print(open(".env").read())'. (A version suffix is ignored:
// python3.12.)
var codeCmds = map[string]bool{"python": true, "node": true, "nodejs": true, "ruby": true, "perl": true, "php": true,
	"deno": true, "bun": true, "awk": true, "gawk": true, "mawk": true, "nawk": true, "sed": true, "jq": true, "lua": true,
	"osascript": true, "pwsh": true, "tclsh": true, "Rscript": true}

// secretToken returns a secrets file named by one of the tokens of a
// program text: the runs of characters a path can hold unquoted.
func secretToken(a word) string {
	v := a.val
	if !a.known {
		v = a.text
	}
	for _, tok := range strings.FieldsFunc(v, func(r rune) bool {
		return !(r == '.' || r == '_' || r == '-' || r == '/' || r == '*' || r == '?' || r == '[' || r == ']' ||
			r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) {
		if name := secretPath(tok, true, true); name != "" {
			return name
		}
	}
	return ""
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
	if name == "" {
		return
	}
	text := w.redirText(rd)
	w.res.Segments = append(w.res.Segments, Segment{Raw: text, Redirects: []string{text}, Verdict: Floor, Shape: ShapeSecretFile,
		Reason: "floor: " + quote(text) + " reads the secrets file " + name + ": " + secret.FileRefusal})
	w.top = Floor
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
	if v == "" {
		return ""
	}
	if name := secretPath(v, a.known, a.glob); name != "" {
		return name
	}
	if i := strings.IndexByte(v, '='); i >= 0 {
		if name := secretPath(v[i+1:], a.known, a.glob); name != "" {
			return name
		}
	}
	if v[0] == '@' {
		if name := secretPath(v[1:], a.known, a.glob); name != "" {
			return name
		}
	}
	if i := strings.LastIndexByte(v, ':'); i >= 0 && !strings.Contains(v, "://") {
		return secretPath(v[i+1:], a.known, a.glob)
	}
	return ""
}

// secretPath judges one path: its last element is a secrets file's name
// or a glob that can match one, or it is a /proc environ or mem file. An
// element the guard could not evaluate ("$F", "${F:-.env}") names one when
// its text mentions ".env".
func secretPath(p string, known, glob bool) string {
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
		el = strings.NewReplacer(`"`, "", `'`, "").Replace(el)
	}
	if secret.FileName(el) {
		return el
	}
	if (glob || !known) && strings.ContainsAny(el, "*?[") && secret.GlobMayName(el) {
		return el
	}
	return ""
}
