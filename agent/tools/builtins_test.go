package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oceancode/oceancode/agent/provider"
)

// defsBudget is what every tool definition together may cost in request
// bytes (their JSON). Each byte is sent on every model request: a
// description growing past it fails here, not silently in the bill.
const defsBudget = 8 << 10

func TestDefsBudget(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(builtinDefs())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("all tool definitions: %d bytes (budget %d)", len(b), defsBudget)
	if len(b) > defsBudget {
		t.Fatalf("tool definitions are %d bytes, over the %d-byte budget", len(b), defsBudget)
	}
}

// TestSchemas: every schema is an object schema that forbids unknown
// fields and whose required fields are declared.
func TestSchemas(t *testing.T) {
	t.Parallel()
	for _, tool := range Builtins() {
		d := tool.Def()
		var s struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
			Additional *bool                      `json:"additionalProperties"`
		}
		if err := json.Unmarshal(d.InputSchema, &s); err != nil {
			t.Errorf("%s: schema: %v", d.Name, err)
			continue
		}
		if s.Type != "object" || s.Additional == nil || *s.Additional {
			t.Errorf("%s: schema must be an object with additionalProperties false", d.Name)
		}
		for _, r := range s.Required {
			if _, ok := s.Properties[r]; !ok {
				t.Errorf("%s: required %q is not a property", d.Name, r)
			}
		}
		if d.Description == "" || len(d.Description) > 400 {
			t.Errorf("%s: description is %d bytes", d.Name, len(d.Description))
		}
	}
}

// TestBuiltins: the built-ins, in the order they are offered, one name
// each.
func TestBuiltins(t *testing.T) {
	t.Parallel()
	want := []string{"bash", "read", "write", "edit", "apply_patch", "grep", "glob", "list", "webfetch", "question", "todo", "task"}
	var got []string
	for _, d := range builtinDefs() {
		got = append(got, d.Name)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
}

// builtinDefs are the built-ins' definitions, as a request carries them.
func builtinDefs() []provider.ToolDef {
	var defs []provider.ToolDef
	for _, tool := range Builtins() {
		defs = append(defs, tool.Def())
	}
	return defs
}

// TestInputValidation: Target and Run both refuse inputs the schema does
// not allow, and say what is wrong.
func TestInputValidation(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	tests := []struct {
		tool  Tool
		input string
		want  string
	}{
		{BashTool{}, `{"command":"ls","cwd":"/"}`, `unknown field "cwd"`},
		{BashTool{}, `{"command":42}`, `field "command" must be a string`},
		{BashTool{}, `{}`, `missing required field "command"`},
		{BashTool{}, `{"command":null}`, `missing required field "command"`},
		{BashTool{}, `{"command":"ls","timeout_s":9999}`, `timeout_s must be between 1 and 600`},
		{BashTool{}, `{"command":"ls","timeout_s":"5"}`, `field "timeout_s" must be a number`},
		{BashTool{}, `[]`, `input must be a JSON object`},
		{BashTool{}, `{"command":"ls"} {}`, `input must be a JSON object`},
		{ReadTool{}, `{"path":"a","offset":0}`, `offset must be at least 1`},
		{ReadTool{}, `{"file_path":"a"}`, `missing required field "path"`},
		{WriteTool{}, `{"path":"a"}`, `missing required field "content"`},
		{EditTool{}, `{"path":"a","old_string":"x","new_string":"y","replace_all":"yes"}`, `must be a boolean`},
		{EditTool{}, `{"path":"a","old_string":"","new_string":"y"}`, `old_string is empty`},
		{ApplyPatchTool{}, `{"patch":"hello"}`, `a patch starts with`},
		{GrepTool{}, `{"pattern":"("}`, `bad pattern`},
		{GlobTool{}, `{"pattern":"/etc/*"}`, `relative to path`},
		{ListTool{}, `{"dir":"."}`, `unknown field "dir" (allowed: "path")`},
		{WebFetchTool{}, `{"url":"file:///etc/passwd"}`, `only http and https`},
		{QuestionTool{}, `{"question":"q","options":"a"}`, `must be an array`},
		{TodoTool{}, `{"todos":[{"text":"a","status":"later"}]}`, `status must be pending`},
		{TodoTool{}, `{"todos":[{"text":"a","status":"done","prio":1}]}`, `unknown field "prio"`},
		{TaskTool{}, `{"agent":"explore"}`, `missing required field "prompt"`},
	}
	for _, tt := range tests {
		name := tt.tool.Def().Name
		_, err := tt.tool.Target(json.RawMessage(tt.input))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s Target(%s) = %v, want %q", name, tt.input, err, tt.want)
		}
		r := tt.tool.Run(context.Background(), env, json.RawMessage(tt.input))
		if !r.IsError || !strings.Contains(r.Content, tt.want) {
			t.Errorf("%s Run(%s) = %+v, want an error with %q", name, tt.input, r, tt.want)
		}
	}
}

