package pager

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/oceancode/oceancode/internal/hermetictest"
)

// hermetic points HOME, the XDG dirs and git's configuration at a
// temporary directory.
func hermetic(t *testing.T) {
	t.Helper()
	p := hermetictest.New(t)
	p.Setenv(t)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(p.Home, "gitconfig"))
}

// send feeds messages to the composer, running any command it returns
// (the file listing) and feeding its message back; it returns the
// submits in order.
func send(t *testing.T, c *Composer, msgs ...tea.Msg) []string {
	t.Helper()
	var subs []string
	for _, m := range msgs {
		cmd, sub := c.Update(m)
		if sub != nil {
			subs = append(subs, sub.Text)
		}
		if k, ok := m.(tea.KeyPressMsg); ok && k.String() == "tab" && cmd != nil {
			// Only Tab returns the composer's own command (the listing);
			// others are the textarea's cursor blink.
			if fm, ok := cmd().(filesMsg); ok {
				if _, sub := c.Update(fm); sub != nil {
					t.Fatalf("a file listing submitted %q", sub.Text)
				}
			}
		}
	}
	return subs
}

func msgs(ks []tea.KeyPressMsg, more ...tea.KeyPressMsg) []tea.Msg {
	var out []tea.Msg
	for _, k := range append(ks, more...) {
		out = append(out, k)
	}
	return out
}

