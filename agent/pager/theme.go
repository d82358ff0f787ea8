package pager

import (
	"image/color"

	"charm.land/lipgloss/v2"
)

// Theme is the pager's styles. CONTRACT (owned by the components' author;
// the model uses the fields).
type Theme struct {
	Dark bool
	// Text, Muted, Accent, Warn, Error, OK are the base styles.
	Text, Muted, Accent, Warn, Error, OK lipgloss.Style
	// Added and Removed colour diff lines; Border frames dialogs.
	Added, Removed, Border lipgloss.Style
	// Hunk colours a diff's @@ lines, Header its file headers; Selected
	// marks the highlighted choice or menu item. (Additive to the contract.)
	Hunk, Header, Selected lipgloss.Style
}

// palette is one theme's colours.
type palette struct {
	text, muted, accent, warn, err, ok, added, removed, hunk, border, selFg, selBg color.Color
}

var (
	darkPalette = palette{
		text: lipgloss.Color("#E6E6E6"), muted: lipgloss.Color("#8A8F98"), accent: lipgloss.Color("#7AA2F7"),
		warn: lipgloss.Color("#E0AF68"), err: lipgloss.Color("#F7768E"), ok: lipgloss.Color("#9ECE6A"),
		added: lipgloss.Color("#9ECE6A"), removed: lipgloss.Color("#F7768E"), hunk: lipgloss.Color("#7DCFFF"),
		border: lipgloss.Color("#565F89"), selFg: lipgloss.Color("#1A1B26"), selBg: lipgloss.Color("#7AA2F7"),
	}
	lightPalette = palette{
		text: lipgloss.Color("#1F2328"), muted: lipgloss.Color("#6E7781"), accent: lipgloss.Color("#0969DA"),
		warn: lipgloss.Color("#9A6700"), err: lipgloss.Color("#CF222E"), ok: lipgloss.Color("#1A7F37"),
		added: lipgloss.Color("#1A7F37"), removed: lipgloss.Color("#CF222E"), hunk: lipgloss.Color("#1B7C83"),
		border: lipgloss.Color("#8C959F"), selFg: lipgloss.Color("#FFFFFF"), selBg: lipgloss.Color("#0969DA"),
	}
)

// NewTheme returns the dark or light theme.
func NewTheme(dark bool) Theme {
	p := lightPalette
	if dark {
		p = darkPalette
	}
	s := lipgloss.NewStyle
	return Theme{
		Dark:     dark,
		Text:     s().Foreground(p.text),
		Muted:    s().Foreground(p.muted),
		Accent:   s().Foreground(p.accent).Bold(true),
		Warn:     s().Foreground(p.warn).Bold(true),
		Error:    s().Foreground(p.err).Bold(true),
		OK:       s().Foreground(p.ok),
		Added:    s().Foreground(p.added),
		Removed:  s().Foreground(p.removed),
		Border:   s().Foreground(p.border),
		Hunk:     s().Foreground(p.hunk),
		Header:   s().Foreground(p.text).Bold(true),
		Selected: s().Foreground(p.selFg).Background(p.selBg).Bold(true),
	}
}
