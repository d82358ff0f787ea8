package pager

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/aymanbagabas/go-udiff"
	"github.com/charmbracelet/x/ansi"
)

// UnifiedDiff is the unified diff (3 lines of context) that turns old into
// new for the file at path, with a/ and b/ labels; "" when they are equal.
// The engine uses it for PendingAsk.Diff. (Additive to the contract.)
func UnifiedDiff(path, old, new string) string {
	if old == new {
		return ""
	}
	return udiff.Unified("a/"+path, "b/"+path, old, new)
}

// diffLines colours each line of a unified diff and clips it to width
// columns (tabs become four spaces; width <= 0: no clipping).
func diffLines(diff string, th Theme, width int) []string {
	lines := splitDiff(diff)
	for i, l := range lines {
		lines[i] = diffLine(l, th, width)
	}
	return lines
}

// splitDiff is a diff's lines, unstyled (nil: no diff).
func splitDiff(diff string) []string {
	diff = strings.TrimSuffix(diff, "\n")
	if diff == "" {
		return nil
	}
	return strings.Split(diff, "\n")
}

// diffLine colours and clips one line of splitDiff.
func diffLine(l string, th Theme, width int) string {
	l = strings.ReplaceAll(strings.TrimSuffix(l, "\r"), "\t", "    ")
	l = ansi.Strip(l) // a diff's text never styles the terminal
	if width > 0 {
		l = ansi.Truncate(l, width, "…")
	}
	return diffStyle(l, th).Render(l)
}

// diffStyle is the style of one diff line.
func diffStyle(l string, th Theme) lipgloss.Style {
	switch {
	case strings.HasPrefix(l, "+++ "), strings.HasPrefix(l, "--- "), strings.HasPrefix(l, "diff "),
		strings.HasPrefix(l, "index "), strings.HasPrefix(l, "new file"), strings.HasPrefix(l, "deleted file"):
		return th.Header
	case strings.HasPrefix(l, "@@"):
		return th.Hunk
	case strings.HasPrefix(l, "+"):
		return th.Added
	case strings.HasPrefix(l, "-"):
		return th.Removed
	case strings.HasPrefix(l, `\`):
		return th.Muted
	}
	return th.Text
}

// RenderDiff colours a unified diff for width columns: + lines green,
// - lines red, @@ cyan, file headers bold; longer lines are clipped with …
func RenderDiff(diff string, th Theme, width int) string {
	return strings.Join(diffLines(diff, th, width), "\n")
}
