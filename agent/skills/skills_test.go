package skills

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oceancode/oceancode/agent/commands"
	"github.com/oceancode/oceancode/agent/gate"
	"github.com/oceancode/oceancode/agent/tools"
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

const tidy = "---\nname: tidy\ndescription: Tidy Go files\nallowed-tools: Bash\n---\nRun gofmt.\n"

func sources(t *testing.T) (user, project commands.Source, root string) {
	root = t.TempDir()
	proj := filepath.Join(root, "project")
	user = commands.Source{Layer: provenance.User, Dir: filepath.Join(root, "home", "skills")}
	project = commands.Source{Layer: provenance.Project, Dir: filepath.Join(proj, ".oceancode", "skills"), Within: proj}
	write(t, filepath.Join(user.Dir, "deploy", "SKILL.md"), "---\nname: deploy\ndescription: Deploy the service\n---\nSteps.\n")
	write(t, filepath.Join(project.Dir, "tidy", "SKILL.md"), tidy)
	write(t, filepath.Join(project.Dir, "tidy", "ref", "rules.md"), "rule one")
	write(t, filepath.Join(project.Dir, "tidy", ".env"), "KEY=secret")
	write(t, filepath.Join(project.Dir, "nodesc", "SKILL.md"), "---\nname: nodesc\n---\nx")
	write(t, filepath.Join(project.Dir, "notaskill", "README.md"), "x")
	return user, project, root
}

func input(v map[string]string) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

func TestLoadAndTool(t *testing.T) {
	t.Parallel()
	u, p, _ := sources(t)
	s := Load(Options{Sources: []commands.Source{u, p}})
	if len(s.List) != 2 || s.List[0].Name != "deploy" || s.List[1].Name != "tidy" {
		t.Fatalf("skills: %+v", s.List)
	}
	if len(s.Dropped) != 1 || !strings.Contains(s.Dropped[0].Why, "no description") {
		t.Errorf("dropped: %+v", s.Dropped)
	}
	tool := s.Tool()
	def := tool.Def()
	if !strings.Contains(def.Description, "- deploy: Deploy the service\n- tidy: Tidy Go files") || strings.Contains(def.Description, "gofmt") {
		t.Errorf("the tool must list name and description only: %q", def.Description)
	}
	// A project skill is a read of its file too; a user skill the skill key alone.
	tg, err := tools.TargetsOf(tool, input(map[string]string{"name": "tidy", "file": "ref/rules.md"}))
	if err != nil {
		t.Fatal(err)
	}
	want := []tools.Target{{Tool: "skill", Input: "tidy/ref/rules.md", Kind: gate.KindNone},
		{Tool: "read", Input: filepath.Join(p.Dir, "tidy", "ref", "rules.md"), Kind: gate.KindPath}}
	if diff := cmp.Diff(want, tg); diff != "" {
		t.Errorf("targets (-want +got):\n%s", diff)
	}
	if tg, _ := tools.TargetsOf(tool, input(map[string]string{"name": "deploy"})); len(tg) != 1 || tg[0].Input != "deploy" {
		t.Errorf("user skill targets: %+v", tg)
	}
	res := tool.Run(t.Context(), nil, input(map[string]string{"name": "tidy"}))
	if res.IsError || !strings.Contains(res.Content, "Run gofmt.") || strings.Contains(res.Content, "allowed-tools") ||
		!strings.Contains(res.Content, "ref/rules.md") || strings.Contains(res.Content, ".env") {
		t.Errorf("load SKILL.md: %+v", res)
	}
	if res := tool.Run(t.Context(), nil, input(map[string]string{"name": "tidy", "file": "ref/rules.md"})); res.Content != "rule one" {
		t.Errorf("load a file: %+v", res)
	}
}

// TestLoadStaysInsideTheFolder: no "..", no absolute path, no symlink out
// of the folder, no secrets file, no unknown skill.
func TestLoadStaysInsideTheFolder(t *testing.T) {
	t.Parallel()
	u, p, root := sources(t)
	write(t, filepath.Join(root, "outside.txt"), "private")
	if err := os.Symlink(filepath.Join(root, "outside.txt"), filepath.Join(p.Dir, "tidy", "link.txt")); err != nil {
		t.Fatal(err)
	}
	tool := Load(Options{Sources: []commands.Source{u, p}}).Tool()
	for _, file := range []string{"../deploy/SKILL.md", filepath.Join(root, "outside.txt"), "link.txt", ".env", "ref"} {
		_, terr := tools.TargetsOf(tool, input(map[string]string{"name": "tidy", "file": file}))
		res := tool.Run(t.Context(), nil, input(map[string]string{"name": "tidy", "file": file}))
		if terr == nil && !res.IsError {
			t.Errorf("file %q was loaded: %q", file, res.Content)
		}
		if strings.Contains(res.Content, "private") || strings.Contains(res.Content, "secret") && !strings.Contains(res.Content, "secrets file") {
			t.Errorf("file %q leaked: %q", file, res.Content)
		}
	}
	if _, err := tools.TargetsOf(tool, input(map[string]string{"name": "nosuch"})); err == nil {
		t.Error("an unknown skill has a target")
	}
}

func TestManagedOnlyAndEmpty(t *testing.T) {
	t.Parallel()
	u, p, _ := sources(t)
	s := Load(Options{Sources: []commands.Source{u, p}, ManagedOnly: true})
	if len(s.List) != 0 || s.Tool() != nil {
		t.Fatalf("managed only kept %+v", s.List)
	}
	n := 0
	for _, d := range s.Dropped {
		if strings.Contains(d.Why, "allow_managed_skills_only") {
			n++
		}
	}
	if n != 2 {
		t.Errorf("want deploy and tidy named as dropped: %+v", s.Dropped)
	}
}

func TestListingIsBounded(t *testing.T) {
	t.Parallel()
	src := commands.Source{Layer: provenance.User, Dir: t.TempDir()}
	desc := strings.Repeat("d", 1000)
	for i := range 20 {
		name := "s" + string(rune('a'+i))
		write(t, filepath.Join(src.Dir, name, "SKILL.md"), "---\nname: "+name+"\ndescription: "+desc+"\n---\nbody")
	}
	s := Load(Options{Sources: []commands.Source{src}})
	if len(s.List) != 16 || len(s.Dropped) != 4 || !strings.Contains(s.Dropped[0].Why, "listing would pass") {
		t.Errorf("kept %d, dropped %+v", len(s.List), s.Dropped)
	}
	if n := len(s.Tool().Def().Description); n > MaxListing+200 {
		t.Errorf("the listing is %d bytes", n)
	}
}
