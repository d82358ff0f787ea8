package report

import (
	"regexp"
	"testing"
)

// TestSecretNameMatchesRegexp holds secretName to the regular expression it
// replaced.
func TestSecretNameMatchesRegexp(t *testing.T) {
	re := regexp.MustCompile(`(?i)(key|secret|token|password|passwd|credential|authorization|cookie)`)
	for _, s := range []string{
		"", "key", "KEY", "Key", "monkey", "api_KEY_x", "ke", "k-e-y", "\u212aey", "\u212aEY", "to\u212aen",
		"\u017fecret", "SECRET", "passwd", "PassWord", "credentials", "Authorization", "cookies", "COOKIE",
		"tokenise", "tok\xffen", "\xffkey", "ke\xffy", "kéy", "GITHUB_TOKEN", "EDITOR", "base_url", "é", "\xff",
		"pass", "keyless", "authorisation", "cooky", "secre", "\u212a", "k\u0301ey",
	} {
		if got, want := secretName(s), re.MatchString(s); got != want {
			t.Errorf("secretName(%q) = %v, want %v", s, got, want)
		}
	}
}

func FuzzSecretName(f *testing.F) {
	re := regexp.MustCompile(`(?i)(key|secret|token|password|passwd|credential|authorization|cookie)`)
	for _, s := range []string{"key", "\u212aey", "x\u017fecretx", "tok\xffen", "Authorization"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := secretName(s), re.MatchString(s); got != want {
			t.Fatalf("secretName(%q) = %v, want %v", s, got, want)
		}
	})
}
