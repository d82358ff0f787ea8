package gate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/agent/fsguard"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/shellguard"
	"github.com/oceancode/oceancode/provenance"
)

var managed = provenance.Origin{Layer: provenance.Managed, Source: "/etc/oceancode/managed.json", Line: 3}

func testGate(t testing.TB) (*Gate, string) {
	t.Helper()
	root := t.TempDir()
	docs := t.TempDir()
	for _, f := range []string{".env", ".env.example", "main.go"} {
		os.WriteFile(filepath.Join(root, f), []byte("x"), 0o644)
	}
	os.WriteFile(filepath.Join(docs, "guide.md"), []byte("x"), 0o644)
	deny, err := ShellRules([]string{"Bash(git push:*)"}, []provenance.Origin{managed}, permission.Deny, "shell.deny")
	if err != nil {
		t.Fatal(err)
	}
	user := provenance.Origin{Layer: provenance.User, Source: "user.json", Line: 2}
	g, err := New(Config{
		Permission: permission.Config{Rules: []permission.Rule{
			{Key: "bash", Pattern: "*", Action: permission.Ask, Origin: user},
			{Key: "bash", Pattern: "go test:*", Action: permission.Allow, Origin: user},
		}},
		Shell:    shellguard.Config{Deny: deny, ProjectRoot: root, Home: "/home/dev"},
		Boundary: fsguard.Boundary{ProjectRoot: root, Refs: map[string]string{"docs": docs}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return g, root
}

func TestCheck(t *testing.T) {
	g, root := testGate(t)
	tests := []struct {
		tool, input string
		action      permission.Action
		floor       bool
		guard       string
		layer       provenance.Layer
	}{
		{"bash", "git status", permission.Allow, false, "", provenance.Default},
		{"bash", "go test ./...", permission.Allow, false, "", provenance.User},
		{"bash", "git status && make", permission.Ask, false, "", provenance.User},
		{"bash", "timeout 5 rm -rf /", permission.Deny, true, "", provenance.Default},
		{"bash", "sudo git push origin main", permission.Deny, false, "", provenance.Managed},
		{"read", ".env", permission.Deny, false, "fsguard", provenance.Default},
		{"read", "config/prod.env", permission.Deny, false, "fsguard", provenance.Default},
		{"read", ".env.example", permission.Allow, false, "", provenance.Default},
		{"edit", "main.go", permission.Allow, false, "", provenance.Default},
		{"read", "/etc/hostname", permission.Ask, false, "", provenance.Default},
		{"read", "@docs/guide.md", permission.Allow, false, "", provenance.Default},
		{"read", "@docs/../../etc/passwd", permission.Ask, false, "", provenance.Default},
		{"read", "../outside.txt", permission.Ask, false, "", provenance.Default},
		{"BASH", "ls", permission.Allow, false, "", provenance.Default},
	}
	for _, tt := range tests {
		r := g.Check(Call{Tool: tt.tool, Input: tt.input, Cwd: root})
		if r.Action != tt.action || r.Floor != tt.floor || r.Guard != tt.guard {
			t.Errorf("%s %q = %s floor=%v guard=%q (%s), want %s floor=%v guard=%q", tt.tool, tt.input, r.Action, r.Floor, r.Guard, r.Reason, tt.action, tt.floor, tt.guard)
			continue
		}
		if !r.Floor && r.Guard == "" && r.Origin.Layer != tt.layer {
			t.Errorf("%s %q decided by %v (%v), want layer %s", tt.tool, tt.input, r.Rule, r.Origin, tt.layer)
		}
	}
}

// TestShellDenyKeepsProvenance: a shell.deny hit names the managed file and
// line it came from.
func TestShellDenyKeepsProvenance(t *testing.T) {
	g, root := testGate(t)
	r := g.Check(Call{Tool: "bash", Input: "cd src && git push --tags", Cwd: root})
	if r.Action != permission.Deny || r.Origin != managed {
		t.Fatalf("decision %s from %+v, want deny from %+v", r.Action, r.Origin, managed)
	}
}

func TestShellRulesRefusesOtherTools(t *testing.T) {
	if _, err := ShellRules([]string{"Read(*.md)"}, nil, permission.Allow, "shell.allow"); err == nil {
		t.Fatal("a Read rule was accepted in shell.allow")
	}
	if _, err := ShellRules([]string{"Bash(git push"}, nil, permission.Allow, "shell.allow"); err == nil {
		t.Fatal("a malformed rule was accepted")
	}
}

// BenchmarkCheckBash is the per-call cost the issue budgets (≤ 10 µs,
// ≤ 20 allocations): classify a typical command and evaluate it against
// about twenty rules.
func BenchmarkCheckBash(b *testing.B) {
	g, root := benchGate(b)
	call := Call{Tool: "bash", Input: "git status && go test ./... 2>&1 | tail -n 20", Cwd: root}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		g.Check(call)
	}
}

func benchGate(b testing.TB) (*Gate, string) {
	root := b.TempDir()
	o := provenance.Origin{Layer: provenance.User, Source: "user.json"}
	var rules []permission.Rule
	for _, p := range []string{"*", "git status", "git diff:*", "go test:*", "go build:*", "make:*", "npm test", "npm run lint",
		"cargo test:*", "ls:*", "cat:*", "rg:*", "grep:*", "find:*", "docker ps", "kubectl get:*", "terraform plan", "helm list", "git log:*", "tail:*"} {
		a := permission.Allow
		if p == "*" {
			a = permission.Ask
		}
		rules = append(rules, permission.Rule{Key: "bash", Pattern: p, Action: a, Origin: o})
	}
	g, err := New(Config{Permission: permission.Config{Rules: rules}, Shell: shellguard.Config{ProjectRoot: root, Home: "/home/dev"},
		Boundary: fsguard.Boundary{ProjectRoot: root}})
	if err != nil {
		b.Fatal(err)
	}
	return g, root
}

// minAllocs is the fewest allocations f makes in one run out of several:
// a sync.Pool may drop the shell guard's pooled parser (at a GC, or at
// random under the race detector), which costs allocations that are not f's.
func minAllocs(f func()) float64 {
	m := testing.AllocsPerRun(1, f)
	for range 20 {
		m = min(m, testing.AllocsPerRun(1, f))
	}
	return m
}

// TestCheckBashAllocs: for a bash call the gate adds one allocation to the
// shell guard's (the result, the engine's view and its lists together), so
// BenchmarkCheckBash's figure cannot creep up unnoticed.
func TestCheckBashAllocs(t *testing.T) {
	g, root := benchGate(t)
	call := Call{Tool: "bash", Input: "git status && go test ./... 2>&1 | tail -n 20", Cwd: root}
	classify := minAllocs(func() { g.shell.Classify(call.Input, call.Cwd) })
	check := minAllocs(func() { g.Check(call) })
	if check-classify > 1 {
		t.Errorf("Check makes %v allocations, Classify %v: the gate adds %v, want at most 1", check, classify, check-classify)
	}
}

// TestSegmentTexts: each segment's text is its argv joined with single
// spaces, whether or not it is found in the segment's source text.
func TestSegmentTexts(t *testing.T) {
	tests := []struct {
		argv []string
		raw  string
	}{
		{nil, ""},
		{nil, "FOO=1"},
		{[]string{""}, "''"},
		{[]string{"ls"}, "ls"},
		{[]string{"ls"}, "'ls'"},
		{[]string{"git", "status"}, "git status"},
		{[]string{"go", "test", "./..."}, "go test ./... 2>&1"},
		{[]string{"go", "test", "./..."}, "FOO=1 go test ./..."},
		{[]string{"git", "push"}, "sudo git push"},
		{[]string{"git", "push"}, "git  push"},
		{[]string{"git", "push"}, "git pus"},
		{[]string{"git", "push"}, "git pushx git push"},
		{[]string{"a", "a"}, "a aa a"},
		{[]string{"echo", "a b"}, "echo 'a b'"},
		{[]string{"echo", "a b"}, "echo a b"},
		{[]string{"", "x"}, " x"},
		{[]string{"", ""}, " "},
		{[]string{"x", ""}, "x "},
		{[]string{"x", "", "y"}, "x  y"},
		{[]string{"rm", "-rf", "/"}, "timeout 5 rm -rf /"},
		{[]string{"tail", "-n", "20"}, "tail -n 2"},
	}
	// All at once, so that some are found in their source and some built.
	var r shellguard.Result
	for _, tt := range tests {
		r.Segments = append(r.Segments, shellguard.Segment{Argv: tt.argv, Raw: tt.raw, Verdict: shellguard.Ask})
	}
	for _, n := range []int{len(tests), 4, 1} {
		sc := &shellCall{sr: r}
		sc.sr.Segments = r.Segments[len(r.Segments)-n:]
		sv := sc.verdict()
		for i, s := range sc.sr.Segments {
			if want := strings.Join(s.Argv, " "); sv.Segments[i] != want || sv.Verdicts[i] != "ask" {
				t.Errorf("segment %q in %q: text %q verdict %q, want %q ask", s.Argv, s.Raw, sv.Segments[i], sv.Verdicts[i], want)
			}
		}
	}
}

// TestSecretFileShellRefusedLikeRead: a bash command naming a secrets file
// is refused by the filesystem guard, as the read tool refuses the file,
// under every mode and whatever the rules allow.
func TestSecretFileShellRefusedLikeRead(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, ".env"), []byte("ANTHROPIC_API_KEY=x"), 0o600)
	user := provenance.Origin{Layer: provenance.User, Source: "user.json", Line: 2}
	allow, err := ShellRules([]string{"Bash(cat:*)", "Bash(*)"}, []provenance.Origin{user, user}, permission.Allow, "shell.allow")
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range permission.Modes() {
		g, err := New(Config{
			Permission: permission.Config{Mode: mode, Rules: []permission.Rule{
				{Key: "bash", Pattern: "*", Action: permission.Allow, Origin: user},
				{Key: "bash", Pattern: "cat .env", Action: permission.Allow, Origin: user},
				{Key: "read", Pattern: "*", Action: permission.Allow, Origin: user},
			}},
			Shell:    shellguard.Config{Allow: allow, ProjectRoot: root},
			Boundary: fsguard.Boundary{ProjectRoot: root},
		})
		if err != nil {
			t.Fatal(err)
		}
		read := g.Check(Call{Tool: "read", Input: ".env", Cwd: root})
		for _, cmd := range []string{"cat .env", "cat < .env", "sudo head -n1 .e*", "cat /proc/$PPID/environ"} {
			ap := &permission.Approvals{}
			r := g.Check(Call{Tool: "bash", Input: cmd, Cwd: root, Approvals: ap})
			ap.Approve(r.Call, permission.Always) // an "always" answer cannot reopen it either
			r2 := g.Check(Call{Tool: "bash", Input: cmd, Cwd: root, Approvals: ap})
			for _, r := range []Result{r, r2} {
				if r.Call.Shell == nil || len(r.Call.Shell.Segments) == 0 {
					t.Errorf("mode %s: bash %q: the result carries no shell segments", mode, cmd)
				}
				if r.Action != permission.Deny || r.Guard != read.Guard || r.Origin != read.Origin || r.Decider() != "fsguard" ||
					!strings.HasPrefix(r.Reason, "fsguard: ") || !strings.HasSuffix(r.Reason, fsguard.ErrSecretFile.Error()) {
					t.Errorf("mode %s: bash %q = %s by %q (%s), want the fsguard refusal read gives (%s by %q: %s)",
						mode, cmd, r.Action, r.Decider(), r.Reason, read.Action, read.Decider(), read.Reason)
				}
			}
		}
		if r := g.Check(Call{Tool: "bash", Input: "cat .env.example", Cwd: root}); r.Action != permission.Allow {
			t.Errorf("mode %s: cat .env.example = %s (%s)", mode, r.Action, r.Reason)
		}
	}
}

