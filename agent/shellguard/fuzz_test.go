package shellguard

import (
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
