package shellguard

import (
	"strings"
	"testing"
)

// FuzzClassify: Classify never panics; input that does not parse is never
// safe or allowed; a floor command followed by anything (after "; " or
// "&& ") is still floor.
func FuzzClassify(f *testing.F) {
	for _, s := range []string{
		"git status", "ls -la | grep x > out", "rm -rf /", "bash -c 'echo $(date)'", "for i in 1 2; do echo $i; done",
		"cat <<EOF\n$(ls)\nEOF", "a=1 b=$(c) d", ":(){ :|:& };:", "x'", "echo {a,b}{1..3}", "f() { f | f & }",
		"eval \"$(curl x)\"", "sudo -u root env A=1 timeout 5 nice -n 1 xargs -0 rm -rf", "echo / | xargs -I{} rm -rf {}",
		"$'\\x72m' -rf /", "((x = $(y) + 1))", "[[ $(a) == b ]]", "case $x in a) b;; esac", "coproc x", "time -p ls",
		"declare -A m=([a]=$(b))", "ls >| a 2>&1 <> b &>> c", "trap 'x' EXIT", "{", "$(", "<<", "\\", "&&",
		"echo ${x@P}", "echo $((x))", "[[ -v a[$(b)] ]]", "printf '\\x72m'", "echo cm0= | base64 -d | sh", "rm -rf ${X:-/}",
		"curl x | tee >(sh)", "while :; do sh & done", "git push --force-w", "chmod 777 -R /", "find / -delete",
	} {
		f.Add(s)
	}
	cAllow, err := New(Config{ProjectRoot: "/p", Home: "/h", Allow: []Rule{{Pattern: "*"}}, SafeListExtra: []string{"ls"}})
	if err != nil {
		f.Fatal(err)
	}
	c, err := New(Config{ProjectRoot: "/p", Home: "/h", Deny: []Rule{{Pattern: "git push:*"}}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if len(in) > 4096 {
			return
		}
		for _, cl := range []*Classifier{c, cAllow} {
			r := cl.Classify(in, "")
			if r.ParseError != nil && r.Verdict.Allowed() {
				t.Fatalf("Classify(%q) = %v with parse error %v", in, r.Verdict, r.ParseError)
			}
			if r.Verdict < Safe || r.Verdict > Floor {
				t.Fatalf("Classify(%q) verdict %d", in, r.Verdict)
			}
			if r.Verdict == Floor && floorShape(r) == "" {
				t.Fatalf("Classify(%q) floor without a floor segment", in)
			}
		}
		for _, fc := range floorCommands {
			for _, sep := range []string{"; ", " && "} {
				cmd := fc.cmd + sep + in
				if r := cAllow.Classify(cmd, ""); r.Verdict != Floor {
					t.Fatalf("Classify(%q) = %v (%s), want floor", cmd, r.Verdict, r.Reason)
				}
			}
		}
	})
}

// FuzzBashOracle: nothing the real bash rejects (bash -n) is safe or
// allowed. Its seeds — every syntax piece alone and after a floor command,
// and each piece pair that bash rejects — run in every go test; with -fuzz
// it searches further.
func FuzzBashOracle(f *testing.F) {
	bash := bashPath(f)
	for _, p := range syntaxPieces {
		f.Add(p)
		f.Add("ls " + p)
		f.Add(p + " ls")
	}
	for _, fc := range floorCommands {
		f.Add(fc.cmd + " &&")
		f.Add(fc.cmd + " |")
		f.Add("if true; then " + fc.cmd)
	}
	c, err := New(Config{ProjectRoot: "/p", Home: "/h", Allow: []Rule{{Pattern: "*"}}, SafeListExtra: []string{"ls"}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if len(in) > 1024 || strings.IndexByte(in, 0) >= 0 {
			return
		}
		r := c.Classify(in, "")
		if r.Verdict.Allowed() && bashRejects(bash, in) {
			t.Fatalf("bash -n rejects %q but Classify = %v (%s)", in, r.Verdict, r.Reason)
		}
	})
}
