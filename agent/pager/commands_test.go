package pager

import (
	"slices"
	"strings"
	"testing"
)

func TestParseCommand(t *testing.T) {
	tests := []struct {
		line string
		name string
		args []string
		ok   bool
	}{
		{"/help", "help", []string{}, true},
		{"  /exit  ", "exit", []string{}, true},
		{"/mode plan", "mode", []string{"plan"}, true},
		{"/mode\tacceptEdits", "mode", []string{"acceptEdits"}, true},
		{"/model claude-sonnet-4", "model", []string{"claude-sonnet-4"}, true},
		{"/inspect permissions.bash", "inspect", []string{"permissions.bash"}, true},
		{"/mcp add gh -- npx -y @modelcontextprotocol/server-github", "mcp", []string{"add", "gh", "--", "npx", "-y", "@modelcontextprotocol/server-github"}, true},
		{"/mcp add docs https://mcp.example.com/sse", "mcp", []string{"add", "docs", "https://mcp.example.com/sse"}, true},
		{`/mcp add x -- sh -c "echo 'hi there'"`, "mcp", []string{"add", "x", "--", "sh", "-c", "echo 'hi there'"}, true},
		{`/mcp add x -- printf 'a b' c\ d`, "mcp", []string{"add", "x", "--", "printf", "a b", `c d`}, true},
		{`/x "a\"b" "c\d"`, "x", []string{`a"b`, `c\d`}, true},
		{`/x $HOME ~ $(id) ${A:-b} "$B"`, "x", []string{"$HOME", "~", "$(id)", "${A:-b}", "$B"}, true},
		{`/x {a,b} *.go`, "x", []string{"{a,b}", "*.go"}, true},
		{`/x ''`, "x", []string{""}, true},
		{`/x "unterminated`, "x", []string{`"unterminated`}, true},
		{`/x a;b`, "x", []string{"a;b"}, true},
		{"/sessions 01J9", "sessions", []string{"01J9"}, true},
		{"/always-approve", "always-approve", []string{}, true},
		{"/Mode", "Mode", []string{}, true},
		{"hello", "", nil, false},
		{"", "", nil, false},
		{"/", "", nil, false},
		{"/ mode", "", nil, false},
		{"/usr/bin/env ls", "", nil, false},
		{"/1abc", "", nil, false},
		{"please /help", "", nil, false},
	}
	for _, tt := range tests {
		name, args, ok := ParseCommand(tt.line)
		if name != tt.name || ok != tt.ok || !slices.Equal(args, tt.args) {
			t.Errorf("ParseCommand(%q) = %q %q %v, want %q %q %v", tt.line, name, args, ok, tt.name, tt.args, tt.ok)
		}
	}
}

func TestCommandsTable(t *testing.T) {
	want := []string{"auto", "always-approve", "mode", "model", "agent", "permissions", "inspect", "mcp", "sessions", "undo", "redo", "checkpoints", "sandbox", "compact", "cost", "instructions", "clear", "help", "exit"}
	var got []string
	for _, c := range Commands {
		got = append(got, c.Name)
		if c.Help == "" {
			t.Errorf("/%s has no help", c.Name)
		}
		if !validCommandName(c.Name) {
			t.Errorf("/%s is not a valid name", c.Name)
		}
		if _, ok := LookupCommand(c.Name); !ok {
			t.Errorf("LookupCommand(%q) failed", c.Name)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("commands %q, want %q", got, want)
	}
	if _, ok := LookupCommand("nope"); ok {
		t.Error("LookupCommand found nope")
	}
}

func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{"/help", "/mcp add x -- sh -c 'a b'", `/x "a\"b" $(y) ${z}`, "/x \"", "/", "hi", "/x a\\\nb", "/x <(a) >b | c && d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		name, args, ok := ParseCommand(line)
		if !ok {
			if name != "" || args != nil {
				t.Fatalf("not a command but %q %q", name, args)
			}
			return
		}
		if !validCommandName(name) || !strings.HasPrefix(strings.TrimSpace(line), "/"+name) {
			t.Fatalf("name %q from %q", name, line)
		}
		// The name is stable: parsing again finds it.
		if n2, _, ok2 := ParseCommand("/" + name); !ok2 || n2 != name {
			t.Fatalf("re-parse of /%s: %q %v", name, n2, ok2)
		}
	})
}
