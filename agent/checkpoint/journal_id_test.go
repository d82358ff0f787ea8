package checkpoint

import (
	"regexp"
	"strings"
	"testing"
)

// TestValidSessionID holds validSessionID to the pattern it replaces.
func TestValidSessionID(t *testing.T) {
	t.Parallel()
	re := regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$`)
	for _, id := range []string{"", "a", "ses_06h3f69cnj62vq1ywc90nn6ekr", "_a", ".a", "-a", "a.b-c_d", "a/b", "a b", "ä",
		"a\x00", strings.Repeat("a", 128), strings.Repeat("a", 129), "A9", "9", "a..b"} {
		if got, want := validSessionID(id), re.MatchString(id); got != want {
			t.Errorf("validSessionID(%q) = %v, want %v", id, got, want)
		}
	}
}
