package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/oceancode/oceancode/internal/exitcode"
	"github.com/oceancode/oceancode/layers"
)

func newInitCmd(app *App) *cobra.Command {
	var print bool
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Write a starting AGENTS.md for this repository (never overwriting one)",
		Long: `Writes AGENTS.md at the project root (the nearest directory above with .git or
.oceancode/, else this directory) from what the repository shows: its
languages and the build, test and lint commands of its go.mod, package.json,
Cargo.toml, pyproject.toml, Makefile, … An existing AGENTS.md is never
overwritten; an existing CLAUDE.md is imported (@CLAUDE.md), so the team's
instructions stay in the prompt. Nothing in the repository is run.
See docs/instructions.md.`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := app.WorkDir()
			if err != nil {
				return err
			}
			root := layers.ProjectRoot(dir)
			if root == "" {
				root, _ = filepath.Abs(dir)
			}
			text := startingAgents(root)
			if print {
				_, err := io.WriteString(app.Stdout, text)
				return err
			}
			path := filepath.Join(root, "AGENTS.md")
			if err := writeNew(path, []byte(text)); err != nil {
				return err
			}
			_, err = fmt.Fprintf(app.Stdout, "wrote %s: review it, add the team's conventions and commit it\n", path)
			return err
		},
	}
	cmd.Flags().BoolVar(&print, "print", false, "print the starting AGENTS.md instead of writing it")
	return cmd
}

