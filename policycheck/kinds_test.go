package policycheck

import (
	"regexp"
	"strings"
	"testing"
)

func TestGlob(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		pattern, s string
		want       bool
	}{
		{"anthropic/claude-*", "anthropic/claude-sonnet-4-5", true},
		{"anthropic/claude-*", "anthropic/claude-", true},
		{"anthropic/claude-*", "anthropic/claude", false},
		{"anthropic/claude-*", "xanthropic/claude-x", false},
		{"corp/*", "corp/qwen/qwen3", true}, // * crosses "/"
		{"*", "", true},
		{"", "", true},
		{"", "a", false},
		{"a*b*c", "aXbYbZc", true},
		{"a*b*c", "aXbYbZ", false},
		{"ci-*.example.com", "ci-12.example.com", true},
		{"ci-*.example.com", "ci-12.example.org", false},
		{"**", "x", true},
		{"a?", "a?", true}, // only * is special
		{"a?", "ab", false},
	} {
		if got := Glob(c.pattern, c.s); got != c.want {
			t.Errorf("Glob(%q, %q) = %v, want %v", c.pattern, c.s, got, c.want)
		}
	}
}

func TestHostMatches(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		entry, host string
		port        uint16
		want        bool
	}{
		{"llm.corp.example", "llm.corp.example", 443, true},
		{"llm.corp.example", "LLM.corp.example.", 8080, true},
		{"llm.corp.example:8443", "llm.corp.example", 443, false},
		{"*.corp.example", "a.corp.example", 443, true},
		{"*.corp.example", "corp.example", 443, false},
		{"203.0.113.7", "203.0.113.7", 80, true},
		{"[2001:db8::1]:443", "2001:db8::1", 443, true},
	} {
		got, err := HostMatches(c.entry, c.host, c.port)
		if err != nil || got != c.want {
			t.Errorf("HostMatches(%q, %q, %d) = %v, %v; want %v", c.entry, c.host, c.port, got, err, c.want)
		}
	}
	if _, err := HostMatches("https://x", "x", 443); err == nil {
		t.Error("a URL entry was accepted")
	}
}

// FuzzGlob checks Glob against the regular expression the pattern means.
func FuzzGlob(f *testing.F) {
	for _, s := range [][2]string{{"anthropic/claude-*", "anthropic/claude-x"}, {"a*b*c", "aXbYbZc"}, {"**a", "ba"}, {"*", ""}, {"a.b", "aXb"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, s string) {
		if len(pattern) > 64 || len(s) > 256 {
			return
		}
		parts := strings.Split(pattern, "*")
		for i, p := range parts {
			parts[i] = regexp.QuoteMeta(p)
		}
		re, err := regexp.Compile(`(?s)\A` + strings.Join(parts, ".*") + `\z`)
		if err != nil {
			t.Skip()
		}
		// regexp works on runes; compare on valid UTF-8 only.
		if !isUTF8(pattern) || !isUTF8(s) {
			return
		}
		if got, want := Glob(pattern, s), re.MatchString(s); got != want {
			t.Errorf("Glob(%q, %q) = %v, regexp says %v", pattern, s, got, want)
		}
	})
}

func isUTF8(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }
