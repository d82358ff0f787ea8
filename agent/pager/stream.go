package pager

import (
	"regexp"
	"strings"

	"charm.land/glamour/v2"
	"github.com/charmbracelet/x/ansi"
)

// mdStream renders a streamed markdown answer. The text is split at the
// last safe boundary — a blank line outside a code fence —: what comes
// before it is final, rendered once and handed back to be committed to the
// scrollback; only the tail after it (the unfinished block) is rendered
// again, when it changed and is shown (deltas that arrive in one batch
// cost one render). So the cost of a delta, and what the live region
// repaints, depends on the block being written, not on the answer so far.
type mdStream struct {
	r     *glamour.TermRenderer
	width int
	// tail is the raw text after the last committed boundary; view its
	// rendering (the live region's streaming part).
	tail string
	view string
	// dirty: the tail changed since view was rendered (it is rendered when
	// shown, so deltas that arrive together, as in a replay, cost one).
	dirty bool
}

func newMDStream(width int, dark bool) *mdStream {
	s := &mdStream{}
	s.setWidth(width, dark)
	return s
}

// setWidth re-creates the renderer for width columns.
func (s *mdStream) setWidth(width int, dark bool) {
	if width <= 0 {
		width = 80
	}
	style := "light"
	if dark {
		style = "dark"
	}
	r, err := glamour.NewTermRenderer(glamour.WithStandardStyle(style), glamour.WithWordWrap(width-4))
	if err != nil {
		r = nil // rendered as plain text
	}
	s.r, s.width, s.dirty = r, width, true
}

// Push adds a delta; committed is the rendering of the blocks that became
// final ("" when none did).
func (s *mdStream) Push(delta string) (committed string) {
	if delta == "" {
		return ""
	}
	s.tail += delta
	if b := safeBoundary(s.tail); b > 0 {
		committed = s.block(s.render(s.tail[:b]))
		s.tail = s.tail[b:]
	}
	s.dirty = true
	return committed
}

// Flush ends the answer: the rest is rendered and handed back.
func (s *mdStream) Flush() string {
	out := s.block(s.render(s.tail))
	s.tail, s.view, s.dirty = "", "", false
	return out
}

// block sets a committed block off from what precedes it by a blank line.
func (s *mdStream) block(r string) string {
	if r == "" {
		return ""
	}
	return "\n" + r
}

// View is the unfinished tail, rendered.
func (s *mdStream) View() string {
	if s.dirty {
		s.view, s.dirty = s.render(s.tail), false
	}
	return s.view
}

// Active reports an unfinished tail.
func (s *mdStream) Active() bool { return s.tail != "" }

func (s *mdStream) render(md string) string {
	if strings.TrimSpace(md) == "" {
		return ""
	}
	if s.r != nil {
		if out, err := s.r.Render(md); err == nil {
			return trimRendered(out)
		}
	}
	return strings.TrimRight(md, "\n")
}

// trimRendered drops glamour's blank first and last lines and the padding
// at the end of each line (bytes the terminal does not need).
func trimRendered(out string) string {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		lines[i] = padRe.ReplaceAllStringFunc(l, func(pad string) string {
			if strings.Contains(pad, "\x1b") {
				return "\x1b[m" // keep the reset the padding carried
			}
			return ""
		})
	}
	for len(lines) > 0 && isBlank(lines[0]) {
		lines = lines[1:]
	}
	for len(lines) > 0 && isBlank(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}

// padRe is the padding glamour ends a line with: spaces, each possibly
// wrapped in style codes.
var padRe = regexp.MustCompile("(?:\x1b\\[[0-9;]*m| )+$")

func isBlank(l string) bool { return strings.TrimSpace(ansi.Strip(l)) == "" }

// safeBoundary is the offset just after the last blank line of md that is
// outside a code fence (0: none). Only complete lines count.
func safeBoundary(md string) int {
	fence, last := "", 0
	for off := 0; off < len(md); {
		nl := strings.IndexByte(md[off:], '\n')
		if nl < 0 {
			break
		}
		line := strings.TrimSpace(md[off : off+nl])
		off += nl + 1
		switch {
		case fence == "" && (strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~")):
			fence = line[:len(line)-len(strings.TrimLeft(line, line[:1]))] // the whole run opens it
		case fence != "":
			// Closed by a line of the same character, at least as long.
			if strings.HasPrefix(line, fence) && strings.Trim(line, fence[:1]) == "" {
				fence = ""
			}
		case line == "":
			last = off
		}
	}
	return last
}
