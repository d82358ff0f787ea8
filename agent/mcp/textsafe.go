package mcp

import "github.com/oceancode/oceancode/internal/termtext"

// neutralize makes a server's text safe to show a model or a terminal: the
// shared terminal-text sanitiser (internal/termtext), which removes escape
// sequences whole (a clipboard write, a title, a link), control characters
// but newline and tab, bidirectional overrides and Unicode tag characters,
// and turns invalid UTF-8 into U+FFFD.
func neutralize(s string) string {
	if plain(s) {
		return s
	}
	return termtext.Text(s)
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
