// Package termtext makes text from the model, a tool or an MCP server safe
// to write to a terminal: the one sanitiser the pager and every CLI path
// that prints such text (run's text output, session show, mcp, error
// messages) share. Escape sequences are removed whole (CSI such as ESC[2J,
// OSC such as OSC 52 clipboard writes, OSC 0 titles and OSC 8 links, DCS,
// APC, …: charmbracelet/x/ansi's Strip), then every remaining C0 and C1
// control character but newline (and tab, when kept) and the bidirectional
// embedding, override and isolate controls (U+202A–U+202E, U+2066–U+2069,
// U+200E, U+200F, U+061C), which reorder what a terminal shows, and the Unicode
// tag characters and interlinear annotations, invisible text a model still
// reads; invalid UTF-8 becomes U+FFFD. What is
// left is text: no byte of it makes a terminal do anything but print.
package termtext

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Text is Sanitize keeping tabs: for multi-line text (an answer, a tool's
// output).
func Text(s string) string { return Sanitize(s, true) }

// Line is Sanitize with tabs as spaces: for text shown inside a line or a
// table cell.
func Line(s string) string { return Sanitize(s, false) }

// Sanitize removes escape sequences and control characters from s, keeping
// newlines, and tabs when keepTabs (otherwise each becomes a space). Invalid
// UTF-8 becomes U+FFFD, so a raw 8-bit C1 byte never reaches a terminal.
func Sanitize(s string, keepTabs bool) string {
	if utf8.ValidString(s) && !strings.ContainsFunc(s, unsafe) {
		return s
	}
	s = strings.ToValidUTF8(ansi.Strip(s), "\uFFFD")
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n':
			return r
		case r == '\t' && keepTabs:
			return r
		case r == '\t':
			return ' '
		case unsafe(r):
			return -1
		}
		return r
	}, s)
}

// unsafe reports whether r is a control character or a bidirectional
// formatting character (newline and tab included: the caller keeps them).
func unsafe(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	case r >= 0xe0000 && r <= 0xe007f, r >= 0xfff9 && r <= 0xfffb:
		return true // tag characters and interlinear annotations: invisible text a model still reads
	}
	return false
}