// writeNew writes path only if nothing is there: a complete temporary file
// is linked into place (link fails when path exists), so neither a reader
// nor a concurrent writer sees a partial file and nothing is overwritten.
func writeNew(path string, data []byte) error {
	if _, err := os.Lstat(path); err == nil {
		return exitcode.With(exitcode.Error, fmt.Errorf("init %s: it already exists: left unchanged (edit it, or remove it to start again)", path))
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".AGENTS.md.tmp-*")
	if err != nil {
		return fmt.Errorf("init %s: %w", path, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Link(tmp, path)
	}
	if errors.Is(err, fs.ErrExist) {
		return exitcode.With(exitcode.Error, fmt.Errorf("init %s: it already exists: left unchanged (edit it, or remove it to start again)", path))
	}
	if err != nil {
		return fmt.Errorf("init %s: %w", path, err)
	}
	return nil
}

// startingAgents is the starting AGENTS.md for the repository at root.
func startingAgents(root string) string {
	d := detect(root)
	var b strings.Builder
	b.WriteString("# AGENTS.md\n\nInstructions for coding agents working in this repository (OceanCode, Codex, Claude Code and others read this file). Keep it short and specific: every line is sent with every request.\n")
	if exists(filepath.Join(root, "CLAUDE.md")) {
		b.WriteString("\nThe team's existing instructions: @CLAUDE.md\n")
	}
	b.WriteString("\n## Project\n\n")
	if len(d.languages) == 0 {
		b.WriteString("- Languages: (none recognised; say what the project is written in)\n")
	} else {
		b.WriteString("- Languages: " + strings.Join(d.languages, ", ") + "\n")
	}
	b.WriteString("\n## Build and test\n\n")
	if len(d.commands) == 0 {
		b.WriteString("- (no build or test command recognised; say how to build and test)\n")
	}
	for _, c := range d.commands {
		fmt.Fprintf(&b, "- %s: `%s`\n", c[0], c[1])
	}
	b.WriteString("\nRun the tests you touch before you say a change is done.\n")
	b.WriteString("\n## Conventions\n\n- (Add the team's conventions: code style, naming, what to run before a commit, what not to touch.)\n")
	return b.String()
}

type detection struct {
	languages []string
	commands  [][2]string // purpose, command
}

func (d *detection) lang(l string) {
	for _, x := range d.languages {
		if x == l {
			return
		}
	}
	d.languages = append(d.languages, l)
}

func (d *detection) cmd(purpose, c string) {
	for _, x := range d.commands {
		if x[1] == c {
			return
		}
	}
	d.commands = append(d.commands, [2]string{purpose, c})
}

// detect reads the repository's build files (capped reads; nothing runs).
func detect(root string) detection {
	var d detection
	has := func(name string) bool { return exists(filepath.Join(root, name)) }
	if has("go.mod") {
		d.lang("Go")
		d.cmd("Build", "go build ./...")
		d.cmd("Test", "go test ./...")
		d.cmd("Lint", "go vet ./...")
	}
	if has("package.json") {
		detectNode(root, &d, has)
	}
	if has("Cargo.toml") {
		d.lang("Rust")
		d.cmd("Build", "cargo build")
		d.cmd("Test", "cargo test")
		d.cmd("Lint", "cargo clippy")
	}
	if has("pyproject.toml") || has("setup.py") || has("requirements.txt") {
		detectPython(root, &d, has)
	}
	detectOthers(&d, has)
	detectMake(root, &d, has)
	return d
}

func detectNode(root string, d *detection, has func(string) bool) {
	d.lang("JavaScript")
	if has("tsconfig.json") {
		d.lang("TypeScript")
	}
	pm := "npm"
	switch {
	case has("pnpm-lock.yaml"):
		pm = "pnpm"
	case has("yarn.lock"):
		pm = "yarn"
	case has("bun.lockb"), has("bun.lock"):
		pm = "bun"
	}
	var pkg struct {
		Scripts map[string]string `json:"scripts"`
	}
	if data, err := readCapped(filepath.Join(root, "package.json")); err == nil {
		json.Unmarshal(data, &pkg)
	}
	for _, s := range [][2]string{{"Build", "build"}, {"Test", "test"}, {"Lint", "lint"}, {"Type check", "typecheck"}, {"Format", "format"}} {
		if _, ok := pkg.Scripts[s[1]]; ok {
			run := pm + " run " + s[1]
			if s[1] == "test" {
				run = pm + " test"
			}
			d.cmd(s[0], run)
		}
	}
}

func detectPython(root string, d *detection, has func(string) bool) {
	d.lang("Python")
	pre := ""
	switch {
	case has("uv.lock"):
		pre = "uv run "
	case has("poetry.lock"):
		pre = "poetry run "
	}
	py, _ := readCapped(filepath.Join(root, "pyproject.toml"))
	req, _ := readCapped(filepath.Join(root, "requirements.txt"))
	if has("pytest.ini") || has("conftest.py") || strings.Contains(string(py)+string(req), "pytest") {
		d.cmd("Test", pre+"pytest")
	} else if has("tests") {
		d.cmd("Test", pre+"python -m unittest")
	}
	if strings.Contains(string(py), "ruff") {
		d.cmd("Lint", pre+"ruff check")
	}
}

func detectOthers(d *detection, has func(string) bool) {
	gradle := "gradle"
	if has("gradlew") {
		gradle = "./gradlew"
	}
	for _, m := range []struct{ file, lang, build, test string }{
		{"pom.xml", "Java", "mvn -q package", "mvn test"},
		{"build.gradle", "Java", gradle + " build", gradle + " test"},
		{"build.gradle.kts", "Kotlin", gradle + " build", gradle + " test"},
		{"CMakeLists.txt", "C/C++", "cmake -B build && cmake --build build", "ctest --test-dir build"},
		{"mix.exs", "Elixir", "mix compile", "mix test"},
		{"Gemfile", "Ruby", "", "bundle exec rake test"},
		{"composer.json", "PHP", "", "composer test"},
		{"deno.json", "TypeScript (Deno)", "", "deno test"},
	} {
		if !has(m.file) {
			continue
		}
		d.lang(m.lang)
		if m.build != "" {
			d.cmd("Build", m.build)
		}
		d.cmd("Test", m.test)
	}
}

var makeTarget = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_.-]*):`)

func detectMake(root string, d *detection, has func(string) bool) {
	name := "Makefile"
	if !has(name) {
		if name = "GNUmakefile"; !has(name) {
			return
		}
	}
	data, err := readCapped(filepath.Join(root, name))
	if err != nil {
		return
	}
	targets := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for sc.Scan() {
		if m := makeTarget.FindStringSubmatch(sc.Text()); m != nil {
			targets[m[1]] = true
		}
	}
	for _, t := range [][2]string{{"Build", "build"}, {"Test", "test"}, {"Lint", "lint"}, {"Check", "check"}} {
		if targets[t[1]] {
			d.cmd(t[0]+" (make)", "make "+t[1])
		}
	}
}

// readCapped reads at most 1 MiB of a regular file (a FIFO, a device or
// a symlink is not opened: the repository is untrusted).
func readCapped(path string) ([]byte, error) {
	if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("read %s: not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("read %s: not a regular file", path)
	}
	return io.ReadAll(io.LimitReader(f, 1<<20))
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
