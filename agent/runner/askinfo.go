package runner

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"

	"github.com/aymanbagabas/go-udiff"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/tools"
)

// The bounds of an ask's diff: the file read for it, and the diff itself
// (cut with a note beyond).
const (
	maxDiffFile = 4 << 20
	maxDiff     = 64 << 10
)

// RememberScope is where an "always" answer is kept: with the session (its
// record), for the rest of it and when it is resumed.
const RememberScope = "session"

// enrich adds to an ask what a client shows with it (docs/server.md, "The
// ask"): the bash command's segments with their verdicts, the rules an
// "always" answer adds, and for a file tool the diff of its change.
func (s *Session) enrich(pa *PendingAsk, a agent.Ask) {
	gr := a.Gate
	if gr == nil {
		return
	}
	if gr.Shell != nil {
		// Asked: the segment the deciding rule named, and those the shell
		// guard itself asks about.
		var units []string
		if gr.Call.Shell != nil {
			units = gr.Call.Shell.Segments
		}
		for i, seg := range gr.Shell.Segments {
			v := seg.Verdict.String()
			decided := i < len(units) && units[i] == gr.Decision.Pattern
			pa.Segments = append(pa.Segments, agent.AskSegment{Text: seg.Raw, Verdict: v, Reason: seg.Reason, Asked: decided || v == "ask"})
		}
	}
	if slices.Contains(pa.Choices, string(agent.Always)) {
		r := &agent.Remember{Rules: []string{}, Scope: RememberScope}
		for _, ap := range s.approvals.Would(gr.Call) {
			r.Rules = append(r.Rules, ap.Rule())
		}
		pa.Remember = r
	}
	pa.Diff = s.askDiff(a)
}

// askDiff is the unified diff of what a file tool's call would change at
// the ask's target, "" when there is none to show. The file is read at the
// path the gate resolved, within the project root (never through a link
// out of it): a path outside the project gets no diff.
func (s *Session) askDiff(a agent.Ask) string {
	switch a.Target.Tool {
	case "edit", "write", "apply_patch":
	default:
		return ""
	}
	p := a.Gate.Path
	root := ""
	if s.cfg.Env != nil {
		root = s.cfg.Env.Boundary.ProjectRoot
	}
	if p == nil || p.Rel == "" || root == "" {
		return ""
	}
	current, err := readInRoot(root, p.Rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		current = nil
	case err != nil:
		return fmt.Sprintf("(no diff: %v)", err)
	case bytes.IndexByte(current, 0) >= 0:
		return "(no diff: a binary file)"
	}
	after, removed, ok, err := tools.Preview(a.Target.Tool, a.ToolCall.Input, a.Target.Input, current)
	if !ok {
		return ""
	}
	if err != nil {
		return fmt.Sprintf("(no diff: %v)", err)
	}
	from, to := "a/"+p.Rel, "b/"+p.Rel
	if current == nil {
		from = "/dev/null"
	}
	if removed && after == nil {
		to = "/dev/null"
	}
	return cutDiff(udiff.Unified(from, to, string(current), string(after)))
}

// readInRoot reads a regular file at rel within root, refusing a link that
// leads out of it, a special file and a file over maxDiffFile.
func readInRoot(root, rel string) ([]byte, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	// Stat first: opening a FIFO would block.
	fi, err := r.Stat(rel)
	if err != nil {
		return nil, err
	}
	switch {
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("%s is not a regular file", rel)
	case fi.Size() > maxDiffFile:
		return nil, fmt.Errorf("%s is over %d MiB", rel, maxDiffFile>>20)
	}
	f, err := r.Open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxDiffFile+1))
}

// cutDiff cuts a diff over maxDiff bytes at a line end, with a note.
func cutDiff(d string) string {
	if len(d) <= maxDiff {
		return d
	}
	cut := d[:maxDiff]
	if i := bytes.LastIndexByte([]byte(cut), '\n'); i > 0 {
		cut = cut[:i+1]
	}
	return cut + fmt.Sprintf("… diff cut at %d KB (%d bytes in all)\n", maxDiff>>10, len(d))
}
