package tools

import (
	"encoding/json"
	"testing"
)

// TestPreview: what each file tool's call would leave at a path, without
// touching a file; the same edit logic as the tools' own runs.
func TestPreview(t *testing.T) {
	t.Parallel()
	patch := "*** Begin Patch\n*** Add File: n.txt\n+new\n*** Update File: u.txt\n@@\n a\n-b\n+B\n*** Delete File: d.txt\n" +
		"*** Update File: m.txt\n*** Move to: moved.txt\n@@\n-x\n+y\n*** End Patch"
	cases := []struct {
		name, tool, at, current string
		input                   any
		after                   string
		removed, ok, err        bool
	}{
		{"edit", "edit", "f.go", "a\nb\nc\n", obj{"path": "f.go", "old_string": "b", "new_string": "B"}, "a\nB\nc\n", false, true, false},
		{"edit crlf", "edit", "f.go", "a\r\nb\r\n", obj{"path": "f.go", "old_string": "a\nb", "new_string": "x\ny"}, "x\r\ny\r\n", false, true, false},
		{"edit not found", "edit", "f.go", "a\n", obj{"path": "f.go", "old_string": "zz", "new_string": "y"}, "", false, true, true},
		{"edit another path", "edit", "g.go", "a\n", obj{"path": "f.go", "old_string": "a", "new_string": "b"}, "", false, false, false},
		{"write", "write", "w.txt", "", obj{"path": "w.txt", "content": "hello\n"}, "hello\n", false, true, false},
		{"patch add", "apply_patch", "n.txt", "", obj{"patch": patch}, "new\n", false, true, false},
		{"patch update", "apply_patch", "u.txt", "a\nb\n", obj{"patch": patch}, "a\nB\n", false, true, false},
		{"patch delete", "apply_patch", "d.txt", "gone\n", obj{"patch": patch}, "", true, true, false},
		{"patch move source", "apply_patch", "m.txt", "x\n", obj{"patch": patch}, "y\n", true, true, false},
		{"patch move destination", "apply_patch", "moved.txt", "", obj{"patch": patch}, "", false, false, false},
		{"read", "read", "f.go", "a\n", obj{"path": "f.go"}, "", false, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in, _ := json.Marshal(c.input)
			var cur []byte
			if c.current != "" {
				cur = []byte(c.current)
			}
			after, removed, ok, err := Preview(c.tool, in, c.at, cur)
			if string(after) != c.after || removed != c.removed || ok != c.ok || (err != nil) != c.err {
				t.Fatalf("Preview = %q, removed %v, ok %v, err %v", after, removed, ok, err)
			}
		})
	}
}
