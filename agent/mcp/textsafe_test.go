package mcp

import (
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/oceancode/oceancode/agent/mcp/mcptest"
)

func TestNeutralize(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"plain text\n\tindented":                      "plain text\n\tindented",
		"a\x1b[2Jb":                                   "ab",
		"a\x1b]52;c;cm0gLXJmIH4=\x07b":                "ab",
		"a\x1b]0;title\x1b\\b":                        "ab",
		"a\x1b]8;;https://x/\x1b\\link\x1b]8;;\x1b\\": "alink",
		"a\x1bPq#0;2;0;0;0\x1b\\b":                    "ab",
		"line\r\nnext\rover\x08\x07\x00":              "line\nnextover",
		"bidi \u202eevil\u202c \u2066x\u2069":         "bidi evil x",
		"tag\U000E0041\U000E007F":                     "tag",
		"c1 \u0085\u009b":                             "c1 ",
		"raw \x9b31m":                                 "raw ",
		"del\x7f":                                     "del",
		"ünïcode ✓":                                   "ünïcode ✓",
		"before" + mcptest.Escapes + "after":          "beforelink31mevilafter",
	} {
		if got := neutralize(in); got != want {
			t.Errorf("neutralize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCheckSize(t *testing.T) {
	t.Parallel()
	obj := map[string]any{"type": "object"}
	for _, c := range []struct {
		name string
		tool sdk.Tool
		err  string
	}{
		{"small", sdk.Tool{Name: "t", Description: "Does a thing.", InputSchema: obj}, ""},
		{"description at the cap", sdk.Tool{Name: "t", Description: strings.Repeat("d", 1024-6), InputSchema: obj}, ""},
		{"description over the cap", sdk.Tool{Name: "t", Description: strings.Repeat("d", 1025), InputSchema: obj}, "1031 bytes of text, over the 1024-byte cap"},
		{"title", sdk.Tool{Name: "t", Title: strings.Repeat("t", 1100), InputSchema: obj}, "over the 1024-byte cap"},
		{"nested description", sdk.Tool{Name: "t", InputSchema: map[string]any{"type": "object", "properties": map[string]any{
			"a": map[string]any{"type": "array", "items": map[string]any{"type": "string", "description": strings.Repeat("x", 1100)}}}}}, "over the 1024-byte cap"},
		{"output schema", sdk.Tool{Name: "t", InputSchema: obj, OutputSchema: map[string]any{"type": "object", "description": strings.Repeat("x", 1100)}}, "over the 1024-byte cap"},
		{"annotations title", sdk.Tool{Name: "t", InputSchema: obj, Annotations: &sdk.ToolAnnotations{Title: strings.Repeat("x", 1100)}}, "over the 1024-byte cap"},
		{"enum values", sdk.Tool{Name: "t", InputSchema: map[string]any{"type": "object", "properties": map[string]any{
			"m": map[string]any{"enum": []any{strings.Repeat("e", 600), strings.Repeat("f", 600)}}}}}, "over the 1024-byte cap"},
		{"structure", sdk.Tool{Name: "t", InputSchema: manyProps(1000)}, "over the 8192-byte cap"},
		{"control characters in the name", sdk.Tool{Name: "t\x1b[2J", InputSchema: obj}, "its name carries control characters"},
	} {
		err := checkSize(&c.tool)
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s: %v, want %q", c.name, err, c.err)
		}
	}
}

func manyProps(n int) map[string]any {
	props := map[string]any{}
	for i := range n {
		props[strings.Repeat("p", 1)+string(rune('a'+i%26))+strings.Repeat("x", i/26)] = map[string]any{}
	}
	return map[string]any{"type": "object", "properties": props}
}

// BenchmarkNeutralize is the pass over a 30 KB result: plain text (the
// common case, one scan) and text with an escape sequence every 300 bytes.
func BenchmarkNeutralize(b *testing.B) {
	plainText := strings.Repeat("some tool output, plain ASCII text...\n", 800)[:30000]
	escaped := strings.Repeat(strings.Repeat("x", 290)+"\x1b[31mred\x1b[0m", 100)
	for name, s := range map[string]string{"plain_30KB": plainText, "escapes_30KB": escaped} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				_ = neutralize(s)
			}
		})
	}
}
