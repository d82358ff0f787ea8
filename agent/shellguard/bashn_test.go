package shellguard

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// bashPath is the real bash the differential tests use as the oracle.
func bashPath(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash on PATH")
	}
	return p
}

// bashRejects reports whether `bash -n` (parse only, never run) refuses
// src. The environment is empty, so no BASH_ENV or alias file is read.
func bashRejects(bash, src string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, "-n")
	cmd.Stdin = strings.NewReader(src)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LC_ALL=C"}
	err := cmd.Run()
	if err == nil {
		return false
	}
	if _, ok := err.(*exec.ExitError); ok && ctx.Err() == nil {
		return true
	}
	panic("run bash -n: " + err.Error())
}

// testStrings is every string literal in this package's test files: the
// commands of every table (and some reasons, which are harmless input).
func testStrings(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	seen := map[string]bool{}
	var out []string
	for _, f := range files {
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(af, func(n ast.Node) bool {
			bl, ok := n.(*ast.BasicLit)
			if !ok || bl.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(bl.Value)
			if err != nil || s == "" || len(s) > 2000 {
				return true
			}
			s = strings.ReplaceAll(s, "%s", "rm -rf /")
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
			return true
		})
	}
	sort.Strings(out)
	return out
}

// fuzzCorpus is the checked-in corpus of FuzzClassify.
func fuzzCorpus(t testing.TB) []string {
	t.Helper()
	files, _ := filepath.Glob("testdata/fuzz/*/*")
	var out []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			if s, ok := strings.CutPrefix(line, "string("); ok {
				if v, err := strconv.Unquote(strings.TrimSuffix(s, ")")); err == nil {
					out = append(out, v)
				}
			}
		}
	}
	return out
}

// syntaxPieces are fragments generated inputs are made of: complete and
// incomplete constructs, operators, quotes and expansions.
var syntaxPieces = []string{
	"ls", "git status", "echo hi", "rm -rf /", "cat x", "&&", "||", "|", "|&", ";", "&", ";;", "\n", "(", ")", "{", "}", "{ ls; }",
	"(ls)", "if true; then ls; fi", "if", "then", "fi", "else", "elif", "while true; do ls; done", "do", "done", "for x in a b; do",
	"case x in x) ls;; esac", "case", "esac", "in", "!", "'", `"`, "`", "$(", "$(ls)", "${", "${x}", "$((", "$((1+2))", "((", "))",
	"[[", "]]", "[[ -f x ]]", "<<EOF\nx\nEOF", "<<", "<<<", "<(ls)", ">(ls)", ">", ">>", "2>&1", ">&", "<", "f() { ls; }", "f()",
	"function f { ls; }", "function", "time", "coproc", "x=1", "x=(a b)", "a[1]=2", "declare -a y", "@(a|b)", "!(x)", "*",
	"\\", "#", "$'\\x41'", "${x@P}", "${!x}", "${x:-/}", "${x:?}", "select x in a; do ls; done", "until false; do ls; done",
	"{a,b}", "$[1+2]", "exit", "return", "break", "export A=1", "local x", "let x=1", "eval ls", "bash -c 'ls'",
}

// generated is a seeded, reproducible set of inputs built from syntaxPieces:
// every pair, and random sequences of three to six pieces.
func generated() []string {
	var out []string
	for _, a := range syntaxPieces {
		for _, b := range syntaxPieces[:24] {
			out = append(out, a+" "+b)
		}
	}
	r := rand.New(rand.NewSource(9))
	for range 1500 {
		n := 3 + r.Intn(4)
		var b strings.Builder
		for i := range n {
			if i > 0 && r.Intn(3) > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(syntaxPieces[r.Intn(len(syntaxPieces))])
		}
		out = append(out, b.String())
	}
	return out
}

// TestBashRejectsNeverSafe is the differential test against the real bash:
// over every command string in this package's tests, the fuzz corpus and a
// generated set, input that `bash -n` rejects is never safe or allowed —
// not even under an allow-everything rule.
func TestBashRejectsNeverSafe(t *testing.T) {
	bash := bashPath(t)
	corpus := append(append(testStrings(t), fuzzCorpus(t)...), generated()...)
	c := newTest(t, Config{Allow: []Rule{{Pattern: "*"}}, SafeListExtra: []string{"ls"}})
	var mu sync.Mutex
	rejected := 0
	var wg sync.WaitGroup
	work := make(chan string)
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for src := range work {
				if !bashRejects(bash, src) {
					continue
				}
				r := c.Classify(src, "")
				mu.Lock()
				rejected++
				if r.Verdict.Allowed() {
					t.Errorf("bash -n rejects %q but Classify = %v (%s)", src, r.Verdict, r.Reason)
				}
				mu.Unlock()
			}
		}()
	}
	for _, s := range corpus {
		work <- s
	}
	close(work)
	wg.Wait()
	t.Logf("%d inputs, %d rejected by bash -n", len(corpus), rejected)
	if rejected < 500 {
		t.Errorf("only %d inputs rejected by bash: the corpus no longer exercises the parser's errors", rejected)
	}
}
