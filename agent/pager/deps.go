package pager

// The pager's libraries, pinned for every part of it (removed once the
// package uses them).
import (
	_ "charm.land/bubbles/v2/textarea"
	_ "charm.land/bubbletea/v2"
	_ "charm.land/glamour/v2"
	_ "charm.land/lipgloss/v2"
	_ "github.com/aymanbagabas/go-udiff"
)
