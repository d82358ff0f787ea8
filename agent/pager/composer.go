package pager

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/oceancode/oceancode/internal/gitquery"
)

// Submit is what the composer hands the model when the user presses Enter.
type Submit struct {
	Text string
}

// ComposerConfig configures a Composer.
type ComposerConfig struct {
	// Root is the project root (@file completion walks it, .gitignore
	// respected); Refs are the @ref aliases (name → directory).
	Root string
	Refs map[string]string
	// HistoryFile keeps prompt history across sessions ("" = memory only).
	HistoryFile string
	Theme       Theme
}

// Limits of the composer.
const (
	// HistoryMax is how many prompts the history keeps.
	HistoryMax = 1000
	// MenuRows is how many completions the menu shows at once.
	MenuRows = 8
	// walkMax bounds the files a directory walk (outside git) collects,
	// lsFilesMax those `git ls-files` returns.
	walkMax    = 5000
	lsFilesMax = 50000
	// completionsMax bounds the candidates one completion offers.
	completionsMax = 200
	// listTimeout bounds one `git ls-files`.
	listTimeout = 5 * time.Second
)

// Composer is the prompt editor: multi-line (Alt+Enter or Ctrl+J inserts a
// newline, Enter submits), history (Up/Down at the first/last line),
// bracketed paste, @file / @ref/… and slash-command completion (Tab).
type Composer struct {
	cfg   ComposerConfig
	width int
	ta    textarea.Model

	history []string // oldest first
	hpos    int      // the entry shown; len(history): the draft
	draft   string   // what was typed before Up went into the history

	menu  *menu                  // the open completion menu (nil: closed)
	files map[string][]fileEntry // listed files per directory
	// matched memoises, per directory and query, the entries that match
	// (a longer query narrows a shorter one's set instead of the whole
	// listing); cleared when a listing arrives or a menu opens.
	matched map[string][]int32
	err     error // the last history error
	// custom are the session's custom commands (custom.go).
	custom []Command
}

// menu is an open completion menu.
type menu struct {
	token string // the text it completes (before the cursor)
	items []completion
	sel   int
	// pending: opened by Tab before the file listing arrived; a listing
	// with one match then completes it as Tab would have.
	pending bool
}

// completion is one menu item: Insert replaces the token.
type completion struct {
	Insert, Label, Help string
}

// filesMsg carries a directory's listing back from a tea.Cmd.
type filesMsg struct {
	dir   string
	files []string
}

// NewComposer returns a focused, empty composer.
func NewComposer(c ComposerConfig) *Composer {
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.Prompt = "› "
	ta.Placeholder = "ask anything · / commands · @ files · Alt+Enter newline"
	ta.DynamicHeight = true
	ta.MinHeight = 1
	ta.MaxHeight = 10
	ta.MaxContentHeight = 10000
	ta.CharLimit = 0
	ta.KeyMap.InsertNewline = key.NewBinding(key.WithKeys("alt+enter", "ctrl+j", "shift+enter"))
	st := textarea.DefaultStyles(c.Theme.Dark)
	st.Focused.Prompt = c.Theme.Accent
	st.Focused.Text = c.Theme.Text
	st.Focused.Placeholder = c.Theme.Muted
	st.Focused.CursorLine = c.Theme.Text
	st.Blurred = st.Focused
	st.Blurred.Prompt = c.Theme.Muted
	ta.SetStyles(st)
	ta.SetWidth(80)
	ta.Focus()
	co := &Composer{cfg: c, ta: ta, width: 80, files: map[string][]fileEntry{}}
	if c.HistoryFile != "" {
		co.history, co.err = loadHistory(c.HistoryFile)
	}
	co.hpos = len(co.history)
	return co
}

// Err is the last error reading or writing the history file (nil: none).
// (Additive to the contract.)
func (c *Composer) Err() error { return c.err }

// History is the prompt history, oldest first. (Additive to the contract.)
func (c *Composer) History() []string { return slices.Clone(c.history) }

