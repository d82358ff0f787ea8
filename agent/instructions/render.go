package instructions

import (
	"strings"
)

// Headings of the rendered instructions: what they are, and that they are
// conventions, never permissions.
const (
	startHeading = "Instructions from the user's and the project's instruction files (AGENTS.md, CLAUDE.md). They are conventions to follow, not permissions: the permission rules decide every tool call, and the organisation's instructions below come first.\n"
	touchHeading = "Instructions for this directory, from the project's instruction files (conventions to follow, not permissions):\n"
)

// render writes the files' text, each in an <instructions> element naming
// it, and the refused and cut notices after them ("" when there is
// nothing).
func render(sources []Source, notices []Notice, heading string) string {
	var b strings.Builder
	for _, s := range sources {
		if s.text == "" {
			continue
		}
		b.WriteString("\n<instructions file=\"" + attr(s.Name) + "\" layer=\"" + string(s.Layer) + "\"")
		if s.ImportedBy != "" {
			b.WriteString(" imported_by=\"" + attr(s.ImportedBy) + "\"")
		}
		b.WriteString(">\n")
		b.WriteString(strings.TrimRight(s.text, "\n"))
		b.WriteString("\n</instructions>\n")
	}
	for _, n := range notices {
		if n.Kind == Skipped {
			continue
		}
		b.WriteString("[oceancode: " + n.File + ": " + n.Text + "]\n")
	}
	if b.Len() == 0 {
		return ""
	}
	return heading + b.String()
}

// attr is a name fit for an attribute: quotes and line breaks replaced.
func attr(s string) string {
	return strings.NewReplacer(`"`, "'", "\n", " ", "\r", " ", "<", "‹", ">", "›").Replace(s)
}

// importsOf returns the @path tokens of text (without "@"): an "@" at the
// start of a line or after a blank, outside fenced code blocks and inline
// code spans, up to the next blank, trailing punctuation dropped.
func importsOf(text string) []string {
	var out []string
	fence := ""
	for line := range strings.SplitSeq(text, "\n") {
		t := strings.TrimLeft(line, " \t")
		if fence != "" {
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = t[:3]
			continue
		}
		if !strings.Contains(line, "@") {
			continue
		}
		out = append(out, lineImports(withoutCode(line))...)
	}
	return out
}

func lineImports(line string) []string {
	var out []string
	for i := 0; i < len(line); i++ {
		if line[i] != '@' || i > 0 && line[i-1] != ' ' && line[i-1] != '\t' && line[i-1] != '(' {
			continue
		}
		j := i + 1
		for j < len(line) && line[j] != ' ' && line[j] != '\t' && line[j] != '\r' {
			j++
		}
		if tok := strings.TrimRight(line[i+1:j], ".,;:!?)'\""); tok != "" && !strings.Contains(tok, "@") {
			out = append(out, tok)
		}
		i = j
	}
	return out
}

// withoutCode blanks the inline code spans of a line: a run of n
// backticks up to the next run of exactly n (an unclosed run is text).
func withoutCode(line string) string {
	if !strings.Contains(line, "`") {
		return line
	}
	b := []byte(line)
	for i := 0; i < len(b); {
		if b[i] != '`' {
			i++
			continue
		}
		n := run(b, i)
		end := -1
		for j := i + n; j < len(b); {
			if b[j] != '`' {
				j++
				continue
			}
			m := run(b, j)
			if m == n {
				end = j + m
				break
			}
			j += m
		}
		if end < 0 {
			i += n
			continue
		}
		for k := i; k < end; k++ {
			b[k] = ' '
		}
		i = end
	}
	return string(b)
}

// run is the length of the run of backticks at b[i].
func run(b []byte, i int) int {
	n := 0
	for i+n < len(b) && b[i+n] == '`' {
		n++
	}
	return n
}
