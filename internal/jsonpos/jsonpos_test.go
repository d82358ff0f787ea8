package jsonpos

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const sample = `{
  "sandbox": {
    "mode": "workspace-write",
    "deny": [".git", "secrets"]
  },
  "permission": {"bash": {"git status": "allow", "*": "ask"}},
  "a/b~c": 1.5e3,
  "empty": {},
  "list": [[], {"x": null}, true, false]
}`

func TestParsePositions(t *testing.T) {
	doc, err := Parse([]byte(sample), Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		ptr             string
		line, col       int
		valLine, valCol int
	}{
		{"", 1, 1, 1, 1},
		{"/sandbox", 2, 3, 2, 14},
		{"/sandbox/mode", 3, 5, 3, 13},
		{"/sandbox/deny", 4, 5, 4, 13},
		{"/sandbox/deny/0", 4, 14, 4, 14},
		{"/sandbox/deny/1", 4, 22, 4, 22},
		{"/permission/bash/git status", 6, 27, 6, 41},
		{"/permission/bash/*", 6, 50, 6, 55},
		{"/a~1b~0c", 7, 3, 7, 12},
		{"/empty", 8, 3, 8, 12},
		{"/list/1/x", 9, 17, 9, 22},
		{"/list/3", 9, 35, 9, 35},
	}
	for _, tt := range tests {
		p, ok := doc.Pos(tt.ptr)
		if !ok {
			t.Errorf("Pos(%q): not found", tt.ptr)
			continue
		}
		if p.Line != tt.line || p.Column != tt.col {
			t.Errorf("Pos(%q) = %d:%d, want %d:%d", tt.ptr, p.Line, p.Column, tt.line, tt.col)
		}
		if got := PosAt([]byte(sample), p.Offset); got != p {
			t.Errorf("Pos(%q) = %+v, PosAt(offset) = %+v", tt.ptr, p, got)
		}
		v, _ := doc.ValuePos(tt.ptr)
		if v.Line != tt.valLine || v.Column != tt.valCol {
			t.Errorf("ValuePos(%q) = %d:%d, want %d:%d", tt.ptr, v.Line, v.Column, tt.valLine, tt.valCol)
		}
	}
	if _, ok := doc.Pos("/nope"); ok {
		t.Error("Pos(/nope) found")
	}

	want := []string{"", "/sandbox", "/sandbox/mode", "/sandbox/deny", "/sandbox/deny/0", "/sandbox/deny/1",
		"/permission", "/permission/bash", "/permission/bash/git status", "/permission/bash/*", "/a~1b~0c",
		"/empty", "/list", "/list/0", "/list/1", "/list/1/x", "/list/2", "/list/3"}
	if diff := cmp.Diff(want, doc.Pointers()); diff != "" {
		t.Errorf("Pointers() mismatch (-want +got):\n%s", diff)
	}
}

