// Package frontmatter reads the Markdown files of custom commands and
// skills: the YAML front matter between two "---" lines at the top (parsed
// with go.yaml.in/yaml/v3, the YAML library the module already has, so a
// team's Claude Code files with lists, quoted strings and folded
// descriptions read as Claude Code reads them), the body after it, and the
// file itself from inside a directory it cannot leave (an os.Root: no
// symlink or ".." escapes), regular files only, with a size cap.
package frontmatter

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Split separates the front matter from the body. A file without a first
// line "---" has none (front is nil). line is the 1-based line the body
// starts on.
func Split(data []byte) (front []byte, body string, line int, err error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	first, rest, ok := bytes.Cut(data, []byte("\n"))
	if !ok || strings.TrimRight(string(first), " \t\r") != "---" {
		return nil, string(data), 1, nil
	}
	n := 2
	off := 0
	for {
		l, more, found := bytes.Cut(rest[off:], []byte("\n"))
		if strings.TrimRight(string(l), " \t\r") == "---" {
			front = rest[:off]
			if !found {
				more = nil
			}
			return front, string(more), n + 1, nil
		}
		if !found {
			return nil, "", 0, errors.New("the front matter opened with --- on line 1 is never closed: end it with a line ---")
		}
		off += len(l) + 1
		n++
	}
}

// Parse splits data and decodes its front matter into v (a struct with
// yaml tags). Unknown keys are ignored, as Claude Code ignores them. The
// error names the line in the file.
func Parse(data []byte, v any) (body string, err error) {
	front, body, _, err := Split(data)
	if err != nil {
		return "", err
	}
	if len(bytes.TrimSpace(front)) == 0 {
		return body, nil
	}
	if err := yaml.Unmarshal(front, v); err != nil {
		// yaml counts lines from the front matter's first line, which is
		// the file's second.
		return "", fmt.Errorf("front matter: %s", shiftLine(err.Error(), 1))
	}
	return body, nil
}

// shiftLine adds n to the "line N" yaml reports.
func shiftLine(msg string, n int) string {
	i := strings.Index(msg, "line ")
	if i < 0 {
		return msg
	}
	j := i + len("line ")
	k := j
	for k < len(msg) && msg[k] >= '0' && msg[k] <= '9' {
		k++
	}
	var l int
	if _, err := fmt.Sscanf(msg[j:k], "%d", &l); err != nil {
		return msg
	}
	return fmt.Sprintf("%sline %d%s", msg[:i], l+n, msg[k:])
}

// ErrTooLarge is returned by ReadFile for a file over its cap.
var ErrTooLarge = errors.New("file too large")

// ReadFile reads name (slash-separated, relative) inside root: a regular
// file (a symlink is followed only while it stays inside root; a
// directory, device or fifo is refused) of at most max bytes.
func ReadFile(root *os.Root, name string, max int64) ([]byte, error) {
	f, err := root.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file (%s)", name, st.Mode().Type())
	}
	if st.Size() > max {
		return nil, fmt.Errorf("%s: %w: %d bytes, the limit is %d", name, ErrTooLarge, st.Size(), max)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s: %w: over %d bytes", name, ErrTooLarge, max)
	}
	return data, nil
}

// Tools is an allowed-tools value: Claude Code writes it as one string,
// comma-separated ("Bash(git add:*), Read"), or as a YAML list.
type Tools []string

// UnmarshalYAML implements yaml.Unmarshaler.
func (t *Tools) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		*t = SplitTools(n.Value)
		return nil
	case yaml.SequenceNode:
		var out Tools
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode {
				return fmt.Errorf("line %d: allowed-tools: want a tool name, not a %s", c.Line, kindName(c.Kind))
			}
			out = append(out, SplitTools(c.Value)...)
		}
		*t = out
		return nil
	}
	return fmt.Errorf("line %d: allowed-tools: want a string or a list of strings", n.Line)
}

func kindName(k yaml.Kind) string {
	switch k {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	}
	return "value"
}

// SplitTools splits "Bash(git add:*), Read" at the commas (and blanks)
// outside parentheses.
func SplitTools(s string) []string {
	var out []string
	depth, start := 0, 0
	flush := func(end int) {
		if w := strings.TrimSpace(s[start:end]); w != "" {
			out = append(out, w)
		}
	}
	for i, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0 && (r == ',' || r == ' ' || r == '\t' || r == '\n'):
			flush(i)
			start = i + 1
		}
	}
	flush(len(s))
	return out
}

// IsNotExist reports whether err says a file or directory is missing.
func IsNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
