package permission

import (
	"strings"
	"testing"
)

// FuzzParseRule checks that ParseRule never panics, that a parsed rule is
// well formed and that its Spec parses back to the same rule.
func FuzzParseRule(f *testing.F) {
	for _, s := range []string{
		"Bash(git push:*)", "Edit(src/**)", "Read(*.md)", "bash", "Bash()", "mcp(github/*)",
		"external_directory(/tmp/**)", "*", "Edit([)", "Bash(echo (x))", "(", ")", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRule(s, Ask, userCfg)
		if err != nil {
			if !strings.Contains(err.Error(), "permission: parse rule") {
				t.Fatalf("error %q lacks the prefix", err)
			}
			return
		}
		if r.Key == "" || r.Pattern == "" || r.Key != strings.ToLower(r.Key) {
			t.Fatalf("ParseRule(%q) = %+v", s, r)
		}
		m, err := compile(r.Key, r.Pattern)
		if err != nil {
			t.Fatalf("parsed rule does not compile: %v", err)
		}
		_ = m.match(s)
		back, err := ParseRule(r.Spec(), Ask, userCfg)
		if err != nil {
			t.Fatalf("ParseRule(%q).Spec() = %q does not parse: %v", s, r.Spec(), err)
		}
		if back.Key != r.Key || back.Pattern != r.Pattern {
			t.Fatalf("round trip %q → %+v → %q → %+v", s, r, r.Spec(), back)
		}
	})
}
