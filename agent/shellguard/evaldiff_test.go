package shellguard

import (
	"context"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

// evalDiff is the differential test of static evaluation against the real
// bash: for each word list, the values the guard claims to know (quote
// removal, $'…', brace expansion, ~ and $HOME, ${HOME%…} trimming,
// variables and arrays assigned earlier, $(printf …), $(echo … | base64 -d),
// IFS splitting) must equal what bash makes of the same words.
//
// Bash only evaluates the words — `set -- WORDS; printf '%s\0' "$@"` —
// and the substitutions in them run echo, printf and base64 alone: nothing
// here runs a command the words spell.
var evalDiff = []struct {
	pre   string // statements before (assignments)
	words string
	known bool // the guard must know every word (else: only compared when known)
}{
	{"", `r''m r""m "r"m \rm r\m 'rm' "rm"`, true},
	{"", `$'\x72m' $'\162\155' $'\u0072m' $'\U00000072m' $'\x2f' $'\057'`, true},
	{"", `$'rm\x00x' $'a\tb' $'\'' $'\\' $'\e' $'\a'`, true},
	{"", `{rm,-rf,/} /{bin,etc} {/,x} /{,usr} a{b,c}d`, true},
	{"", `~ ~/ ~/x ~/.. "~" '~' \~ x~`, true},
	{"", `$HOME "$HOME" ${HOME} "${HOME}/" $HOME/..`, true},
	{"", `${HOME%/*} ${HOME%%/*} ${HOME#/} ${HOME##*/} ${HOME%u} ${HOME#*/}`, true},
	{"", `"$(printf '\x72\x6d')" $(printf '%s' rm) $(echo rm) "$(printf '\057')" $(printf 'r\155')`, true},
	{"", `$(echo cm0= | base64 -d) "$(base64 -d <<< cm0gLXJmIC8=)" $(echo 726d | xxd -r -p)`, false},
	{"", `$(printf '%b' '\0162\0155') $(echo -e '\x72m') $(echo -n rm) $(printf '%c%c' r m)`, true},
	{"", `$(echo a b) "$(echo a b)" $(printf 'a\nb')`, true},
	{"X=/ Y=rm", `$X "$X" $Y$X "${X}x" ${X:-y} ${X-y} "${X:+a b}" ${X:+a}`, true},
	{"", `${Z:-/} ${Z-~}`, false}, // Z may be in the environment: not known
	{"X=rm,-rf,/ IFS=,", `$X`, true},
	{"a=(rm -rf /)", `"${a[@]}" ${a[*]} "${a[0]}" ${a[2]}`, true},
	{"set -- rm -rf /", `"$@" $1 "$3"`, true},
	{"printf -v X '\\x72\\x6d'", `$X`, true},
	{"read -r A B <<< 'rm -rf'", `$A $B`, true},
	{"", `"a"'b'c "\$x" '\n' "a\"b" "a\\b" a\ b`, true},
	{"", `{a..c} {1..3} ${HOME/u/x} $((1+2)) ${#HOME} $'\cA' "${HOME:1:3}" ${HOME^^}`, false},
	{"", `$(which rm) $(command -v rm) $(dirname /a/b/c) "$(dirname ~)"`, true},
}

func TestStaticEvalMatchesBash(t *testing.T) {
	bash := bashPath(t)
	c := newTest(t, Config{})
	for _, tc := range evalDiff {
		script := tc.words
		if tc.pre != "" {
			script = tc.pre + "; " + tc.words
		}
		want := bashWords(t, bash, tc.pre, tc.words)
		got, known := guardWords(t, c, tc.pre, tc.words)
		if !known {
			if tc.known {
				t.Errorf("%s: the guard does not know every word (got %q), bash gives %q", script, got, want)
			}
			continue
		}
		// which and command -v print a path the guard writes as
		// /usr/bin/NAME: compare the program's base name.
		norm := func(s []string) []string {
			out := slices.Clone(s)
			for i, v := range out {
				if strings.HasSuffix(v, "/rm") {
					out[i] = "rm"
				}
			}
			return out
		}
		if !slices.Equal(norm(got), norm(want)) {
			t.Errorf("%s:\n guard %q\n bash  %q", script, got, want)
		}
	}
}

// bashWords is what bash makes of words after pre: set -- WORDS and print
// each positional parameter NUL-terminated.
func bashWords(t *testing.T, bash, pre, words string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	script := "set -- " + words + `; printf '%s\0' "$@"`
	if pre != "" {
		script = pre + "\n" + script
	}
	cmd := exec.CommandContext(ctx, bash, "--norc", "--noprofile", "-c", script)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LC_ALL=C", "HOME=" + testHome}
	cmd.Dir = t.TempDir()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bash -c %q: %v", script, err)
	}
	s := strings.TrimSuffix(string(out), "\x00")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\x00")
}

// guardWords evaluates words after pre with the classifier's walker, as
// Classify does, and reports whether it knows every value.
func guardWords(t *testing.T, c *Classifier, pre, words string) ([]string, bool) {
	t.Helper()
	src := "echo " + words
	if pre != "" {
		src = pre + "\n" + src
	}
	f, err := parse(src)
	if err != nil {
		t.Fatalf("parse %q: %v", src, err)
	}
	w := &walker{c: c, src: src, cwd: c.root}
	w.res.Segments = w.segBuf[:0]
	w.words = w.wordBuf[:0]
	n := len(f.Stmts)
	w.stmts(f.Stmts[:n-1], ctx{})
	ce := f.Stmts[n-1].Cmd.(*syntax.CallExpr)
	ws, mark := w.evalWords(ce.Args[1:], ctx{})
	defer w.popWords(mark)
	var out []string
	known := true
	for _, a := range ws {
		if !a.known {
			known = false
		}
		out = append(out, a.val)
	}
	return out, known
}
