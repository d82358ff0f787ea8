package mcp

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// neutralize makes a server's text safe to show a model or a terminal:
// escape sequences (CSI, OSC — a clipboard write, a title, a link — DCS, …)
// are removed whole, payload included; the remaining C0 and C1 control
// characters and DEL are dropped except newline and tab ("\r\n" becomes
// "\n"); bidirectional overrides and isolates, and Unicode tag characters
// (invisible text a model still reads) are dropped; invalid UTF-8 becomes
// U+FFFD, so a raw 8-bit C1 byte never reaches a terminal.
//
// TODO(integrator): fold into the shared terminal-text sanitiser
// (internal/termtext) once it lands; this is the MCP side's copy.
func neutralize(s string) string {
	if plain(s) {
		return s
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	if i := strings.IndexByte(s, 0x1b); i >= 0 {
		// Sequences start with ESC (a raw 8-bit C1 introducer is invalid
		// UTF-8, replaced above): the text before the first is kept as is.
		s = s[:i] + ansi.Strip(s[i:])
	}
	return strings.Map(func(r rune) rune {
		if dropped(r) {
			return -1
		}
		return r
	}, s)
}

// plain reports whether s is printable ASCII, newlines and tabs only.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x7f || c < 0x20 && c != '\n' && c != '\t' {
			return false
		}
	}
	return true
}

// dropped reports whether r is a control, bidi or tag character.
func dropped(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r >= 0x7f && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	case r >= 0xe0000 && r <= 0xe007f, r >= 0xfff9 && r <= 0xfffb:
		return true
	}
	return false
}
