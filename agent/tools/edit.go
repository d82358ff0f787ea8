package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/oceancode/oceancode/agent/gate"
	"github.com/oceancode/oceancode/agent/provider"
)

// EditTool replaces text in a file.
//
// Guarded like write: the boundary, then the tracker (read before write,
// not stale). old_string must occur exactly once unless replace_all; the
// file is rewritten atomically and a short diff-like summary is returned.
// In a CRLF file, LF-only strings are matched and written as CRLF.
type EditTool struct{}

type editInput struct {
	Path       string `json:"path"`
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all,omitempty"`
}

var editDef = provider.ToolDef{
	Name:        "edit",
	Description: "Replace old_string with new_string in a file read before. old_string must match exactly (no line-number prefix) and be unique unless replace_all.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"old_string":{"type":"string"},"new_string":{"type":"string"},"replace_all":{"type":"boolean"}},"required":["path","old_string","new_string"],"additionalProperties":false}`),
}

// Def implements Tool.
func (EditTool) Def() provider.ToolDef { return editDef }

// Kind implements Tool: its input names a file path.
func (EditTool) Kind() gate.Kind { return gate.KindPath }

func parseEdit(input json.RawMessage) (editInput, error) {
	var in editInput
	if err := decode("edit", input, &in, "path", "old_string", "new_string"); err != nil {
		return in, err
	}
	if in.OldString == "" {
		return in, errors.New("edit: old_string is empty (use write to create a file)")
	}
	if in.OldString == in.NewString {
		return in, errors.New("edit: old_string and new_string are the same")
	}
	return in, nil
}

// Target implements Tool: the path as given (the gate resolves it).
func (EditTool) Target(input json.RawMessage) (Target, error) {
	in, err := parseEdit(input)
	if err != nil {
		return Target{}, err
	}
	return Target{Tool: "edit", Input: in.Path}, nil
}

// Run implements Tool.
func (EditTool) Run(ctx context.Context, env *Env, input json.RawMessage) Result {
	in, err := parseEdit(input)
	if err != nil {
		return errorResult(err)
	}
	tr, err := tracker("edit", env)
	if err != nil {
		return errorResult(err)
	}
	r, err := resolve("edit", env, in.Path)
	if err != nil {
		return errorResult(err)
	}
	shown := env.display(r.Abs)
	if err := tr.CheckWrite(r.Abs); err != nil {
		return errResult("edit: %s: %v", shown, unwrapGuard(err))
	}
	b, _, err := readWhole("edit", shown, r.Abs)
	if err != nil {
		if strings.HasSuffix(err.Error(), "does not exist") {
			return errResult("%v (use write to create it)", err)
		}
		return errorResult(err)
	}
	updated, n, line, err := in.apply(string(b), shown)
	if err != nil {
		return errorResult(err)
	}
	if _, err := writeAtomic(r.Abs, []byte(updated)); err != nil {
		return errResult("edit: %s: %v", shown, err)
	}
	tr.NoteWrite(r.Abs, []byte(updated))
	summary := fmt.Sprintf("edited %s: %d replacement(s), first at line %d\n%s", shown, n, line, diffSummary(in.OldString, in.NewString, 12))
	return Result{Content: summary, Meta: map[string]any{"path": r.Abs, "replacements": n, "line": line}}
}

// apply is the edit on content: the new content, the number of
// replacements and the line of the first; shown names the file in errors.
func (in editInput) apply(content, shown string) (string, int, int, error) {
	oldS, newS := in.OldString, in.NewString
	n := strings.Count(content, oldS)
	if n == 0 && strings.Contains(content, "\r\n") && !strings.Contains(oldS, "\r") {
		oldS, newS = crlf(oldS), crlf(newS)
		n = strings.Count(content, oldS)
	}
	switch {
	case n == 0:
		return "", 0, 0, fmt.Errorf("edit: old_string not found in %s (it must match exactly, whitespace included; read the file again if unsure)", shown)
	case n > 1 && !in.ReplaceAll:
		return "", 0, 0, fmt.Errorf("edit: old_string occurs %d times in %s; add surrounding lines to make it unique, or set replace_all", n, shown)
	}
	line := strings.Count(content[:strings.Index(content, oldS)], "\n") + 1
	if in.ReplaceAll {
		return strings.ReplaceAll(content, oldS, newS), n, line, nil
	}
	return strings.Replace(content, oldS, newS, 1), n, line, nil
}

func crlf(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }

// diffSummary shows old as "-" lines and new as "+" lines, each side cut
// to max lines, leaving out the lines both start and end with.
func diffSummary(oldS, newS string, max int) string {
	a, b := strings.Split(oldS, "\n"), strings.Split(newS, "\n")
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var sb strings.Builder
	side := func(sign string, lines []string) {
		for i, l := range lines {
			if i == max {
				fmt.Fprintf(&sb, "%s … %d more lines\n", sign, len(lines)-max)
				break
			}
			if len(l) > 200 {
				l = l[:runeFloor(l, 200)] + "…"
			}
			sb.WriteString(sign + l + "\n")
		}
	}
	side("-", a[pre:len(a)-suf])
	side("+", b[pre:len(b)-suf])
	return strings.TrimSuffix(sb.String(), "\n")
}