// TestSecretGlobExpanded: a glob the shell guard cannot judge by its text
// is refused when it expands to a secrets file in the working directory.
func TestSecretGlobExpanded(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "config"), 0o755)
	os.MkdirAll(filepath.Join(root, "dotonly"), 0o755)
	for _, f := range []string{"main.go", "config/prod.env", "config/app.yaml", "dotonly/.env", "dotonly/a.txt"} {
		os.WriteFile(filepath.Join(root, f), []byte("x"), 0o644)
	}
	g, err := New(Config{Shell: shellguard.Config{ProjectRoot: root}, Boundary: fsguard.Boundary{ProjectRoot: root},
		Permission: permission.Config{Mode: permission.BypassPermissions}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cmd, cwd string
		refused  bool
	}{
		{"cat *", "config", true},
		{"grep KEY c*/*", "", true},
		{"head -n 3 config/p*", "", true},
		{"cat " + filepath.Join(root, "config", "*"), "", true},
		{"cat *.yaml", "config", false},
		{"ls *", "config", false},
		{"cat *", "", false},        // main.go and two directories
		{"cat *", "dotonly", false}, // bash's * skips .env
		{"cat *.go", "", false},
	} {
		r := g.Check(Call{Tool: "bash", Input: tc.cmd, Cwd: tc.cwd})
		refused := r.Action == permission.Deny && r.Guard == "fsguard"
		if refused != tc.refused {
			t.Errorf("%q in %q: %s by %q (%s), refused=%v want %v", tc.cmd, tc.cwd, r.Action, r.Decider(), r.Reason, refused, tc.refused)
		}
		if refused && !strings.Contains(r.Reason, "expands to the secrets file prod.env") {
			t.Errorf("%q: reason %q", tc.cmd, r.Reason)
		}
	}
}
