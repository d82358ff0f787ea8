package policycheck

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/oceancode/oceancode/internal/jsonpos"
	"github.com/oceancode/oceancode/schema"
)

// KeywordText is the keyword of a free-text field holding a character it
// may not hold (schema.Violation.Keyword).
const KeywordText = "text"

// ErrText is wrapped by CheckText's errors.
var ErrText = errors.New("character free text may not hold")

// CheckText returns an error naming the first character of s that free
// text may not hold, or nil. Free text (an organisation's name, an agent's
// description, the organisation's instructions) is shown on terminals,
// handed to models and written into packaged artefacts (.reg, .ps1,
// profiles, package metadata), so it holds printable characters only:
//
//   - no C0 control character (U+0000–U+001F), except tab, line feed and
//     carriage return where multiLine allows line breaks;
//   - no DEL (U+007F) and no C1 control character (U+0080–U+009F);
//   - no line or paragraph separator (U+2028, U+2029): write \n in a
//     multi-line field;
//   - no bidirectional embedding, override or isolate (U+202A–U+202E,
//     U+2066–U+2069), which make text read differently from what it is;
//   - no noncharacter U+FFFE or U+FFFF, and valid UTF-8.
func CheckText(s string, multiLine bool) error {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return fmt.Errorf("%w: invalid UTF-8 at byte %d", ErrText, i)
			}
		}
		if multiLine && (r == '\t' || r == '\n' || r == '\r') {
			continue
		}
		if name := refusedRune(r); name != "" {
			return fmt.Errorf("%w: %s (U+%04X) at byte %d", ErrText, name, r, i)
		}
	}
	return nil
}

// refusedRune names r when free text may not hold it, else "".
func refusedRune(r rune) string {
	switch {
	case r == '\t':
		return "tab"
	case r == '\n':
		return "line feed"
	case r == '\r':
		return "carriage return"
	case r == 0x1b:
		return "escape"
	case r < 0x20:
		return "control character"
	case r == 0x7f:
		return "delete"
	case r >= 0x80 && r <= 0x9f:
		return "C1 control character"
	case r == 0x2028:
		return "line separator"
	case r == 0x2029:
		return "paragraph separator"
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return "bidirectional override"
	case r == 0xfffe || r == 0xffff:
		return "noncharacter"
	}
	return ""
}

// freeText is one kind of free-text member: its JSON Pointer tokens ("*"
// matches any one token; a trailing "" names the keys of an object) and
// whether it may hold line breaks.
type freeText struct {
	path      []string
	multiLine bool
}

// freeTexts are the free-text members of the three file kinds: requirements
// (org, instructions, scopes) and config and managed (agents).
var freeTexts = []freeText{
	{[]string{"org"}, false},
	{[]string{"instructions"}, true},
	{[]string{"scopes", "*", "name"}, false},
	{[]string{"scopes", "*", "match", "groups", "*"}, false},
	{[]string{"scopes", "*", "require", "instructions"}, true},
	{[]string{"agents", ""}, false},
	{[]string{"agents", "*", "description"}, true},
	{[]string{"agents", "*", "prompt"}, true},
}

// Text returns a violation for every free-text member of doc (a
// requirements payload, a managed config or a user's or project's config)
// that holds a character CheckText refuses, naming its JSON Pointer, line
// and column.
func Text(file string, doc *jsonpos.Doc) []schema.Violation {
	c := &checker{file: file, doc: doc}
	for _, ft := range freeTexts {
		c.text(doc.Value, nil, ft)
	}
	return c.out
}

// text walks v along the rest of ft.path, checking what it reaches; tokens
// are the pointer tokens walked so far.
func (c *checker) text(v any, tokens []string, ft freeText) {
	rest := ft.path[len(tokens):]
	if len(rest) == 0 {
		if s, ok := v.(string); ok {
			c.checkText(jsonpos.Pointer(tokens...), s, ft.multiLine)
		}
		return
	}
	switch v := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			switch rest[0] {
			case "":
				if len(rest) == 1 {
					c.checkText(jsonpos.Pointer(append(tokens, k)...), k, ft.multiLine)
				}
			case "*", k:
				c.text(v[k], append(tokens[:len(tokens):len(tokens)], k), ft)
			}
		}
	case []any:
		if rest[0] != "*" {
			return
		}
		for i, e := range v {
			c.text(e, append(tokens[:len(tokens):len(tokens)], fmt.Sprint(i)), ft)
		}
	}
}

func (c *checker) checkText(ptr, s string, multiLine bool) {
	if err := CheckText(s, multiLine); err != nil {
		what := "one line of printable text"
		if multiLine {
			what = "printable text (line breaks and tabs allowed)"
		}
		msg := strings.TrimPrefix(err.Error(), ErrText.Error()+": ")
		c.add(ptr, KeywordText, "%s: free text holds %s, without control characters, escape sequences or bidirectional overrides: remove it (oceanadmin sign and package refuse the file)", msg, what)
	}
}
