package termtext

import "testing"

func TestSanitize(t *testing.T) {
	for _, tc := range []struct{ in, text, line string }{
		{"plain\ttext\n", "plain\ttext\n", "plain text\n"},
		{"a\x1b]52;c;cm0gLXJmIC8=\x07b", "ab", "ab"},                                // OSC 52 clipboard write (BEL)
		{"a\x1b]52;c;cm0gLXJmIC8=\x1b\\b", "ab", "ab"},                              // … (ST)
		{"\x1b]0;pwned title\x07ok", "ok", "ok"},                                    // OSC 0 title
		{"\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\", "click", "click"}, // OSC 8 link
		{"x\x1b[2Jy\x1b[31mred\x1b[0m", "xyred", "xyred"},                           // CSI clear screen, SGR
		{"\x1bPtmux;\x1b\x1b]52;c;eA==\x07\x1b\\z", "z", "z"},                       // DCS passthrough
		{"lone \x1b esc \x9b2J c1 \x90 \r\x08\x00", "lone sc  c1 ", "lone sc  c1 "},
		{"safe\u202eexe.txt\u2066", "safeexe.txt", "safeexe.txt"}, // bidi override and isolate
		{"emoji 👩‍💻 and ü", "emoji 👩‍💻 and ü", "emoji 👩‍💻 and ü"},
		{"bad\xffbyte", "badbyte", "badbyte"},        // invalid UTF-8, no other control: never passed through
		{"tag\U000E0041\U000E007F!", "tag!", "tag!"}, // invisible tag characters
	} {
		if got := Text(tc.in); got != tc.text {
			t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.text)
		}
		if got := Line(tc.in); got != tc.line {
			t.Errorf("Line(%q) = %q, want %q", tc.in, got, tc.line)
		}
	}
}

// FuzzSanitize: whatever the input, the output holds no control byte but
// newline and tab, and sanitising it again changes nothing.
func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"", "\x1b]52;c;x\x07", "\x1b[2J", "\x9b31m", "a\u202eb", "\x1bP\x1b\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Text(s)
		for _, r := range out {
			if r != '\n' && r != '\t' && unsafe(r) {
				t.Fatalf("Text(%q) = %q holds %U", s, out, r)
			}
		}
		if again := Text(out); again != out {
			t.Fatalf("Text not idempotent: %q → %q → %q", s, out, again)
		}
	})
}
