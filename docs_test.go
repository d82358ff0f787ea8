package oceancode_test

import (
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// citedPage is a docs/ or spec/ page a comment names. A path after '@' or
// '/', or in double quotes, is an example (a file reference, a fixture),
// not a citation.
var citedPage = regexp.MustCompile(`(?:^|[^"@/\w.-])((?:docs|spec)/[A-Za-z0-9_./-]+\.md)`)

// TestCitedPagesExist: every docs/ (or spec/) page a Go comment cites is in
// the repository, so a renamed page or one never written cannot stay behind
// as the place a contract is said to live.
func TestCitedPagesExist(t *testing.T) {
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ".go") {
			checkCitations(t, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// checkCitations reports the pages the comments of the Go file p cite that
// do not exist.
func checkCitations(t *testing.T, p string) {
	t.Helper()
	src, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var s scanner.Scanner
	s.Init(fset.AddFile(p, -1, len(src)), src, nil, scanner.ScanComments)
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			return
		}
		if tok != token.COMMENT {
			continue
		}
		for _, m := range citedPage.FindAllStringSubmatch(lit, -1) {
			if _, err := os.Stat(m[1]); err != nil {
				t.Errorf("%s: the comment cites %s, which is not in the repository", fset.Position(pos), m[1])
			}
		}
	}
}
