package sessionconfig

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// stringLookups finds, in Go source, the ways of reading a config key by
// its name that bypass the registry: indexing Resolved.Entries or
// Resolved.Lists, Map.WithPrefix, the koanf tree (Resolved.K), and the CLI's
// former helpers valueOf, decodeKey and intValue.
func stringLookups(fset *token.FileSet, f *ast.File) []string {
	var out []string
	at := func(n ast.Node, what string) {
		out = append(out, fmt.Sprintf("%s: %s", fset.Position(n.Pos()), what))
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.IndexExpr:
			if sel, ok := x.X.(*ast.SelectorExpr); ok && (sel.Sel.Name == "Entries" || sel.Sel.Name == "Lists") {
				at(x, "indexes "+sel.Sel.Name)
			}
		case *ast.SelectorExpr:
			switch x.Sel.Name {
			case "WithPrefix":
				at(x, "calls WithPrefix")
			case "K":
				at(x, "reads the koanf tree (.K)")
			}
		case *ast.CallExpr:
			if id, ok := x.Fun.(*ast.Ident); ok {
				switch id.Name {
				case "valueOf", "decodeKey", "intValue":
					at(x, "calls "+id.Name)
				}
			}
		}
		return true
	})
	return out
}

// TestCLIHasNoStringKeyLookups: the CLI reads configuration only through
// the registry's typed keys.
func TestCLIHasNoStringKeyLookups(t *testing.T) {
	dir := filepath.Join("..", "cmd", "oceancode", "cli")
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) < 10 {
		t.Fatalf("glob %s: %d files, %v", dir, len(files), err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range stringLookups(fset, f) {
			t.Errorf("%s: read the key through a sessionconfig key instead", l)
		}
	}
}

// TestStringLookupsFound: the scan sees each old accessor.
func TestStringLookupsFound(t *testing.T) {
	src := `package cli
func f(r *layers.Resolved) {
	_ = r.Entries["permission_mode"]
	_ = r.Lists["shell.allow"]
	_ = r.Entries.WithPrefix("refs")
	_ = r.K.Exists("x")
	_ = valueOf(r, "model")
	_ = decodeKey(r, "sandbox", nil)
	_, _ = intValue(r, "limits.max_turns")
}`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := stringLookups(fset, f)
	if len(got) != 7 {
		t.Fatalf("found %d lookups, want 7:\n%s", len(got), strings.Join(got, "\n"))
	}
}
