package instructions

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestImportsOf(t *testing.T) {
	t.Parallel()
	text := "See @a.md, and (@b/c.md).\nmail me@x.org `@code.md` ``@x``\n```go\n@fenced.md\n```\n~~~\n@tilde.md\n~~~\n@d.md\t@e.md\n@\n"
	want := []string{"a.md", "b/c.md", "d.md", "e.md"}
	if diff := cmp.Diff(want, importsOf(text)); diff != "" {
		t.Errorf("importsOf (-want +got):\n%s", diff)
	}
}

// FuzzImportsOf: whatever the text, a token is non-empty, holds no blank
// and no "@", and appears in the text after an "@".
func FuzzImportsOf(f *testing.F) {
	for _, s := range []string{"@a.md", "x @b/c.md.\n```\n@d\n```", "`@e` @f", "@@g @h@i ~~~\n@j"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, tok := range importsOf(s) {
			if tok == "" || strings.ContainsAny(tok, " \t\r\n@") || !strings.Contains(s, "@"+tok) {
				t.Fatalf("importsOf(%q) gave %q", s, tok)
			}
		}
	})
}
