package pager

// CONTRACT: the components the model (model.go) composes. Their author owns
// dialog.go, composer.go, commands.go, denied.go, diffview.go and theme.go
// and replaces these stubs' bodies; the signatures stay.

import (
	tea "charm.land/bubbletea/v2"
	"github.com/aymanbagabas/go-udiff"

	"github.com/oceancode/oceancode/agent/runner"
)

// Dialog is the approval dialog for one pending ask.
type Dialog struct {
	Ask   runner.PendingAsk
	theme Theme
	width int
}

// NewDialog returns the dialog for ask (queued is how many more asks wait).
func NewDialog(ask runner.PendingAsk, queued int, th Theme, width int) *Dialog {
	return &Dialog{Ask: ask, theme: th, width: width}
}

// Update takes a key. done reports the user answered: reply is the answer
// (y once, a always, n deny — n first opens a one-line note to the model,
// Enter sends it; arrows + Enter choose too; Esc on the note sends deny
// without one).
func (d *Dialog) Update(msg tea.KeyPressMsg) (done bool, reply runner.Reply) { return false, runner.Reply{} }

// SetWidth re-flows the dialog.
func (d *Dialog) SetWidth(w int) { d.width = w }

// View renders the dialog: the tool and target, the parsed segments (which
// asked and why) or the coloured diff, the rule that asked with its layer
// and file:line, what "always" adds and where, Jev's advice, the choices.
func (d *Dialog) View() string { return "" }

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

// Composer is the prompt editor: multi-line (Alt+Enter or Ctrl+J inserts a
// newline, Enter submits), history (Up/Down at the first/last line),
// bracketed paste, @file / @ref/… and slash-command completion (Tab).
type Composer struct {
	cfg   ComposerConfig
	width int
}

// NewComposer returns a focused, empty composer.
func NewComposer(c ComposerConfig) *Composer { return &Composer{cfg: c} }

// Update takes a message (keys, paste). sub is non-nil when the user
// submitted a prompt or a slash command.
func (c *Composer) Update(msg tea.Msg) (cmd tea.Cmd, sub *Submit) { return nil, nil }

// View renders the editor (and the completion menu when open).
func (c *Composer) View() string { return "" }

// SetWidth re-flows the editor; Value/SetValue read and replace its text;
// Focus/Blur move the cursor in and out (a dialog takes the keys).
func (c *Composer) SetWidth(w int)       { c.width = w }
func (c *Composer) Value() string        { return "" }
func (c *Composer) SetValue(s string)    {}
func (c *Composer) Focus()               {}
func (c *Composer) Blur()                {}
func (c *Composer) CompletionOpen() bool { return false }

// Command is one slash command.
type Command struct {
	Name string // without the slash
	Args string // argument synopsis ("[MODE]")
	Help string
}

// Commands are the slash commands, in the order /help shows them.
var Commands = []Command{}

// ParseCommand splits "/name arg…" into its name and arguments; ok is false
// for a line that is not a slash command.
func ParseCommand(line string) (name string, args []string, ok bool) { return "", nil, false }

// Denied is the recently-denied list (the last 10 denied calls).
type Denied struct {
	theme Theme
}

// DeniedCall is one denied call.
type DeniedCall struct {
	Tool, Target, Reason string
	Seq                  int64
}

// NewDenied returns an empty list.
func NewDenied(th Theme) *Denied { return &Denied{theme: th} }

// Observe takes every event; a permission event whose decision denied (a
// rule, the floor, or the user) adds the call.
func (d *Denied) Observe(ev runner.Event) {}

// Items are the denied calls, newest first.
func (d *Denied) Items() []DeniedCall { return nil }

// Update takes a key while the list is shown; retry is the call the user
// asked to run again (r or Enter), done that the list closed (Esc).
func (d *Denied) Update(msg tea.KeyPressMsg) (retry *DeniedCall, done bool) { return nil, false }

// View renders the list.
func (d *Denied) View() string { return "" }

// RenderDiff colours a unified diff for width columns.
func RenderDiff(diff string, th Theme, width int) string { _ = udiff.Unified; return diff }
