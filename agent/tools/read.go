package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/oceancode/oceancode/agent/fsguard"
	"github.com/oceancode/oceancode/agent/gate"
	"github.com/oceancode/oceancode/agent/provider"
)

// ReadTool reads a text file with line numbers.
//
// The path goes through the boundary (@ref aliases, symlinks, "..") and the
// resolved path is opened. Secrets files (.env, *.env, *.env.*) are refused
// (fsguard.CheckRead), as are directories, binary files (a NUL byte in the
// first 8 KiB) and files over 16 MiB. The whole file is noted in the
// session's tracker, so a later write or edit can check it is not stale.
type ReadTool struct{}

// Read limits.
const (
	DefaultReadLines = 2000 // lines shown when no limit is given
	MaxLineLen       = 2000 // longer lines are cut
)

type readInput struct {
	Path   string `json:"path"`
	Offset *int   `json:"offset,omitempty"`
	Limit  *int   `json:"limit,omitempty"`
}

var readDef = provider.ToolDef{
	Name:        "read",
	Description: "Read a text file, with line numbers. Read a file before editing it. Lines over 2000 chars are cut.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"offset":{"type":"integer","minimum":1,"description":"first line (1-based)"},"limit":{"type":"integer","minimum":1,"description":"lines, default 2000"}},"required":["path"],"additionalProperties":false}`),
}

// Def implements Tool.
func (ReadTool) Def() provider.ToolDef { return readDef }

// Kind implements Tool: its input names a file path.
func (ReadTool) Kind() gate.Kind { return gate.KindPath }

func parseRead(input json.RawMessage) (readInput, error) {
	var in readInput
	if err := decode("read", input, &in, "path"); err != nil {
		return in, err
	}
	if in.Offset != nil && *in.Offset < 1 {
		return in, fmt.Errorf("read: offset must be at least 1")
	}
	if in.Limit != nil && *in.Limit < 1 {
		return in, fmt.Errorf("read: limit must be at least 1")
	}
	return in, nil
}

// Target implements Tool: the path as given (the gate resolves it).
func (ReadTool) Target(input json.RawMessage) (Target, error) {
	in, err := parseRead(input)
	if err != nil {
		return Target{}, err
	}
	return Target{Tool: "read", Input: in.Path}, nil
}

// Run implements Tool.
func (ReadTool) Run(ctx context.Context, env *Env, input json.RawMessage) Result {
	in, err := parseRead(input)
	if err != nil {
		return errorResult(err)
	}
	r, err := resolve("read", env, in.Path)
	if err != nil {
		return errorResult(err)
	}
	// The name as given (a symlink's own name, "@ref/.env") and the
	// resolved file's name are both checked.
	if fsguard.IsSecretName(in.Path) {
		return errResult("read: %v", fsguard.CheckRead(in.Path))
	}
	if err := fsguard.CheckRead(r.Abs); err != nil {
		return errResult("read: %v", err)
	}
	shown := env.display(r.Abs)
	b, fi, err := readWhole("read", shown, r.Abs)
	if err != nil {
		return errorResult(err)
	}
	if env.Tracker != nil {
		env.Tracker.NoteRead(r.Abs, b)
	}
	meta := map[string]any{"path": r.Abs, "bytes": len(b)}
	if isBinary(b) {
		return Result{Content: fmt.Sprintf("%s is a binary file (%d bytes); not shown", shown, fi.Size()), Meta: meta}
	}
	if len(b) == 0 {
		return Result{Content: "(empty file)", Meta: meta}
	}
	offset, limit := 1, DefaultReadLines
	if in.Offset != nil {
		offset = *in.Offset
	}
	if in.Limit != nil {
		limit = *in.Limit
	}
	text, shownTo, total := numberLines(string(b), offset, limit, env.outputLimit())
	meta["lines"] = total
	if offset > total {
		return Result{Content: fmt.Sprintf("read: offset %d is past the end: %s has %d lines", offset, shown, total), IsError: true, Meta: meta}
	}
	if shownTo < total {
		text += fmt.Sprintf("\n(%d of %d lines shown; continue with offset=%d)", shownTo-offset+1, total, shownTo+1)
		meta["truncated"] = true
	}
	return Result{Content: text, Meta: meta}
}

// numberLines renders lines [offset, offset+limit) cat -n style, stopping
// before the output passes budget bytes. It returns the text, the last
// line shown and the file's line count.
func numberLines(s string, offset, limit, budget int) (string, int, int) {
	total := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		total++
	}
	var sb strings.Builder
	last := offset - 1
	line := 0
	for len(s) > 0 {
		line++
		l, rest, _ := strings.Cut(s, "\n")
		s = rest
		if line < offset {
			continue
		}
		if line >= offset+limit {
			break
		}
		l = strings.TrimSuffix(l, "\r")
		if len(l) > MaxLineLen {
			l = l[:runeFloor(l, MaxLineLen)] + "… [line cut]"
		}
		n := strconv.Itoa(line)
		if sb.Len()+len(l)+len(n)+8 > budget && line > offset {
			break
		}
		for i := len(n); i < 6; i++ {
			sb.WriteByte(' ')
		}
		sb.WriteString(n)
		sb.WriteByte('\t')
		sb.WriteString(l)
		sb.WriteByte('\n')
		last = line
	}
	return strings.TrimSuffix(sb.String(), "\n"), last, total
}
