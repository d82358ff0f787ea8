package pager

import (
	"fmt"
	"strings"
)

// instructionsDoc is the "instructions" block of the inspect document
// (agent/instructions.Report): the instruction files a session here puts
// in the prompt.
type instructionsDoc struct {
	Files []struct {
		Name       string `json:"name"`
		Layer      string `json:"layer"`
		ImportedBy string `json:"imported_by"`
		Bytes      int    `json:"bytes"`
		Cut        string `json:"cut"`
	} `json:"files"`
	Notices []struct {
		Kind string `json:"kind"`
		File string `json:"file"`
		Text string `json:"text"`
	} `json:"notices"`
	Bytes         int    `json:"bytes"`
	MaxTotalBytes int    `json:"max_total_bytes"`
	Off           string `json:"off"`
}

// instructionsText is /instructions: every file in the prompt, its layer,
// its bytes and what was cut, then the refused imports. Names come from
// the repository: they are sanitised.
func instructionsText(d inspectDoc) string {
	in := d.Instructions
	if in != nil && in.Off != "" {
		return "instructions: off: " + clean(in.Off)
	}
	if in == nil || len(in.Files) == 0 && len(in.Notices) == 0 {
		return "instructions: no AGENTS.md or CLAUDE.md here (oceancode init writes a starting one)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "instructions: %d files, %d of %d bytes", len(in.Files), in.Bytes, in.MaxTotalBytes)
	for _, f := range in.Files {
		name := clean(f.Name)
		if f.ImportedBy != "" {
			name += " (imported by " + clean(f.ImportedBy) + ")"
		}
		fmt.Fprintf(&b, "\n  %-7s %s  %d bytes", f.Layer, name, f.Bytes)
		if f.Cut != "" {
			b.WriteString("  cut: " + clean(f.Cut))
		}
	}
	for _, n := range in.Notices {
		fmt.Fprintf(&b, "\n  %s %s: %s", n.Kind, clean(n.File), clean(n.Text))
	}
	b.WriteString("\n  a subdirectory's AGENTS.md joins when a tool first touches that directory")
	return b.String()
}
