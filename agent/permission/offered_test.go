package permission

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// builtinTools are the runtime's built-in tools (docs/tools.md), plus
// hashline.
var builtinTools = []string{
	"bash", "read", "write", "edit", "apply_patch", "hashline", "grep", "glob", "list",
	"webfetch", "question", "todo", "task",
}

// TestOfferedGolden records, per agent and mode, which tools the model is
// offered. Regenerate with: go test ./agent/permission/ -run TestOfferedGolden -update
func TestOfferedGolden(t *testing.T) {
	for _, agent := range []string{AgentBuild, AgentPlan, AgentExplore} {
		for _, mode := range Modes() {
			name := fmt.Sprintf("%s.%s.golden", agent, mode)
			t.Run(name, func(t *testing.T) {
				e := newEngine(t, Config{Agent: agent, Mode: mode})
				offered := e.Offered(builtinTools)
				set := map[string]bool{}
				for _, o := range offered {
					set[o] = true
				}
				var b strings.Builder
				fmt.Fprintf(&b, "# agent %s, mode %s: tools offered to the model\n", agent, mode)
				for _, tool := range builtinTools {
					mark := "offered"
					if !set[tool] {
						mark = "left out"
					}
					fmt.Fprintf(&b, "%-12s %s\n", tool, mark)
				}
				path := filepath.Join("testdata", "offered", name)
				if *update {
					if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run with -update to create it)", err)
				}
				if diff := cmp.Diff(string(want), b.String()); diff != "" {
					t.Fatalf("offered tools for %s (-golden +got):\n%s", name, diff)
				}
			})
		}
	}
}

func TestOffered(t *testing.T) {
	tests := []struct {
		name  string
		cfg   func(t *testing.T) Config
		tools []string
		want  []string
	}{
		{"bash * deny hides bash", func(t *testing.T) Config { return Config{Rules: []Rule{r(t, "Bash(*)", Deny)}} },
			[]string{"bash", "read"}, []string{"read"}},
		{"a narrower last rule keeps the tool", func(t *testing.T) Config {
			return Config{Rules: []Rule{r(t, "Bash(*)", Deny), r(t, "Bash(git status)", Allow)}}
		}, []string{"bash"}, []string{"bash"}},
		{"a later * allow reopens", func(t *testing.T) Config {
			return Config{Rules: []Rule{r(t, "Bash(*)", Deny), r(t, "Bash(*)", Allow)}}
		}, []string{"bash"}, []string{"bash"}},
		{"edit * deny hides write, apply_patch, hashline", func(t *testing.T) Config { return Config{Rules: []Rule{r(t, "Edit", Deny)}} },
			[]string{"edit", "write", "apply_patch", "hashline", "read"}, []string{"read"}},
		{"read * deny hides grep, glob, list", func(t *testing.T) Config { return Config{Rules: []Rule{r(t, "Read", Deny)}} },
			[]string{"read", "grep", "glob", "list", "bash"}, []string{"bash"}},
		{"* * deny hides everything", func(t *testing.T) Config { return Config{Rules: []Rule{r(t, "*", Deny)}} },
			[]string{"read", "bash"}, []string{}},
		{"requirements * deny hides", func(t *testing.T) Config {
			return Config{Rules: []Rule{r(t, "Bash(*)", Allow)}, Locks: Locks{Deny: []Rule{r(t, "Bash", Deny)}}}
		}, []string{"bash", "read"}, []string{"read"}},
		{"bypassPermissions does not reopen a * deny", func(t *testing.T) Config {
			return Config{Mode: BypassPermissions, Rules: []Rule{r(t, "Bash", Deny)}}
		}, []string{"bash", "read"}, []string{"read"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := newEngine(t, tc.cfg(t)).Offered(tc.tools)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("Offered (-want +got):\n%s", diff)
			}
		})
	}
}