func TestTargets(t *testing.T) {
	t.Parallel()
	tests := []struct {
		tool  Tool
		input string
		want  Target
	}{
		{BashTool{}, `{"command":"go test ./..."}`, Target{Tool: "bash", Input: "go test ./..."}},
		{ReadTool{}, `{"path":"@docs/a.md"}`, Target{Tool: "read", Input: "@docs/a.md"}},
		{WriteTool{}, `{"path":"a","content":""}`, Target{Tool: "write", Input: "a"}},
		{EditTool{}, `{"path":"a","old_string":"x","new_string":"y"}`, Target{Tool: "edit", Input: "a"}},
		{GrepTool{}, `{"pattern":"x"}`, Target{Tool: "grep", Input: "."}},
		{GlobTool{}, `{"pattern":"*.go","path":"src"}`, Target{Tool: "glob", Input: "src"}},
		{ListTool{}, `{}`, Target{Tool: "list", Input: "."}},
		{WebFetchTool{}, `{"url":"https://example.com/a b"}`, Target{Tool: "webfetch", Input: "https://example.com/a%20b"}},
		{TaskTool{}, `{"agent":"explore","prompt":"p"}`, Target{Tool: "task", Input: "explore"}},
	}
	for _, tt := range tests {
		got, err := tt.tool.Target(json.RawMessage(tt.input))
		if err != nil || got != tt.want {
			t.Errorf("%s Target(%s) = %+v, %v; want %+v", tt.tool.Def().Name, tt.input, got, err, tt.want)
		}
	}
	patch := "*** Begin Patch\n*** Add File: a.txt\n+x\n*** Update File: b.txt\n*** Move to: c.txt\n@@\n-x\n+y\n*** Delete File: d.txt\n*** End Patch"
	ts, err := TargetsOf(ApplyPatchTool{}, in(t, obj{"patch": patch}))
	if err != nil {
		t.Fatal(err)
	}
	want := []Target{{Tool: "apply_patch", Input: "a.txt"}, {Tool: "apply_patch", Input: "b.txt"}, {Tool: "apply_patch", Input: "c.txt"}, {Tool: "apply_patch", Input: "d.txt"}}
	if diff := cmp.Diff(want, ts); diff != "" {
		t.Errorf("apply_patch targets (-want +got):\n%s", diff)
	}
	if tg, _ := (ApplyPatchTool{}).Target(in(t, obj{"patch": patch})); tg != want[0] {
		t.Errorf("apply_patch Target = %+v, want the first path", tg)
	}
	if ts, _ := TargetsOf(ReadTool{}, json.RawMessage(`{"path":"x"}`)); len(ts) != 1 || ts[0].Input != "x" {
		t.Errorf("TargetsOf(read) = %+v", ts)
	}
}

func TestTruncate(t *testing.T) {
	t.Parallel()
	s := strings.Repeat("a", 100) + strings.Repeat("é", 50) + strings.Repeat("z", 100)
	got, n := truncate(s, 60)
	if n == 0 || !strings.Contains(got, "bytes omitted") || !strings.HasPrefix(got, strings.Repeat("a", 30)) || !strings.HasSuffix(got, strings.Repeat("z", 30)) {
		t.Fatalf("truncate = %q, %d", got, n)
	}
	if n != len(s)-60 {
		t.Errorf("omitted %d, want %d", n, len(s)-60)
	}
	// headTail keeps the same head and tail however the writes are split.
	for _, chunk := range []int{1, 7, 64, 1000} {
		h := newHeadTail(60)
		for i := 0; i < len(s); i += chunk {
			h.Write([]byte(s[i:min(len(s), i+chunk)]))
		}
		ht, hn := h.String()
		if ht != got || hn != n {
			t.Errorf("chunk %d: headTail = %q, %d; want %q, %d", chunk, ht, hn, got, n)
		}
	}
	h := newHeadTail(1000)
	h.Write([]byte("short"))
	if s, n := h.String(); s != "short" || n != 0 {
		t.Errorf("headTail under the limit = %q, %d", s, n)
	}
	// A cut in the middle of a multi-byte character moves to its boundary.
	h = newHeadTail(11)
	h.Write([]byte("ab" + strings.Repeat("é", 10) + "yz"))
	hs, _ := h.String()
	if !strings.HasPrefix(hs, "abé") || strings.Contains(hs, "\uFFFD") || !json.Valid(in(t, hs)) {
		t.Errorf("headTail split a character: %q", hs)
	}
}
