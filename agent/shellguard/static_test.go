package shellguard

import (
	"os/exec"
	"strings"
	"testing"
)

// bashOut runs script with the real bash and returns its standard output.
func bashOut(t *testing.T, bash, script string) string {
	t.Helper()
	cmd := exec.Command(bash, "-c", script)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LC_ALL=C.UTF-8"}
	out, err := cmd.Output()
	if err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatalf("run bash: %v", err)
		}
	}
	return string(out)
}

// shQuote quotes s for bash with single quotes.
func shQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// TestStaticMatchesBash: what the guard claims about printf, echo, $'…' and
// the literal decoders is exactly what the real bash and coreutils print.
// A case the guard declines (not static) is fine; a wrong value is not.
func TestStaticMatchesBash(t *testing.T) {
	bash := bashPath(t)
	escapes := []string{
		`\x72\x6d -rf /`, `\162\155`, `\0162`, `\01623`, `\u0072\u006d`, `\U00000072`, `\u00e9\u20ac`, `\x41\x4`, `\x4g`, `\xg`,
		`a\tb\nc`, `\a\b\e\E\f\r\v`, `\\`, `\'`, `\"`, `\?`, `\c`, `ab\cde`, `\q\z`, `\777`, `\8`, `\u`, `\U`, `\x`, `%%`, `100%%`,
		`\0`, `\00`, `\000`, `\0000`, `\1`, `\12`, `\123`, `\1234`, `x\`, `\u0041B`, `\x7f`, `\xff`, `\uD800`, `\U110000`, `\U7FFFFFFF`, `\U80000000`, `\U00200000`, `\U04000000`, `\U0010FFFF`, `\u07ff`,
	}
	var cases []string // bash command lines
	for _, e := range escapes {
		cases = append(cases,
			"printf "+shQuote(e),
			"printf %b "+shQuote(e),
			"printf '%s|%b' "+shQuote(e)+" "+shQuote(e),
			"echo -e "+shQuote(e),
			"echo "+shQuote(e),
			"echo -n -e "+shQuote(e),
			"echo -ne "+shQuote(e)+" x",
			"echo -eE "+shQuote(e),
		)
		if !strings.Contains(e, "'") && !strings.HasSuffix(e, `\`) {
			cases = append(cases, "printf '%s' $'"+e+"'")
		}
	}
	for _, c := range []string{
		"printf '%s-%s\\n' a b c", "printf '%d %i %u' 42 -7 9", "printf '%x %X %o' 255 255 8", "printf '%#x %#o' 255 8",
		"printf '%5s|%-5s|' ab cd", "printf '%.2s' abcdef", "printf '%05d' 42", "printf '%+d % d' 5 5", "printf '%c' hello",
		"printf '%s'", "printf '%d'", "printf '%s %s' a", "printf 'x'", "printf 'x' a b", "printf '%*s|' 4 a", "printf '%.*s' 2 abc",
		"printf '%d' 0x1f", "printf '%d' 010", "printf '%d' \"'A\"", "printf '%d' -0x10", "printf '%5.2d' 3", "printf '%ld' 7",
		"printf '%s\\n' r m", "printf -- '%s' x", "printf '%b' 'a\\cb' c", "printf '%s %b' x 'y\\c' z", "printf '%x' -1",
		"printf '%u' -1", "printf '%q' a", "printf '%f' 1", "printf '%d' abc", "printf '%s' '' ''", "printf '\\n\\n'",
		"echo", "echo -n", "echo -e", "echo -x a", "echo -- a", "echo -n -n a", "echo -enE a\\\\tb", "echo a  b", "echo -e 'a\\0101b'",
		"echo cm0gLXJmIC8= | base64 -d", "base64 -d <<< cm0gLXJmIC8=", "echo 'cm0g\nLXJm' | base64 --decode", "echo cm0 | base64 -d",
		"echo '!!!' | base64 -d", "echo ORSXG5A= | base64 -d", "echo ORSXG5A= | base32 -d", "echo 726d202d7266 | xxd -r -p",
		"echo '72 6d 20' | xxd -r -p", "echo 7g | xxd -r -p", "echo abc | rev", "printf 'ab\\ncd' | rev", "echo héllo | rev",
		"printf x | cat", "cat <<< hi", "cat <<EOF\na b\nEOF", "echo $(printf 'a\\n\\n')x", "echo \"$(printf 'a\\n\\n')\"x",
		"printf 'H4sIAAAAAAAAA8vNzzPU0dVXqFGo0QcAkyNh+goAAAA=' | base64 -d | gunzip", "echo -n rm | base64 | base64 -d",
	} {
		cases = append(cases, c)
	}
	evaluated := 0
	for _, c := range cases {
		want := bashOut(t, bash, c)
		f, err := parse(c)
		if err != nil || len(f.Stmts) != 1 {
			t.Fatalf("parse %q: %v", c, err)
		}
		w := &walker{c: newTest(t, Config{}), src: c}
		got, ok := w.stageOut(f.Stmts[0], "", false)
		if !ok {
			continue // declined: not static
		}
		evaluated++
		if got != want {
			t.Errorf("%s\n guard %q\n  bash %q", c, got, want)
		}
	}
	// Declining is allowed, but the comparison must cover nearly everything.
	if evaluated < len(cases)*9/10 {
		t.Errorf("the guard evaluated only %d of %d cases", evaluated, len(cases))
	}
	t.Logf("%d of %d cases evaluated, all equal to bash", evaluated, len(cases))
	// Command substitution: trailing newlines and NUL bytes dropped.
	for _, c := range []string{"x$(printf 'a\\n\\n\\n')y", "x$(printf 'a\\0b')y", "$'a\\x00b'c", "\"$(echo ' /')\""} {
		want := bashOut(t, bash, "printf '%s' "+c)
		f, err := parse("printf '%s' " + c)
		if err != nil {
			t.Fatal(err)
		}
		w := &walker{c: newTest(t, Config{}), src: "printf '%s' " + c}
		got, ok := w.stageOut(f.Stmts[0], "", false)
		if !ok || got != want {
			t.Errorf("%s: guard %q (%v), bash %q", c, got, ok, want)
		}
	}
}
