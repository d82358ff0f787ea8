package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoInitInCmd: no non-test file under cmd/ declares func init. The
// command trees are listed in newRootCmd (here and in oceanadmin), and what
// a main chooses is passed as Options, so a verb that registers itself from
// init, or a main that sets a package variable before Main, fails here.
func TestNoInitInCmd(t *testing.T) {
	cmdDir := filepath.Join("..", "..")
	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir(cmdDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "init" {
				t.Errorf("%s: func init: list the command in newRootCmd, or pass the value through Options", fset.Position(fn.Pos()))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The walk must have reached both command trees and their mains.
	if files < 40 {
		t.Fatalf("walked %d Go files under %s: not the cmd/ tree", files, cmdDir)
	}
}