func TestParseValueMatchesEncodingJSON(t *testing.T) {
	inputs := []string{
		sample,
		`"plain"`, `"esc \" \\ \/ \b \f \n \r \t \u00e9 \ud83d\ude00"`, `"lone \ud800 x"`, `"hi \ud800\u0041"`,
		`"héllo wörld ✓"`, `0`, `-0`, `-12.5e-3`, `1E+2`, `123456789012345678901234567890`, `true`, `false`, `null`,
		` [ 1 , [ ] , { } ] `, "{\"a\":\r\n1}",
	}
	for _, in := range inputs {
		doc, err := Parse([]byte(in), Options{})
		if err != nil {
			t.Errorf("Parse(%q): %v", in, err)
			continue
		}
		dec := json.NewDecoder(strings.NewReader(in))
		dec.UseNumber()
		var want any
		if err := dec.Decode(&want); err != nil {
			t.Fatalf("encoding/json(%q): %v", in, err)
		}
		if diff := cmp.Diff(want, doc.Value); diff != "" {
			t.Errorf("Parse(%q) value mismatch (-encoding/json +jsonpos):\n%s", in, diff)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		in        string
		line, col int
		msg       string
	}{
		{``, 1, 1, "empty document"},
		{"  \n ", 2, 2, "empty document"},
		{`{"a": 1,}`, 1, 9, "trailing comma before '}'"},
		{`[1, 2,]`, 1, 7, "trailing comma before ']'"},
		{"{\n  \"a\": 1\n  \"b\": 2\n}", 3, 3, "expected ',' or '}'"},
		{`{"a": 1} {}`, 1, 10, "after the top-level value"},
		{`{"a": 1} x`, 1, 10, "after the top-level value"},
		{"{\n // hi\n\"a\":1}", 2, 2, "comments are not allowed"},
		{`{a: 1}`, 1, 2, "expected an object key in double quotes"},
		{`{"a" 1}`, 1, 6, "expected ':'"},
		{`{"a": tru}`, 1, 7, "expected a value"},
		{`{"a": truex}`, 1, 11, "after true"},
		{`{"a": 'x'}`, 1, 7, "expected a value"},
		{`[01]`, 1, 3, "unexpected character '1'"},
		{`[1.]`, 1, 4, "digit after the decimal point"},
		{`[1e]`, 1, 4, "digit in the exponent"},
		{`[-]`, 1, 3, "expected a digit"},
		{`["a` + "\n" + `"]`, 1, 4, "newline inside a string"},
		{"[\"a\x01\"]", 1, 4, "control character 0x01"},
		{`["\x"]`, 1, 4, `invalid escape character 'x'`},
		{`["\u12"]`, 1, 3, `invalid \u escape`},
		{"[\"\xff\"]", 1, 3, "invalid UTF-8"},
		{"\xEF\xBB\xBF{}", 1, 1, "byte order mark"},
		{`{"a": [1, 2`, 1, 12, "array opened at line 1, column 7 is not closed"},
		{`{"a": 1`, 1, 8, "object opened at line 1, column 1 is not closed"},
		{`"abc`, 1, 5, "string starting at line 1, column 1 is not closed"},
		{`{"a":`, 1, 6, "unexpected end of input: expected a value"},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.in), Options{})
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Parse(%q) error = %v, want *SyntaxError", tt.in, err)
			continue
		}
		if se.Line != tt.line || se.Column != tt.col || !strings.Contains(se.Msg, tt.msg) {
			t.Errorf("Parse(%q) = %q, want line %d, column %d containing %q", tt.in, se.Error(), tt.line, tt.col, tt.msg)
		}
		// Invalid UTF-8 is refused on purpose (encoding/json replaces it with U+FFFD).
		if json.Valid([]byte(tt.in)) && !strings.Contains(tt.msg, "UTF-8") {
			t.Errorf("Parse(%q) refused what encoding/json accepts", tt.in)
		}
	}
}

func TestDuplicateKey(t *testing.T) {
	in := "{\n  \"sandbox\": {\n    \"mode\": \"read-only\",\n    \"mode\": \"workspace-write\"\n  }\n}"
	_, err := Parse([]byte(in), Options{})
	var de *DuplicateKeyError
	if !errors.As(err, &de) {
		t.Fatalf("err = %v, want *DuplicateKeyError", err)
	}
	want := &DuplicateKeyError{Pointer: "/sandbox/mode", Pos: Pos{Line: 4, Column: 5, Offset: 46}, First: Pos{Line: 3, Column: 5, Offset: 21}}
	if diff := cmp.Diff(want, de); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
	const msg = `line 4, column 5: duplicate key "mode" in /sandbox (first defined at line 3, column 5)`
	if de.Error() != msg {
		t.Errorf("Error() = %q, want %q", de.Error(), msg)
	}

	// Keys are compared after unescaping.
	_, err = Parse([]byte(`{"a":1,"\u0061":2}`), Options{})
	if !errors.As(err, &de) || de.Pointer != "/a" {
		t.Errorf("escaped duplicate: err = %v", err)
	}
	// The same key in different objects is fine.
	if _, err := Parse([]byte(`{"a":{"a":1},"b":{"a":2}}`), Options{}); err != nil {
		t.Error(err)
	}
}

