package policycheck

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// refusedEverywhere are members of the class free text may not hold on
// any line: C0 controls other than tab, LF and CR, DEL, C1 controls, the
// line and paragraph separators, the bidirectional embeddings, overrides
// and isolates, and the noncharacters U+FFFE and U+FFFF.
var refusedEverywhere = []rune{0x00, 0x01, 0x07, 0x08, 0x0b, 0x0c, 0x1b, 0x1f, 0x7f, 0x80, 0x85, 0x9b, 0x9f,
	0x2028, 0x2029, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0xfffe, 0xffff}

// lineBreaks are refused on one line, allowed in a multi-line field.
var lineBreaks = []rune{'\t', '\n', '\r'}

func TestCheckText(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"", "Acme", "Acme -- \"quoted\" 'single' $(id) `x` <a> & %s {{x}} ]]> \\ ;#", "Société Générale", "שלום\u200f", "日本語", "emoji 🌊"} {
		if err := CheckText(ok, false); err != nil {
			t.Errorf("CheckText(%q) = %v, want nil", ok, err)
		}
	}
	for _, r := range refusedEverywhere {
		for _, multi := range []bool{false, true} {
			s := "Acme" + string(r) + "Inc"
			err := CheckText(s, multi)
			if !errors.Is(err, ErrText) || !strings.Contains(err.Error(), fmt.Sprintf("U+%04X", r)) || !strings.Contains(err.Error(), "at byte 4") {
				t.Errorf("CheckText(%q, multiLine %v) = %v, want ErrText naming U+%04X at byte 4", s, multi, err, r)
			}
		}
	}
	for _, r := range lineBreaks {
		if err := CheckText("a"+string(r)+"b", false); !errors.Is(err, ErrText) {
			t.Errorf("CheckText(%q) one line = %v, want refused", string(r), err)
		}
		if err := CheckText("a"+string(r)+"b", true); err != nil {
			t.Errorf("CheckText(%q) multi-line = %v, want nil", string(r), err)
		}
	}
	if err := CheckText("a\xffb", true); !errors.Is(err, ErrText) || !strings.Contains(err.Error(), "UTF-8") {
		t.Errorf("invalid UTF-8: %v", err)
	}
}

// TestTextFields: every free-text member of each kind is checked, with
// its JSON Pointer and line; other members are not (a command's argument
// may hold a newline).
func TestTextFields(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		doc   string
		ptr   string
		multi bool
	}{
		{`{"org": %s}`, "/org", false},
		{`{"instructions": %s}`, "/instructions", true},
		{`{"scopes": [{"name": "ok"}, {"name": %s}]}`, "/scopes/1/name", false},
		{`{"scopes": [{"match": {"groups": ["a", %s]}}]}`, "/scopes/0/match/groups/1", false},
		{`{"scopes": [{"require": {"instructions": %s}}]}`, "/scopes/0/require/instructions", true},
		{`{"agents": {"rev": {"description": %s}}}`, "/agents/rev/description", true},
		{`{"agents": {"rev": {"prompt": %s}}}`, "/agents/rev/prompt", true},
	} {
		refused := append([]rune{}, refusedEverywhere...)
		if !tc.multi {
			refused = append(refused, lineBreaks...)
		}
		for _, r := range refused {
			val, _ := json.Marshal("x" + string(r))
			doc := parse(t, "\n"+fmt.Sprintf(tc.doc, val))
			got := Text("p.json", doc)
			if len(got) != 1 || got[0].Pointer != tc.ptr || got[0].Keyword != KeywordText || got[0].Line != 2 || got[0].File != "p.json" ||
				!strings.Contains(got[0].Message, fmt.Sprintf("U+%04X", r)) {
				t.Errorf("%s with U+%04X: got\n%s", tc.ptr, r, list(got))
			}
		}
		if tc.multi {
			val, _ := json.Marshal("line 1\n\tline 2\r\n")
			if got := Text("p.json", parse(t, fmt.Sprintf(tc.doc, val))); len(got) != 0 {
				t.Errorf("%s: line breaks refused in a multi-line field:\n%s", tc.ptr, list(got))
			}
		}
	}
	// An agent's name (a key) is one line of text.
	if got := Text("p.json", parse(t, `{"agents": {"a\u202eb": {}}}`)); len(got) != 1 || got[0].Pointer != "/agents/a\u202eb" {
		t.Errorf("agent name: %s", list(got))
	}
	// Opaque values handed to programs are not free text.
	if got := Text("p.json", parse(t, `{"mcp": {"servers": {"x": {"command": "python3", "args": ["-c", "a\nb"]}}}, "child_env": {"set": {"A": "x\ty"}}}`)); len(got) != 0 {
		t.Errorf("opaque values checked as free text:\n%s", list(got))
	}
}
