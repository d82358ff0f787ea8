package frontmatter

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	t.Parallel()
	type fm struct {
		Description string `yaml:"description"`
		Tools       Tools  `yaml:"allowed-tools"`
	}
	for _, tc := range []struct {
		name, in, body, err string
		want                fm
	}{
		{name: "none", in: "just a body\n", body: "just a body\n"},
		{name: "string tools", in: "---\ndescription: x\nallowed-tools: Bash(git add:*), Read\n---\nbody", body: "body",
			want: fm{Description: "x", Tools: Tools{"Bash(git add:*)", "Read"}}},
		{name: "list tools", in: "---\r\nallowed-tools:\r\n  - Read\r\n  - Grep, Glob\r\n---\r\nbody", body: "body",
			want: fm{Tools: Tools{"Read", "Grep", "Glob"}}},
		{name: "unknown keys", in: "---\nfoo: 1\n---\n", body: ""},
		{name: "unclosed", in: "---\ndescription: x\n", err: "never closed"},
		{name: "bad yaml names the file's line", in: "---\ndescription: x\n  bad: [\n---\n", err: "line 3"},
		{name: "tools of a mapping", in: "---\nallowed-tools: {a: b}\n---\n", err: "allowed-tools"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got fm
			body, err := Parse([]byte(tc.in), &got)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if body != tc.body {
				t.Errorf("body %q, want %q", body, tc.body)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "big"), make([]byte, 11), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if _, err := ReadFile(root, "big", 10); err == nil || !strings.Contains(err.Error(), "too large") {
		t.Errorf("over the cap: %v", err)
	}
	if _, err := ReadFile(root, "d", 10); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a directory: %v", err)
	}
	if _, err := ReadFile(root, "../x", 10); err == nil {
		t.Error("read outside the root")
	}
}

func FuzzSplit(f *testing.F) {
	for _, s := range []string{"", "---\n---\n", "---\na: b\n---\nbody", "---\n", "x\n---\n", "---\r\n---"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		front, body, _, err := Split([]byte(s))
		if err == nil && len(front)+len(body) > len(s) {
			t.Fatalf("split %q grew: %q + %q", s, front, body)
		}
		for _, w := range SplitTools(s) {
			if w == "" {
				t.Fatalf("an empty tool from %q", s)
			}
		}
	})
}
