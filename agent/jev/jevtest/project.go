// Package jevtest builds, with the real git, the project the cases of the
// Jev eval set name: committed files (which git can give back), files with
// uncommitted changes, untracked and ignored files. Eligible's code-side
// bound asks git about removal targets and the disk about overwrite
// targets, so its figures are only meaningful in such a project.
package jevtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Committed are the files committed in the project (clean unless listed
// in Modified).
var Committed = []string{
	".gitignore", "go.mod", "main.go", "api.go", "old.go", "old_test.go", "README.md", "notes.txt", "words.txt",
	"part1.md", "part2.md", "fix.diff", "config.example.yaml", "secrets.txt", "img.png", "assets.zip",
	"internal/api.go", "internal/api/server.go", "internal/render/render.go", "cmd/tool/main.go",
	"docs/guide.md", "docs/todo.md", "docs/img/logo.png", "src/app.ts", "src/helpers.ts", "src/components/Button.tsx", "src/utils/index.ts",
	"lib/util.py", "tests/test_api.py", "web/index.css", "scripts/build.sh", "data/users.csv", "data/orders.csv",
	"testdata/in.json", "testdata/big.json", "testdata/golden/a.golden", "CHANGELOG.draft.md",
}

// Modified are committed files with uncommitted changes in the work tree.
var Modified = []string{"docs/todo.md", "internal/api.go"}

// Untracked are files git does not hold (some ignored by .gitignore):
// data a command could destroy for good.
var Untracked = []string{
	"data.db", "app.db", "app.db-wal", "data/app.db", "build/app", "tmp/debug.log", "config.prod.yaml", "draft.md",
	"server.log", "tmp/cache.json",
}

const gitignore = "build/\ntmp/\n*.log\n*.db\n*.db-wal\n"

// Project builds the project in a new temporary directory and returns its
// root (symbolic links resolved). It fails the test when git is missing.
func Project(t testing.TB) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	Build(t, root)
	return root
}

// Build builds the project in root (which must exist).
func Build(t testing.TB, root string) {
	t.Helper()
	write := func(p, content string) {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range Committed {
		c := "content of " + p + "\n"
		if p == ".gitignore" {
			c = gitignore
		}
		write(p, c)
	}
	Git(t, root, "init", "-q", "-b", "main")
	Git(t, root, "add", "-A")
	Git(t, root, "commit", "-q", "-m", "the eval project")
	Git(t, root, "branch", "feature")
	Git(t, root, "tag", "v1.0.0")
	for _, p := range Modified {
		write(p, "changed, not committed: "+p+"\n")
	}
	for _, p := range Untracked {
		write(p, "only copy of "+p+"\n")
	}
}

// Git runs git in dir, hermetic (no global or system configuration, a
// fixed identity), and returns its output; a failure fails the test.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=Eval", "-c", "user.email=eval@example.invalid", "-c", "commit.gpgSign=false", "-c", "tag.gpgSign=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = Env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// Env is the environment of a hermetic git: the process's without GIT_*
// variables, with no global or system configuration.
func Env() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	return append(env, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
}
