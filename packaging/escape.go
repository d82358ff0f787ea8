package packaging

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/oceancode/oceancode/policycheck"
)

// What each format does with the strings it embeds (docs/fleet.md, "What
// is escaped and what is refused"):
//
//   - Comments never hold policy text: they hold the stamp (the serial, a
//     number, and the payload SHA-256, 64 hex digits), checked here. XML
//     comments cannot hold "--", YAML read by Salt is a Jinja template
//     first, and Ruby reads magic comments: none of that can reach them.
//   - XML is written by libraries that escape every string: the profiles
//     by howett.net/plist, the ADMX and ADML by encoding/xml (both with
//     encoding/xml's escaper); characters XML 1.0 cannot hold at all are
//     refused.
//   - .reg REG_SZ strings escape \ and "; a line break, which a REG_SZ line
//     cannot hold, is refused.
//   - PowerShell values are single-quoted strings with every quote
//     character (' and the curly U+2018–U+201B PowerShell also reads as
//     one) doubled; a line break is refused.
//   - deb and rpm metadata go through nfpm; free text there holds no line
//     break (refused), so no field gains a line.
//
// And Build refuses what no format should carry: an org that is not one
// line of printable text (policycheck.CheckText), a managed config or
// envelope that is not valid JSON in UTF-8, trusted keys with control
// characters.

// ErrUnsafeText is returned for an input Build refuses to embed.
var ErrUnsafeText = errors.New("cannot be packaged")

var sha256Hex64 = regexp.MustCompile(`^[0-9a-f]{64}$`)

// check refuses inputs that an artefact could not carry exactly.
func (in Inputs) check() error {
	if in.Policy.Serial < 1 {
		return fmt.Errorf("package: policy serial %d: %w: want a signed policy's serial (1 or more)", in.Policy.Serial, ErrUnsafeText)
	}
	if !sha256Hex64.MatchString(in.Policy.PayloadSHA256) {
		return fmt.Errorf("package: payload sha256 %q: %w: want 64 lower-case hex digits (the verified payload's digest)", in.Policy.PayloadSHA256, ErrUnsafeText)
	}
	if err := policycheck.CheckText(in.Policy.Org, false); err != nil {
		return fmt.Errorf("package: policy org %q: %w: %w: fix \"org\" and sign the policy again ('oceanadmin validate' names it)", in.Policy.Org, ErrUnsafeText, err)
	}
	if err := jsonText("signed requirements", in.Requirements); err != nil {
		return err
	}
	if in.Managed != nil {
		if err := jsonText("managed config", in.Managed); err != nil {
			return err
		}
	}
	if err := policycheck.CheckText(string(in.TrustedKeys), true); err != nil {
		return fmt.Errorf("package: trusted keys: %w: %w: the key list is printable text, one key per line", ErrUnsafeText, err)
	}
	if i := strings.Index(strings.ReplaceAll(string(in.TrustedKeys), "\r\n", "\n"), "\r"); i >= 0 {
		return fmt.Errorf("package: trusted keys: %w: a carriage return not ending a line: the key list is one key per line", ErrUnsafeText)
	}
	return nil
}

// jsonText refuses data that is not JSON, or holds a character no XML
// document can carry (a raw U+FFFE or U+FFFF in a string: JSON can write
// it as an escape instead).
func jsonText(what string, data []byte) error {
	if !utf8.Valid(data) || !json.Valid(data) {
		return fmt.Errorf("package: %s: %w: not valid JSON in UTF-8", what, ErrUnsafeText)
	}
	for i, r := range string(data) {
		if !xmlChar(r) {
			return fmt.Errorf("package: %s: %w: character U+%04X at byte %d cannot be carried in XML: write it as a \\u escape", what, ErrUnsafeText, r, i)
		}
	}
	return nil
}

// xmlChar reports whether XML 1.0 can hold r (its Char production).
func xmlChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D || r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}

// regString is a REG_SZ value line of a .reg file: "name"="value" with \
// and " escaped. A REG_SZ line cannot hold a line break (it would end the
// value and start a new line, possibly a new key section) or a NUL.
func regString(name, value string) (string, error) {
	if i := strings.IndexAny(value, "\r\n\x00"); i >= 0 {
		return "", fmt.Errorf("package reg: value %s: %w: a line break or NUL at byte %d (a REG_SZ line holds one line)", name, ErrUnsafeText, i)
	}
	e := strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(value)
	return `"` + name + `"="` + e + "\"\r\n", nil
}

// psQuotes are the characters PowerShell's tokenizer reads as a single
// quote: ASCII ' and the curly U+2018, U+2019, U+201A and U+201B.
const psQuotes = "'\u2018\u2019\u201a\u201b"

// psString is s as a PowerShell single-quoted string literal: nothing in it
// is expanded, and each quote character is doubled (the escape PowerShell's
// own CodeGeneration.EscapeSingleQuotedStringContent writes). A line break
// is refused, so every value is on its statement's line.
func psString(what, s string) (string, error) {
	if i := strings.IndexAny(s, "\r\n\x00"); i >= 0 {
		return "", fmt.Errorf("package reg: %s: %w: a line break or NUL at byte %d (one PowerShell statement per line)", what, ErrUnsafeText, i)
	}
	var b strings.Builder
	b.WriteByte('\'')
	for _, r := range s {
		if strings.ContainsRune(psQuotes, r) {
			b.WriteRune(r)
		}
		b.WriteRune(r)
	}
	b.WriteByte('\'')
	return b.String(), nil
}
