package layers_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/internal/hermetictest"
	"github.com/oceancode/oceancode/layers"
)

// TestTestManagedDirOnlyInTestBuilds: the variable that moves the managed
// dir is honoured only by the file that the test build tag compiles in; no
// file of a production build of either binary reads it (SECURITY.md: a
// user cannot point the agent away from the administrator's policy).
func TestTestManagedDirOnlyInTestBuilds(t *testing.T) {
	t.Parallel()
	if layers.TestBuildTag != hermetictest.BuildTag || layers.EnvTestManagedDir != hermetictest.EnvManagedDir {
		t.Fatalf("layers (%s, %s) and hermetictest (%s, %s) disagree", layers.TestBuildTag, layers.EnvTestManagedDir,
			hermetictest.BuildTag, hermetictest.EnvManagedDir)
	}
	files := func(tags ...string) map[string]string {
		args := append([]string{"list", "-deps", "-f", `{{.ImportPath}}{{"\t"}}{{.Dir}}{{"\t"}}{{join .GoFiles " "}}`}, tags...)
		out, err := exec.Command("go", append(args, "../cmd/oceancode", "../cmd/oceanadmin")...).Output()
		if err != nil {
			t.Fatalf("go list: %v", err)
		}
		m := map[string]string{}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			f := strings.Split(line, "\t")
			if len(f) != 3 || !strings.HasPrefix(f[0], "github.com/oceancode/oceancode") {
				continue
			}
			for _, name := range strings.Fields(f[2]) {
				m[strings.TrimPrefix(f[0], "github.com/oceancode/oceancode/")+"/"+name] = filepath.Join(f[1], name)
			}
		}
		return m
	}
	prod := files()
	if _, ok := prod["layers/testbuild.go"]; ok {
		t.Fatal("layers/testbuild.go is part of a production build: it must keep its build constraint")
	}
	if len(prod) < 20 {
		t.Fatalf("go list found %d files", len(prod))
	}
	// Each test-only variable: its declaring file mentions it twice (the
	// name and its value), no other production file at all.
	for _, v := range []struct{ ident, value, decl string }{
		{"EnvTestManagedDir", layers.EnvTestManagedDir, "layers/paths.go"},
		{"EnvTestManagedPreferences", layers.EnvTestManagedPreferences, "layers/ossource.go"},
	} {
		for name, path := range prod {
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			uses := 0
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.Ident:
					if n.Name == v.ident {
						uses++
					}
				case *ast.BasicLit:
					if strings.Contains(n.Value, v.value) {
						uses++
					}
				}
				return true
			})
			if name == v.decl {
				uses -= 2
			}
			if uses > 0 {
				t.Errorf("%s (production build) mentions the test variable %s", name, v.value)
			}
		}
	}
	if _, ok := files("-tags", layers.TestBuildTag)["layers/testbuild.go"]; !ok {
		t.Errorf("a build with -tags %s lacks layers/testbuild.go", layers.TestBuildTag)
	}
}
