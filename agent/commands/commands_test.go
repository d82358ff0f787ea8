package commands

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oceancode/oceancode/provenance"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestSubstitute(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ body, args, want string }{
		{"Fix $ARGUMENTS now", "issue 12", "Fix issue 12 now"},
		{"Fix #$1 with priority $2 ($3)", "12 high", "Fix #12 with priority high ()"},
		{"Review the code", "main.go", "Review the code\n\nARGUMENTS: main.go"},
		{"Review the code", "", "Review the code"},
		{"One pass: $ARGUMENTS", "$1 $ARGUMENTS", "One pass: $1 $ARGUMENTS"},
	} {
		if got := Substitute(tc.body, tc.args); got != tc.want {
			t.Errorf("Substitute(%q, %q) = %q, want %q", tc.body, tc.args, got, tc.want)
		}
	}
}

func TestParse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, name, args string
		ok             bool
	}{
		{"/review main.go  style ", "review", "main.go  style", true},
		{"/frontend:component Button", "frontend:component", "Button", true},
		{"/usr/bin/env is broken", "", "", false},
		{"review", "", "", false},
		{"/ x", "", "", false},
	} {
		name, args, ok := Parse(tc.in)
		if name != tc.name || args != tc.args || ok != tc.ok {
			t.Errorf("Parse(%q) = %q, %q, %v; want %q, %q, %v", tc.in, name, args, ok, tc.name, tc.args, tc.ok)
		}
	}
}

// machine lays out a managed, a user and a project source.
func machine(t *testing.T) (managed, user, project Source) {
	root := t.TempDir()
	proj := filepath.Join(root, "project")
	managed = Source{Layer: provenance.Managed, Dir: filepath.Join(root, "etc", "commands")}
	user = Source{Layer: provenance.User, Dir: filepath.Join(root, "home", "commands")}
	project = Source{Layer: provenance.Project, Dir: filepath.Join(proj, ".oceancode", "commands"), Within: proj}
	write(t, filepath.Join(managed.Dir, "ship.md"), "Ship it")
	write(t, filepath.Join(user.Dir, "review.md"), "---\ndescription: the user's review\n---\nUser review of $ARGUMENTS")
	write(t, filepath.Join(project.Dir, "review.md"), "Project review")
	write(t, filepath.Join(project.Dir, "frontend", "component.md"), `---
description: >
  Make a
  component
argument-hint: NAME
allowed-tools: Bash(npm test:*), Read
model: fast
---
# Component
Make $1
`)
	return managed, user, project
}

func TestLoadPrecedenceAndNamespaces(t *testing.T) {
	t.Parallel()
	m, u, p := machine(t)
	s := Load(Options{Sources: []Source{m, u, p}})
	var names []string
	for _, c := range s.List {
		names = append(names, c.Name+"@"+c.Layer.String())
	}
	if diff := cmp.Diff([]string{"frontend:component@project", "review@user", "ship@managed"}, names); diff != "" {
		t.Errorf("commands (-want +got):\n%s", diff)
	}
	if len(s.Dropped) != 1 || !strings.Contains(s.Dropped[0].Why, "shadowed by /review of the user layer") {
		t.Errorf("the project's /review must be shadowed by the user's, and named: %+v", s.Dropped)
	}
	c, _ := s.Lookup("frontend:component")
	want := Command{Name: "frontend:component", Description: "Make a component", ArgumentHint: "NAME",
		AllowedTools: []string{"Bash(npm test:*)", "Read"}, Model: "fast", Layer: provenance.Project,
		Path: filepath.Join(p.Dir, "frontend", "component.md"), Body: "# Component\nMake $1"}
	if diff := cmp.Diff(want, *c); diff != "" {
		t.Errorf("parsed command (-want +got):\n%s", diff)
	}
}

