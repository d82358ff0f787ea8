package layers

import (
	"os"
	"strings"
	"testing"
)

// The table in docs/configuration.md is the one users read: it lists every
// key of peerKeys, with the same verdict.
func TestPeerKeysDocumented(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for k, p := range peerKeys {
		verdict := "no: warning"
		if p.permission {
			verdict = "yes: sessions refused"
		}
		row := "| `" + k + "` | " + p.agent + " | "
		i := strings.Index(doc, row)
		if i < 0 {
			t.Errorf("docs/configuration.md has no row for %q", k)
			continue
		}
		line, _, _ := strings.Cut(doc[i:], "\n")
		if !strings.HasSuffix(line, "| "+verdict+" |") {
			t.Errorf("docs/configuration.md row for %q does not say %q: %s", k, verdict, line)
		}
	}
}