func TestComposerEditing(t *testing.T) {
	tests := []struct {
		name  string
		keys  []tea.KeyPressMsg
		subs  []string
		value string
	}{
		{"enter submits", append(typed("hello"), press("enter")), []string{"hello"}, ""},
		{"empty enter does nothing", keys("enter"), nil, ""},
		{"blank enter does nothing", append(typed("  "), press("enter")), nil, "  "},
		{"alt+enter newline", slices.Concat(typed("a"), keys("alt+enter"), typed("b")), nil, "a\nb"},
		{"ctrl+j newline", slices.Concat(typed("a"), keys("ctrl+j"), typed("b"), keys("enter")), []string{"a\nb"}, ""},
		{"backslash continues", slices.Concat(typed(`one \`), keys("enter"), typed("two"), keys("enter")), []string{"one \ntwo"}, ""},
		{"backslash before the cursor end is text", slices.Concat(typed(`a\b`), keys("enter")), []string{`a\b`}, ""},
		{"backspace edits", slices.Concat(typed("helo"), keys("backspace"), typed("lo"), keys("enter")), []string{"hello"}, ""},
		{"two prompts", slices.Concat(typed("a"), keys("enter"), typed("b"), keys("enter")), []string{"a", "b"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewComposer(ComposerConfig{Theme: NewTheme(true)})
			subs := send(t, c, msgs(tt.keys)...)
			if !slices.Equal(subs, tt.subs) || c.Value() != tt.value {
				t.Errorf("submits %q value %q, want %q %q", subs, c.Value(), tt.subs, tt.value)
			}
		})
	}
}

func TestComposerValueFocus(t *testing.T) {
	c := NewComposer(ComposerConfig{Theme: NewTheme(false)})
	c.SetValue("draft text")
	if c.Value() != "draft text" {
		t.Fatalf("value %q", c.Value())
	}
	c.Blur()
	send(t, c, msgs(typed("x"))...)
	if c.Value() != "draft text" {
		t.Errorf("a blurred composer took a key: %q", c.Value())
	}
	c.Focus()
	send(t, c, msgs(typed("!"))...)
	if c.Value() != "draft text!" {
		t.Errorf("focused: %q", c.Value())
	}
	c.SetWidth(40)
	for _, l := range strings.Split(c.View(), "\n") {
		if ansi.StringWidth(l) > 40 {
			t.Errorf("line wider than 40: %q", ansi.Strip(l))
		}
	}
}

func TestComposerPaste(t *testing.T) {
	c := NewComposer(ComposerConfig{Theme: NewTheme(true)})
	subs := send(t, c, tea.PasteMsg{Content: "line1\r\nline2\rline3\n"})
	if len(subs) != 0 {
		t.Fatalf("paste submitted %q", subs)
	}
	if c.Value() != "line1\nline2\nline3\n" {
		t.Fatalf("value %q", c.Value())
	}
	subs = send(t, c, msgs(typed("end"), press("enter"))...)
	if !slices.Equal(subs, []string{"line1\nline2\nline3\nend"}) {
		t.Errorf("submits %q", subs)
	}
	// A large paste is kept whole.
	big := strings.Repeat("0123456789\n", 500)
	send(t, c, tea.PasteMsg{Content: big})
	if c.Value() != big {
		t.Errorf("a 500-line paste came out %d bytes, want %d", len(c.Value()), len(big))
	}
}

func readHistory(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		var s string
		if err := json.Unmarshal([]byte(l), &s); err != nil {
			t.Fatalf("history line %q: %v", l, err)
		}
		out = append(out, s)
	}
	return out
}

func TestComposerHistory(t *testing.T) {
	hermetic(t)
	dir := t.TempDir()
	hf := filepath.Join(dir, "state", "history.jsonl")
	c := NewComposer(ComposerConfig{HistoryFile: hf, Theme: NewTheme(true)})
	send(t, c, msgs(slices.Concat(typed("one"), keys("enter"), typed("two"), keys("alt+enter"), typed("lines"), keys("enter"), typed("draft")))...)
	steps := []struct{ key, want string }{
		{"up", "two\nlines"}, {"up", "one"}, {"up", "one"}, {"down", "two\nlines"}, {"down", "draft"}, {"down", "draft"},
	}
	for i, s := range steps {
		send(t, c, press(s.key))
		if c.Value() != s.want {
			t.Fatalf("step %d (%s): value %q, want %q", i, s.key, c.Value(), s.want)
		}
	}
	if err := c.Err(); err != nil {
		t.Fatal(err)
	}
	if got := readHistory(t, hf); !slices.Equal(got, []string{"one", "two\nlines"}) {
		t.Errorf("history file %q", got)
	}
	fi, err := os.Stat(hf)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("history file mode %v, want 0600", fi.Mode().Perm())
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(hf), ".history-*"))
	if len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	// Another composer (a later session) starts with it.
	c2 := NewComposer(ComposerConfig{HistoryFile: hf, Theme: NewTheme(true)})
	if !slices.Equal(c2.History(), []string{"one", "two\nlines"}) {
		t.Errorf("reloaded history %q", c2.History())
	}
	send(t, c2, press("up"))
	if c2.Value() != "two\nlines" {
		t.Errorf("up in a new session: %q", c2.Value())
	}
	// Two sessions writing: neither loses the other's entries.
	send(t, c, msgs(slices.Concat(keys("enter"), typed("three"), keys("enter")))...)
	c2.SetValue("")
	send(t, c2, msgs(slices.Concat(typed("four"), keys("enter")))...)
	if got := readHistory(t, hf); !slices.Equal(got, []string{"one", "two\nlines", "draft", "three", "four"}) {
		t.Errorf("history after two sessions %q", got)
	}
}

func TestComposerHistoryBounded(t *testing.T) {
	hermetic(t)
	hf := filepath.Join(t.TempDir(), "history.jsonl")
	var b strings.Builder
	for i := range HistoryMax + 5 {
		fmt.Fprintf(&b, "%q\n", fmt.Sprintf("prompt %d", i))
	}
	b.WriteString("not json\n")
	if err := os.WriteFile(hf, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	c := NewComposer(ComposerConfig{HistoryFile: hf, Theme: NewTheme(true)})
	if h := c.History(); len(h) != HistoryMax || h[0] != "prompt 5" {
		t.Fatalf("loaded %d entries starting %q", len(h), h[0])
	}
	send(t, c, msgs(typed("newest"), press("enter"))...)
	got := readHistory(t, hf)
	if len(got) != HistoryMax || got[0] != "prompt 6" || got[len(got)-1] != "newest" {
		t.Errorf("file has %d entries, %q … %q", len(got), got[0], got[len(got)-1])
	}
}

func TestComposerHistoryError(t *testing.T) {
	hermetic(t)
	dir := t.TempDir()
	// The history file's directory is a file: writing fails, the prompt is
	// still submitted and the error is reported.
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	c := NewComposer(ComposerConfig{HistoryFile: filepath.Join(blocker, "history.jsonl"), Theme: NewTheme(true)})
	subs := send(t, c, msgs(typed("hi"), press("enter"))...)
	if !slices.Equal(subs, []string{"hi"}) {
		t.Fatalf("submits %q", subs)
	}
	if err := c.Err(); err == nil || !strings.Contains(err.Error(), "history "+blocker) {
		t.Errorf("err %v", err)
	}
}

func TestComposerSlashCompletion(t *testing.T) {
	c := NewComposer(ComposerConfig{Theme: NewTheme(true)})
	send(t, c, msgs(typed("/mo"), press("tab"))...)
	if !c.CompletionOpen() {
		t.Fatal("menu not open")
	}
	v := ansi.Strip(c.View())
	if !strings.Contains(v, "/mode [MODE]") || !strings.Contains(v, "/model [NAME]") || strings.Contains(v, "/exit") {
		t.Fatalf("menu:\n%s", v)
	}
	if !strings.Contains(v, "switch to MODE") {
		t.Errorf("menu lacks the help:\n%s", v)
	}
	send(t, c, press("down"), press("enter"))
	if c.CompletionOpen() || c.Value() != "/model " {
		t.Fatalf("after choosing: open=%v value %q", c.CompletionOpen(), c.Value())
	}
	// One candidate completes at once.
	c.SetValue("")
	send(t, c, msgs(typed("/ex"), press("tab"))...)
	if c.CompletionOpen() || c.Value() != "/exit " {
		t.Fatalf("single: open=%v value %q", c.CompletionOpen(), c.Value())
	}
	// Typing re-filters; Esc closes; Enter with the menu closed submits.
	c.SetValue("")
	send(t, c, msgs(typed("/"), press("tab"))...)
	if !strings.Contains(ansi.Strip(c.View()), fmt.Sprintf("of %d", len(Commands))) {
		t.Fatalf("all commands:\n%s", ansi.Strip(c.View()))
	}
	send(t, c, msgs(typed("cl"))...)
	if v := ansi.Strip(c.View()); !strings.Contains(v, "/clear") || strings.Contains(v, "/help") {
		t.Fatalf("re-filtered:\n%s", v)
	}
	send(t, c, press("esc"))
	if c.CompletionOpen() {
		t.Fatal("esc did not close the menu")
	}
	if subs := send(t, c, press("enter")); !slices.Equal(subs, []string{"/cl"}) {
		t.Errorf("submits %q", subs)
	}
	// A slash inside the prompt is not a command.
	c.SetValue("")
	send(t, c, msgs(typed("see /mo"), press("tab"))...)
	if c.CompletionOpen() || c.Value() != "see /mo" {
		t.Errorf("mid-prompt slash: open=%v %q", c.CompletionOpen(), c.Value())
	}
	// No match: nothing opens.
	c.SetValue("")
	send(t, c, msgs(typed("/zz"), press("tab"))...)
	if c.CompletionOpen() {
		t.Error("menu open without a match")
	}
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func writeFiles(t *testing.T, root string, files ...string) {
	t.Helper()
	for _, f := range files {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// gitRepo is a real repository: committed files, an untracked file, an
// ignored file.
func gitRepo(t *testing.T) string {
	hermetic(t)
	root := t.TempDir()
	git(t, root, "init", "-q")
	writeFiles(t, root, "src/main.go", "src/util/strings.go", "README.md", ".gitignore", "build/out.bin", "notes.txt")
	if err := os.WriteFile(filepath.Join(root, ".gitignore"), []byte("build/\n*.log\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, root, "debug.log")
	git(t, root, "add", "src", "README.md", ".gitignore")
	git(t, root, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "init")
	return root
}

func TestComposerFileCompletionGit(t *testing.T) {
	root := gitRepo(t)
	c := NewComposer(ComposerConfig{Root: root, Theme: NewTheme(true)})
	send(t, c, msgs(typed("read @src/ma"), press("tab"))...)
	// The listing arrived through the command; its one match completes.
	if c.CompletionOpen() || c.Value() != "read @src/main.go " {
		t.Fatalf("value %q open %v", c.Value(), c.CompletionOpen())
	}
	// Several matches open the menu: Down and Enter choose.
	c.SetValue("")
	send(t, c, msgs(typed("@src/"), press("tab"))...)
	if v := ansi.Strip(c.View()); !c.CompletionOpen() || !strings.Contains(v, "@src/main.go") || !strings.Contains(v, "@src/util/") {
		t.Fatalf("menu:\n%s", v)
	}
	send(t, c, press("esc"))
	// Listed once: the next Tab with one candidate completes directly.
	c.SetValue("")
	send(t, c, msgs(typed("@src/util/st"), press("tab"))...)
	if c.CompletionOpen() || c.Value() != "@src/util/strings.go " {
		t.Fatalf("value %q open %v", c.Value(), c.CompletionOpen())
	}
	// Directories end with /; ignored files are not offered; untracked are.
	got := ListFiles(root)
	for _, want := range []string{"src/", "src/util/", "src/main.go", "notes.txt", ".gitignore"} {
		if !slices.Contains(got, want) {
			t.Errorf("ListFiles lacks %q: %q", want, got)
		}
	}
	for _, bad := range []string{"debug.log", "build/out.bin", "build/", ".git/"} {
		if slices.Contains(got, bad) {
			t.Errorf("ListFiles offers %q", bad)
		}
	}
	// A directory completes without a trailing space, ready for more.
	c.SetValue("")
	send(t, c, msgs(typed("@sr"), press("tab"))...)
	v := ansi.Strip(c.View())
	if !strings.Contains(v, "@src/") {
		t.Fatalf("menu:\n%s", v)
	}
	send(t, c, press("enter"))
	if c.Value() != "@src/" {
		t.Errorf("dir value %q", c.Value())
	}
	// Fuzzy: the letters in order.
	c.SetValue("")
	send(t, c, msgs(typed("@smg"), press("tab"))...)
	if c.Value() != "@src/main.go " {
		t.Errorf("fuzzy value %q (open %v)", c.Value(), c.CompletionOpen())
	}
}

func TestComposerFileCompletionWalk(t *testing.T) {
	hermetic(t)
	root := t.TempDir()
	writeFiles(t, root, "app/index.js", "node_modules/left-pad/index.js", ".git/config", "docs/guide.md")
	got := ListFiles(root)
	want := []string{"app/", "app/index.js", "docs/", "docs/guide.md"}
	if !slices.Equal(got, want) {
		t.Errorf("ListFiles = %q, want %q", got, want)
	}
	c := NewComposer(ComposerConfig{Root: root, Theme: NewTheme(false)})
	send(t, c, msgs(typed("@index"), press("tab"))...)
	if c.Value() != "@app/index.js " {
		t.Errorf("value %q", c.Value())
	}
}

func TestComposerRefCompletion(t *testing.T) {
	root := gitRepo(t)
	other := t.TempDir()
	writeFiles(t, other, "guide.md", "api/v1.md")
	c := NewComposer(ComposerConfig{Root: root, Refs: map[string]string{"docs": other}, Theme: NewTheme(true)})
	send(t, c, msgs(typed("@docs/gu"), press("tab"))...)
	if c.Value() != "@docs/guide.md " {
		t.Fatalf("value %q open %v", c.Value(), c.CompletionOpen())
	}
	// The ref's name completes to its directory.
	c.SetValue("")
	send(t, c, msgs(typed("@do"), press("tab"))...)
	if c.Value() != "@docs/" {
		t.Fatalf("ref name: %q open %v:\n%s", c.Value(), c.CompletionOpen(), ansi.Strip(c.View()))
	}
	send(t, c, press("tab"))
	if v := ansi.Strip(c.View()); !c.CompletionOpen() || !strings.Contains(v, "@docs/api/v1.md") {
		t.Fatalf("ref listing:\n%s", v)
	}
	send(t, c, press("esc"))
	if c.CompletionOpen() || c.Value() != "@docs/" {
		t.Errorf("esc: open %v value %q", c.CompletionOpen(), c.Value())
	}
}

func TestComposerGolden(t *testing.T) {
	for _, dark := range []bool{true, false} {
		theme := map[bool]string{true: "dark", false: "light"}[dark]
		c := NewComposer(ComposerConfig{Theme: NewTheme(dark)})
		c.SetWidth(80)
		goldenFrame(t, "composer_empty_80_"+theme, c.View())
		send(t, c, msgs(typed("/m"), press("tab"))...)
		goldenFrame(t, "composer_menu_80_"+theme, c.View())
	}
}

func BenchmarkComposerUpdate(b *testing.B) {
	c := NewComposer(ComposerConfig{Theme: NewTheme(true)})
	c.SetWidth(100)
	k := tea.KeyPressMsg{Code: 'x', Text: "x"}
	bs := tea.KeyPressMsg{Code: tea.KeyBackspace}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i%2 == 0 {
			c.Update(k)
		} else {
			c.Update(bs)
		}
		i++
	}
}

// A repository's core.fsmonitor is a program git runs on ls-files
// --others; an untrusted checkout must not run it through @ completion.
func TestListFilesIgnoresFsmonitor(t *testing.T) {
	root := gitRepo(t)
	mark := filepath.Join(t.TempDir(), "ran")
	hook := filepath.Join(t.TempDir(), "fsmonitor.sh")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\ntouch "+mark+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, root, "config", "core.fsmonitor", hook)
	files := ListFiles(root)
	if !slices.Contains(files, "src/main.go") {
		t.Fatalf("listing %q", files)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Fatal("ListFiles ran the repository's fsmonitor program")
	}
}

// BenchmarkComposerCompletionKey types "@pkg017/sub05/file1" into the
// prompt with the @ menu open over a 20,000-file listing (the menu
// re-filters on each key); ns/key is the cost of one key.
func BenchmarkComposerCompletionKey(b *testing.B) {
	root := b.TempDir()
	c := NewComposer(ComposerConfig{Root: root, Theme: NewTheme(true)})
	files := make([]string, 20000)
	for i := range files {
		files[i] = fmt.Sprintf("pkg%03d/sub%02d/file%05d.go", i%300, i%17, i)
	}
	c.Update(filesMsg{dir: filepath.Clean(root), files: withDirs(files)})
	seq := typed("pkg017/sub05/file1")
	b.ReportAllocs()
	for b.Loop() {
		c.SetValue("@")
		c.Update(press("tab"))
		if !c.CompletionOpen() {
			b.Fatal("menu not open")
		}
		for _, k := range seq {
			c.Update(k)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*(len(seq)+1)), "ns/key")
}

func TestMatchFilesRanking(t *testing.T) {
	files := entries(withDirs([]string{"src/main.go", "cmd/main_test.go", "internal/domain.go", "Makefile", "docs/maintenance.md", "x/m/a/i/n.txt", "zz"}))
	all := make([]int32, len(files))
	for i := range all {
		all[i] = int32(i)
	}
	var got []string
	for _, c := range matchFiles(files, all, "main", "@") {
		got = append(got, c.Label)
	}
	want := []string{
		"@src/main.go", "@cmd/main_test.go", "@docs/maintenance.md", // name prefix, shorter first
		"@internal/domain.go", // substring
		"@x/m/a/i/n.txt",      // letters in order
	}
	if !slices.Equal(got, want) {
		t.Errorf("ranking %q, want %q", got, want)
	}
	// Case does not matter; a path prefix ranks first.
	got = got[:0]
	for _, c := range matchFiles(files, all, "MAKE", "@") {
		got = append(got, c.Label)
	}
	if !slices.Equal(got, []string{"@Makefile"}) {
		t.Errorf("MAKE: %q", got)
	}
	if got := shortest([]string{"ccc", "a", "bb", "b", "aa"}, 3); !slices.Equal(got, []string{"a", "b", "aa"}) {
		t.Errorf("shortest = %q", got)
	}
}

// The memoised narrowing gives what a fresh match over the whole listing
// gives, whatever order the queries come in.
func TestComposerMatchNarrowing(t *testing.T) {
	var paths []string
	for i := range 3000 {
		paths = append(paths, fmt.Sprintf("p%d/s%d/File%04d.go", i%7, i%13, i))
	}
	files := entries(withDirs(paths))
	all := make([]int32, len(files))
	for i := range all {
		all[i] = int32(i)
	}
	c := NewComposer(ComposerConfig{Theme: NewTheme(true)})
	for _, q := range []string{"", "p", "p3", "p3/", "p3/s1", "p3/s12/f", "p3", "p3/s1x", "f", "fi", "file00", "F", "x", "p3/s12/file0"} {
		got := c.match("/r", files, q, "@")
		want := matchFiles(files, all, q, "@")
		if !slices.Equal(got, want) {
			t.Fatalf("query %q: %d items, fresh match %d", q, len(got), len(want))
		}
	}
}
