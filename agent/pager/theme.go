package pager

import "charm.land/lipgloss/v2"

// Theme is the pager's styles. CONTRACT (owned by the components' author;
// the model uses the fields).
type Theme struct {
	Dark bool
	// Text, Muted, Accent, Warn, Error, OK are the base styles.
	Text, Muted, Accent, Warn, Error, OK lipgloss.Style
	// Added and Removed colour diff lines; Border frames dialogs.
	Added, Removed, Border lipgloss.Style
}

// NewTheme returns the dark or light theme.
func NewTheme(dark bool) Theme {
	t := Theme{Dark: dark, Text: lipgloss.NewStyle(), Muted: lipgloss.NewStyle().Faint(true),
		Accent: lipgloss.NewStyle().Bold(true), Warn: lipgloss.NewStyle(), Error: lipgloss.NewStyle(), OK: lipgloss.NewStyle(),
		Added: lipgloss.NewStyle(), Removed: lipgloss.NewStyle(), Border: lipgloss.NewStyle()}
	return t
}