func TestManagedOnly(t *testing.T) {
	t.Parallel()
	m, u, p := machine(t)
	s := Load(Options{Sources: []Source{m, u, p}, ManagedOnly: true})
	if len(s.List) != 1 || s.List[0].Name != "ship" {
		t.Fatalf("managed only: %+v", s.List)
	}
	dropped := map[string]bool{}
	for _, d := range s.Dropped {
		dropped[d.Name+"@"+d.Layer.String()] = true
	}
	for _, want := range []string{"review@user", "frontend:component@project"} {
		if !dropped[want] {
			t.Errorf("%s is not named in Dropped: %+v", want, s.Dropped)
		}
	}
}

// TestExpandNeverLoosens: allowed-tools narrows and its patterns approve
// nothing; a project command's model applies only when trusted and when
// the host's check passes; !`…` lines are not run.
func TestExpandNeverLoosens(t *testing.T) {
	t.Parallel()
	_, _, p := machine(t)
	write(t, filepath.Join(p.Dir, "status.md"), "Status: !`git status`\n$ARGUMENTS")
	untrusted := Load(Options{Sources: []Source{p}})
	e, ok := untrusted.Expand("/frontend:component Button")
	if !ok || e.Text != "# Component\nMake Button" {
		t.Fatalf("expand: %v %q", ok, e.Text)
	}
	if diff := cmp.Diff([]string{"bash", "read"}, e.Tools); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if !e.Keeps("read") || !e.Keeps("bash") || e.Keeps("edit") || e.Keeps("write") {
		t.Errorf("Keeps: read and bash only")
	}
	if e.Model != "" || !strings.Contains(strings.Join(e.Notices, "\n"), "only in a trusted workspace") {
		t.Errorf("an untrusted project's model applied: %q %v", e.Model, e.Notices)
	}
	trusted := Load(Options{Sources: []Source{p}, TrustedProject: true,
		ModelCheck: func(m string) (string, error) { return "", errors.New("not allowed") }})
	if e, _ := trusted.Expand("/frontend:component X"); e.Model != "" || !strings.Contains(strings.Join(e.Notices, "\n"), "not allowed") {
		t.Errorf("the model check was not applied: %q %v", e.Model, e.Notices)
	}
	trusted = Load(Options{Sources: []Source{p}, TrustedProject: true,
		ModelCheck: func(m string) (string, error) { return "mock-" + m, nil }})
	if e, _ := trusted.Expand("/frontend:component X"); e.Model != "mock-fast" {
		t.Errorf("a trusted project's allowed model: %q", e.Model)
	}
	e, _ = untrusted.Expand("/status now")
	if e.Text != "Status: !`git status`\nnow" || !strings.Contains(strings.Join(e.Notices, "\n"), "were not run") {
		t.Errorf("shell line: %q %v", e.Text, e.Notices)
	}
	if _, ok := untrusted.Expand("/nosuch x"); ok {
		t.Error("an unknown name expanded")
	}
}

// TestSourcesStayInside: a project source that is a symlink out of the
// project is not read; a file symlinked out of its directory is refused;
// a bad front matter names its line.
func TestSourcesStayInside(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	proj := filepath.Join(root, "project")
	outside := filepath.Join(root, "secret")
	write(t, filepath.Join(outside, "steal.md"), "the user's secrets")
	write(t, filepath.Join(proj, ".claude", "x"), "")
	if err := os.Symlink(outside, filepath.Join(proj, ".claude", "commands")); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(proj, ".oceancode", "commands")
	write(t, filepath.Join(dir, "bad.md"), "---\ndescription: [unclosed\n---\nbody")
	if err := os.Symlink(filepath.Join(outside, "steal.md"), filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	s := Load(Options{Sources: []Source{
		{Layer: provenance.Project, Dir: dir, Within: proj},
		{Layer: provenance.Project, Dir: filepath.Join(proj, ".claude", "commands"), Within: proj},
	}})
	if len(s.List) != 0 {
		t.Errorf("commands read: %+v", s.List)
	}
	why := ""
	for _, d := range s.Dropped {
		why += d.Path + ": " + d.Why + "\n"
	}
	for _, want := range []string{"outside the project", "link.md", "bad.md: parse command", "line 2"} {
		if !strings.Contains(why, want) {
			t.Errorf("Dropped does not say %q:\n%s", want, why)
		}
	}
}