func TestMaxDepth(t *testing.T) {
	deep := func(n int) []byte { return []byte(strings.Repeat("[", n) + strings.Repeat("]", n)) }
	if _, err := Parse(deep(64), Options{}); err != nil {
		t.Errorf("depth 64: %v", err)
	}
	_, err := Parse(deep(65), Options{})
	var se *SyntaxError
	if !errors.As(err, &se) || se.Column != 65 || !strings.Contains(se.Msg, "maximum depth of 64") {
		t.Errorf("depth 65: %v", err)
	}
	if _, err := Parse(deep(3), Options{MaxDepth: 2}); err == nil {
		t.Error("MaxDepth 2 accepted depth 3")
	}
	if _, err := Parse(deep(200), Options{MaxDepth: 1 << 30}); err != nil {
		t.Errorf("large MaxDepth: %v", err)
	}
}

func TestPointer(t *testing.T) {
	tests := []struct {
		toks []string
		ptr  string
	}{
		{nil, ""},
		{[]string{""}, "/"},
		{[]string{"a", "b"}, "/a/b"},
		{[]string{"a/b", "m~n", "~/"}, "/a~1b/m~0n/~0~1"},
		{[]string{"permission", "bash", "git status"}, "/permission/bash/git status"},
		{[]string{"~1"}, "/~01"},
	}
	for _, tt := range tests {
		if got := Pointer(tt.toks...); got != tt.ptr {
			t.Errorf("Pointer(%q) = %q, want %q", tt.toks, got, tt.ptr)
		}
		got, err := Split(tt.ptr)
		if err != nil {
			t.Errorf("Split(%q): %v", tt.ptr, err)
		}
		if diff := cmp.Diff(tt.toks, got); diff != "" && !(len(tt.toks) == 0 && len(got) == 0) {
			t.Errorf("Split(%q) mismatch (-want +got):\n%s", tt.ptr, diff)
		}
	}
	for _, bad := range []string{"a", "/a~", "/a~2", "/~x"} {
		if _, err := Split(bad); err == nil {
			t.Errorf("Split(%q) succeeded", bad)
		}
	}
}

func TestPosAt(t *testing.T) {
	data := []byte("ab\ncd\r\nef")
	tests := []struct{ off, line, col int }{
		{0, 1, 1}, {2, 1, 3}, {3, 2, 1}, {5, 2, 3}, {7, 3, 1}, {9, 3, 3}, {100, 3, 3}, {-1, 1, 1},
	}
	for _, tt := range tests {
		p := PosAt(data, tt.off)
		if p.Line != tt.line || p.Column != tt.col {
			t.Errorf("PosAt(%d) = %d:%d, want %d:%d", tt.off, p.Line, p.Column, tt.line, tt.col)
		}
	}
}