// Update takes a message (keys, paste). sub is non-nil when the user
// submitted a prompt or a slash command.
func (c *Composer) Update(msg tea.Msg) (cmd tea.Cmd, sub *Submit) {
	switch msg := msg.(type) {
	case tea.PasteMsg:
		// Pasted text is inserted, never submitted; CRLF and CR become LF.
		text := strings.ReplaceAll(msg.Content, "\r\n", "\n")
		text = strings.ReplaceAll(text, "\r", "\n")
		c.ta.InsertString(text)
		c.refreshMenu()
		return nil, nil
	case filesMsg:
		c.files[msg.dir] = entries(msg.files)
		c.matched = nil
		c.refreshMenu()
		if m := c.menu; m != nil && m.pending {
			m.pending = false
			if len(m.items) == 1 {
				c.accept()
			}
		}
		return nil, nil
	case tea.KeyPressMsg:
		return c.key(msg)
	}
	var tcmd tea.Cmd
	c.ta, tcmd = c.ta.Update(msg)
	return tcmd, nil
}

func (c *Composer) key(msg tea.KeyPressMsg) (tea.Cmd, *Submit) {
	k := msg.String()
	if c.menu != nil {
		switch k {
		case "esc":
			c.menu = nil
			return nil, nil
		case "up", "shift+tab", "ctrl+p":
			c.menu.sel = (c.menu.sel + len(c.menu.items) - 1) % len(c.menu.items)
			return nil, nil
		case "down", "tab", "ctrl+n":
			c.menu.sel = (c.menu.sel + 1) % len(c.menu.items)
			return nil, nil
		case "enter":
			c.accept()
			return nil, nil
		}
	}
	switch k {
	case "tab":
		return c.complete(), nil
	case "enter":
		v := c.ta.Value()
		if c.cursorAtEnd() && strings.HasSuffix(v, `\`) {
			// A trailing backslash continues the prompt on a new line.
			c.ta.SetValue(strings.TrimSuffix(v, `\`) + "\n")
			return nil, nil
		}
		if strings.TrimSpace(v) == "" {
			return nil, nil
		}
		c.remember(v)
		c.ta.Reset()
		c.menu = nil
		return nil, &Submit{Text: v}
	case "up":
		if c.ta.Line() == 0 && c.hpos > 0 {
			if c.hpos == len(c.history) {
				c.draft = c.ta.Value()
			}
			c.hpos--
			c.show(c.history[c.hpos], false)
			return nil, nil
		}
	case "down":
		if c.ta.Line() == c.ta.LineCount()-1 && c.hpos < len(c.history) {
			c.hpos++
			if c.hpos == len(c.history) {
				c.show(c.draft, true)
			} else {
				c.show(c.history[c.hpos], true)
			}
			return nil, nil
		}
	}
	var tcmd tea.Cmd
	c.ta, tcmd = c.ta.Update(msg)
	c.refreshMenu()
	return tcmd, nil
}

// show puts a history entry in the editor, the cursor at its start (atEnd
// false: Up keeps walking back from the first line) or its end.
func (c *Composer) show(s string, atEnd bool) {
	c.ta.SetValue(s)
	if !atEnd {
		c.ta.MoveToBegin()
	}
}

// cursorAtEnd reports whether the cursor is after the last character.
func (c *Composer) cursorAtEnd() bool {
	lines := strings.Split(c.ta.Value(), "\n")
	return c.ta.Line() == len(lines)-1 && c.ta.Column() >= len([]rune(lines[len(lines)-1]))
}

// remember adds a submitted prompt to the history and the history file.
func (c *Composer) remember(v string) {
	if n := len(c.history); n == 0 || c.history[n-1] != v {
		c.history = append(c.history, v)
	}
	if len(c.history) > HistoryMax {
		c.history = slices.Clone(c.history[len(c.history)-HistoryMax:])
	}
	c.hpos, c.draft = len(c.history), ""
	if c.cfg.HistoryFile != "" {
		c.err = appendHistory(c.cfg.HistoryFile, v)
	}
}

// loadHistory reads a history file: one JSON string a line (a prompt may
// span lines), oldest first; a missing file is an empty history.
func loadHistory(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read history %s: %w", path, err)
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	for sc.Scan() {
		var s string
		if json.Unmarshal(sc.Bytes(), &s) == nil && s != "" {
			out = append(out, s)
		}
	}
	if len(out) > HistoryMax {
		out = out[len(out)-HistoryMax:]
	}
	return out, nil
}

// appendHistory adds v to the history file, re-reading it first (another
// pager may have added to it), keeping the newest HistoryMax entries, and
// replacing the file atomically (a temporary file renamed over it, 0600).
func appendHistory(path, v string) error {
	h, err := loadHistory(path)
	if err != nil {
		return err
	}
	if len(h) == 0 || h[len(h)-1] != v {
		h = append(h, v)
	}
	if len(h) > HistoryMax {
		h = h[len(h)-HistoryMax:]
	}
	var buf bytes.Buffer
	for _, s := range h {
		b, _ := json.Marshal(s)
		buf.Write(b)
		buf.WriteByte('\n')
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("write history %s: %w", path, err)
	}
	f, err := os.CreateTemp(dir, ".history-*")
	if err != nil {
		return fmt.Errorf("write history %s: %w", path, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // after a successful rename: no such file
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return fmt.Errorf("write history %s: %w", path, err)
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		f.Close()
		return fmt.Errorf("write history %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("write history %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write history %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write history %s: %w", path, err)
	}
	return nil
}

// token is the word before the cursor and whether it starts the prompt.
func (c *Composer) token() (string, bool) {
	lines := strings.Split(c.ta.Value(), "\n")
	row := min(c.ta.Line(), len(lines)-1)
	line := []rune(lines[row])
	col := min(c.ta.Column(), len(line))
	start := col
	for start > 0 && line[start-1] != ' ' && line[start-1] != '\t' {
		start--
	}
	return string(line[start:col]), row == 0 && strings.TrimSpace(string(line[:start])) == ""
}

// complete handles Tab with the menu closed: one candidate is inserted,
// several open the menu. The file list of a directory not listed yet is
// fetched by the returned command (the menu fills when it arrives).
func (c *Composer) complete() tea.Cmd {
	c.matched = nil
	tok, first := c.token()
	items, dir, pending := c.candidates(tok, first)
	var cmd tea.Cmd
	if pending {
		cmd = c.listCmd(dir)
	}
	switch {
	case len(items) == 1 && !pending:
		c.menu = &menu{token: tok, items: items}
		c.accept()
	case len(items) > 0 || pending:
		c.menu = &menu{token: tok, items: items, pending: pending}
	}
	return cmd
}

// refreshMenu re-filters an open menu after an edit; it closes when the
// word no longer completes.
func (c *Composer) refreshMenu() {
	if c.menu == nil {
		return
	}
	tok, first := c.token()
	items, _, pending := c.candidates(tok, first)
	if len(items) == 0 && !pending {
		c.menu = nil
		return
	}
	c.menu.token, c.menu.items = tok, items
	c.menu.sel = min(c.menu.sel, max(len(items)-1, 0))
}

// accept replaces the word before the cursor with the selected item.
func (c *Composer) accept() {
	m := c.menu
	c.menu = nil
	if m == nil || len(m.items) == 0 {
		return
	}
	tok, _ := c.token()
	for range []rune(tok) {
		c.ta, _ = c.ta.Update(tea.KeyPressMsg{Code: tea.KeyBackspace})
	}
	c.ta.InsertString(m.items[m.sel].Insert)
}

// candidates are the completions of tok; dir and pending say which
// directory's listing is still missing.
func (c *Composer) candidates(tok string, first bool) (items []completion, dir string, pending bool) {
	switch {
	case first && strings.HasPrefix(tok, "/"):
		q := tok[1:]
		for _, cmd := range append(Commands[:len(Commands):len(Commands)], c.custom...) {
			if strings.HasPrefix(cmd.Name, q) {
				items = append(items, completion{Insert: "/" + cmd.Name + " ", Label: "/" + cmd.Name + " " + cmd.Args, Help: cmd.Help})
			}
		}
		return items, "", false
	case strings.HasPrefix(tok, "@"):
		q := tok[1:]
		if name, rest, ok := strings.Cut(q, "/"); ok {
			if d, ok := c.cfg.Refs[name]; ok {
				dir = c.abs(d)
				files, ok := c.files[dir]
				return c.match(dir, files, rest, "@"+name+"/"), dir, !ok
			}
		}
		for _, name := range sortedKeys(c.cfg.Refs) {
			if strings.HasPrefix(name, q) {
				items = append(items, completion{Insert: "@" + name + "/", Label: "@" + name + "/", Help: "ref → " + c.cfg.Refs[name]})
			}
		}
		if c.cfg.Root == "" {
			return items, "", false
		}
		dir = c.abs(c.cfg.Root)
		files, ok := c.files[dir]
		return append(items, c.match(dir, files, q, "@")...), dir, !ok
	}
	return nil, "", false
}

// abs resolves a ref's directory against the root.
func (c *Composer) abs(d string) string {
	if !filepath.IsAbs(d) && c.cfg.Root != "" {
		d = filepath.Join(c.cfg.Root, d)
	}
	return filepath.Clean(d)
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// listCmd lists dir's files in the background.
func (c *Composer) listCmd(dir string) tea.Cmd {
	return func() tea.Msg { return filesMsg{dir: dir, files: ListFiles(dir)} }
}

// ListFiles lists the files under dir for @ completion, slash-separated
// and relative to dir, with every directory among them (ending in /):
// `git ls-files` (tracked and untracked, .gitignore respected) when dir is
// in a git work tree, else a walk of at most 5,000 entries that skips .git
// and node_modules. (Additive to the contract.)
func ListFiles(dir string) []string {
	files, err := gitFiles(dir)
	if err != nil {
		files = walkFiles(dir)
	}
	return withDirs(files)
}

func gitFiles(dir string) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), listTimeout)
	defer cancel()
	// The repository may be untrusted: its config must not run a program
	// (internal/gitquery), and git must not prompt.
	cmd := gitquery.Command(ctx, dir, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files %s: %w", dir, err)
	}
	var files []string
	for f := range strings.SplitSeq(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		if f != "" && len(files) < lsFilesMax {
			files = append(files, f)
		}
	}
	slices.Sort(files)
	return slices.Compact(files), nil
}

func walkFiles(dir string) []string {
	var files []string
	_ = filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if len(files) >= walkMax {
			return filepath.SkipAll
		}
		if e.IsDir() {
			if n := e.Name(); p != dir && (n == ".git" || n == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if rel, err := filepath.Rel(dir, p); err == nil {
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	return files
}

// withDirs adds each file's parent directories (ending in /).
func withDirs(files []string) []string {
	seen := map[string]bool{}
	out := slices.Clone(files)
	for _, f := range files {
		for i := strings.Index(f, "/"); i >= 0; {
			d := f[:i+1]
			if !seen[d] {
				seen[d] = true
				out = append(out, d)
			}
			j := strings.Index(f[i+1:], "/")
			if j < 0 {
				break
			}
			i += j + 1
		}
	}
	slices.Sort(out)
	return out
}

// fileEntry is a listed path (slash-separated, directories end with /)
// with its lowercase forms, computed once per listing.
type fileEntry struct {
	path, lower, base string
}

func entries(files []string) []fileEntry {
	out := make([]fileEntry, len(files))
	for i, f := range files {
		l := strings.ToLower(f)
		out[i] = fileEntry{path: f, lower: l, base: filepath.Base(strings.TrimSuffix(l, "/"))}
	}
	return out
}

// match is matchFiles over the entries of dir that can match q: every
// rank implies the letters in order, so the set of a query is a subset of
// that of any prefix of it.
func (c *Composer) match(dir string, files []fileEntry, q, prefix string) []completion {
	lq := strings.ToLower(q)
	if c.matched == nil || len(c.matched) > 256 {
		c.matched = map[string][]int32{}
	}
	key := dir + "\x00" + lq
	idx, ok := c.matched[key]
	if !ok {
		var from []int32
		for i := len(lq) - 1; i >= 0 && from == nil; i-- {
			from = c.matched[dir+"\x00"+lq[:i]]
		}
		idx = make([]int32, 0, min(len(files), max(len(from), 64)))
		if from != nil {
			for _, i := range from {
				if subsequence(files[i].lower, lq) {
					idx = append(idx, i)
				}
			}
		} else {
			for i := range files {
				if subsequence(files[i].lower, lq) {
					idx = append(idx, int32(i))
				}
			}
		}
		c.matched[key] = idx
	}
	return matchFiles(files, idx, q, prefix)
}

// matchFiles ranks the files (those at idx) matching q: a path prefix first, then a name
// prefix, then a substring, then the letters in order (fuzzy); shorter
// paths first within a rank.
func matchFiles(files []fileEntry, idx []int32, q, prefix string) []completion {
	lq := strings.ToLower(q)
	var ranks [4][]string
	for _, i := range idx {
		e := &files[i]
		r := -1
		switch {
		case strings.HasPrefix(e.lower, lq):
			r = 0
		case strings.HasPrefix(e.base, lq):
			r = 1
		case strings.Contains(e.lower, lq):
			r = 2
		case subsequence(e.lower, lq):
			r = 3
		}
		if r >= 0 {
			ranks[r] = append(ranks[r], e.path)
		}
	}
	var out []completion
	for _, paths := range ranks {
		for _, f := range shortest(paths, completionsMax-len(out)) {
			ins := prefix + f
			if !strings.HasSuffix(f, "/") {
				ins += " "
			}
			out = append(out, completion{Insert: ins, Label: prefix + f})
		}
	}
	return out
}

// shortest is the k shortest paths (ties by name), in that order; it sorts
// only the candidates a histogram of lengths keeps, so a 20,000-file
// listing filters within a keystroke's budget.
func shortest(paths []string, k int) []string {
	if k <= 0 || len(paths) == 0 {
		return nil
	}
	const capLen = 256
	if len(paths) > k {
		var hist [capLen + 1]int
		for _, p := range paths {
			hist[min(len(p), capLen)]++
		}
		cut, n := 0, 0
		for ; cut < capLen && n+hist[cut] < k; cut++ {
			n += hist[cut]
		}
		var keep []string
		for _, p := range paths {
			if min(len(p), capLen) <= cut {
				keep = append(keep, p)
			}
		}
		paths = keep
	}
	slices.SortFunc(paths, func(a, b string) int {
		if len(a) != len(b) {
			return len(a) - len(b)
		}
		return strings.Compare(a, b)
	})
	return paths[:min(k, len(paths))]
}

func subsequence(s, q string) bool {
	for _, r := range q {
		i := strings.IndexRune(s, r)
		if i < 0 {
			return false
		}
		s = s[i+len(string(r)):]
	}
	return true
}

// View renders the editor (and the completion menu when open).
func (c *Composer) View() string {
	v := c.ta.View()
	if c.menu == nil {
		return v
	}
	return v + "\n" + c.menuView()
}

// menuView is the completion menu: a window of MenuRows items around the
// selection, the help of the selected one, the count.
func (c *Composer) menuView() string {
	th, m := c.cfg.Theme, c.menu
	w := max(c.width, 20)
	if len(m.items) == 0 {
		return th.Muted.Render("  listing files…")
	}
	from := max(0, min(m.sel-MenuRows/2, len(m.items)-MenuRows))
	to := min(len(m.items), from+MenuRows)
	labelW := 0
	for _, it := range m.items[from:to] {
		labelW = max(labelW, ansi.StringWidth(clean(it.Label)))
	}
	labelW = min(labelW, w/2)
	var b []string
	for i := from; i < to; i++ {
		it := m.items[i]
		line := clean(it.Label)
		if it.Help != "" {
			line += strings.Repeat(" ", max(labelW-ansi.StringWidth(line), 0)) + "  " + th.Muted.Render(clean(it.Help))
		}
		line = ansi.Truncate(line, w-4, "…")
		if i == m.sel {
			b = append(b, th.Selected.Render("› ")+th.Accent.Render(ansi.Strip(line)))
		} else {
			b = append(b, "  "+th.Text.Render(line))
		}
	}
	b = append(b, th.Muted.Render(fmt.Sprintf("  %d of %d · Tab/↑/↓ move · Enter insert · Esc close", m.sel+1, len(m.items))))
	return lipgloss.NewStyle().Width(w).Render(strings.Join(b, "\n"))
}

// SetWidth re-flows the editor; Value/SetValue read and replace its text;
// Focus/Blur move the cursor in and out (a dialog takes the keys).
func (c *Composer) SetWidth(w int) {
	c.width = w
	c.ta.SetWidth(max(w, 10))
}
func (c *Composer) Value() string { return c.ta.Value() }
func (c *Composer) SetValue(s string) {
	c.ta.SetValue(s)
	c.menu = nil
	c.hpos, c.draft = len(c.history), ""
}
func (c *Composer) Focus()               { c.ta.Focus() }
func (c *Composer) Blur()                { c.ta.Blur(); c.menu = nil }
func (c *Composer) CompletionOpen() bool { return c.menu != nil }