// FuzzParse checks that Parse never panics, never accepts what encoding/json refuses, decodes the same
// value, and reports positions inside the data.
func FuzzParse(f *testing.F) {
	f.Add([]byte(sample))
	f.Add([]byte(`{"a":1,"a":2}`))
	f.Add([]byte(`"\ud83d\ude00"`))
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := Parse(data, Options{})
		if err != nil {
			var se *SyntaxError
			var de *DuplicateKeyError
			switch {
			case errors.As(err, &se):
				if se.Offset < 0 || se.Offset > len(data) || PosAt(data, se.Offset) != se.Pos {
					t.Fatalf("bad error position %+v for %d bytes", se.Pos, len(data))
				}
			case errors.As(err, &de):
				if de.Offset >= len(data) || de.First.Offset >= de.Offset {
					t.Fatalf("bad duplicate positions %+v", de)
				}
			default:
				t.Fatalf("unexpected error type %T", err)
			}
			return
		}
		if !json.Valid(data) {
			t.Fatalf("Parse accepted invalid JSON %q", data)
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var want any
		if err := dec.Decode(&want); err != nil {
			t.Fatalf("encoding/json: %v", err)
		}
		// reflect.DeepEqual first: cmp.Diff is exponential on deeply nested arrays.
		if !reflect.DeepEqual(want, doc.Value) {
			t.Fatalf("value mismatch (-encoding/json +jsonpos):\n%s", cmp.Diff(want, doc.Value))
		}
		for _, ptr := range doc.Pointers() {
			for _, get := range []func(string) (Pos, bool){doc.Pos, doc.ValuePos} {
				p, ok := get(ptr)
				if !ok || p.Offset < 0 || p.Offset >= len(data) {
					t.Fatalf("pointer %q: position %+v outside %d bytes", ptr, p, len(data))
				}
				if PosAt(data, p.Offset) != p {
					t.Fatalf("pointer %q: position %+v disagrees with PosAt", ptr, p)
				}
			}
			toks, err := Split(ptr)
			if err != nil || Pointer(toks...) != ptr {
				t.Fatalf("pointer %q does not round-trip: %q, %v", ptr, toks, err)
			}
		}
	})
}

func BenchmarkParse(b *testing.B) {
	data := benchConfig()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(data, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func benchConfig() []byte {
	return []byte(`{
  "$schema": "https://oceancode.dev/schema/config.schema.json",
  "permission_mode": "acceptEdits",
  "permission": {
    "bash": { "*": "ask", "git status": "allow", "git diff:*": "allow", "go test:*": "allow", "rm -rf:*": "deny" },
    "edit": { "src/**": "allow", "*.lock": "deny" },
    "read": "allow",
    "webfetch": "ask",
    "external_directory": "ask",
    "mcp": { "github/*": "allow", "github/delete_repo": "deny" }
  },
  "shell": {
    "safe_list_extra": ["make lint", "go vet"],
    "allow": ["Bash(go build:*)", "Bash(npm test)"],
    "deny": ["Bash(git push:*)", "Bash(curl:*)"]
  },
  "child_env": { "strip": ["AWS_*", "GCP_*"], "keep": ["GOPATH"], "set": { "CI": "1", "NO_COLOR": "1" } },
  "sandbox": {
    "enabled": true, "mode": "workspace-write", "deny": [".git", "secrets"], "deny_read": ["~/.config/private"],
    "writable": ["/tmp/build"], "network": "allowlist", "allow_hosts": ["proxy.golang.org", "github.com"],
    "limits": { "processes": 256, "address_space_mb": 4096, "file_size_mb": 512, "open_files": 1024 }
  },
  "refs": { "docs": "/srv/shared/docs", "vendor": "../vendor-tree" },
  "mcp": { "servers": {
    "github": { "command": "/usr/local/bin/github-mcp", "args": ["--read-only"], "env": { "GITHUB_HOST": "github.com" } },
    "docs": { "url": "https://mcp.example.com/docs", "headers": { "X-Team": "platform" }, "enabled": false }
  } },
  "jev": { "enabled": true, "permissions": "shadow", "deadline_ms": 1500 },
  "provider": {
    "local": { "type": "openai", "base_url": "http://127.0.0.1:8000/v1", "api_key_env": "LOCAL_API_KEY" },
    "anthropic": { "type": "anthropic", "api_key_env": "ANTHROPIC_API_KEY" }
  },
  "model": "local/qwen3-coder",
  "agents": {
    "reviewer": {
      "description": "Reviews diffs and never edits.", "mode": "subagent", "model": "anthropic/claude-sonnet-4",
      "prompt": "You review code for correctness, security and clarity. Quote the lines you comment on.",
      "permission_mode": "plan", "permission": { "edit": "deny", "bash": { "*": "ask", "git log:*": "allow" } },
      "tools": ["read", "grep", "glob", "list", "bash"]
    }
  },
  "limits": { "max_turns": 200, "max_tokens": 2000000, "timeout_s": 3600 }
}
`)
}
