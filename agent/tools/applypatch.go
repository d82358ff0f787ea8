package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/oceancode/oceancode/agent/gate"
	"github.com/oceancode/oceancode/agent/provider"
)

// ApplyPatchTool applies a multi-file patch in the "*** Begin Patch" format.
//
// Every path (including a Move to destination) goes through the boundary
// and the tracker; every hunk of every file is checked before anything is
// written, so a patch with one bad hunk changes no file. Files are then
// written one by one, each atomically; should a write fail part way, the
// files already written are put back. It implements MultiTarget: the turn
// loop must gate each path Targets returns.
type ApplyPatchTool struct{}

type patchInput struct {
	Patch string `json:"patch"`
}

var applyPatchDef = provider.ToolDef{
	Name: "apply_patch",
	Description: "Edit files with a patch:\n*** Begin Patch\n*** Add File: p\n+line\n*** Update File: p\n*** Move to: q (optional)\n@@ optional line to find first\n ctx\n-old\n+new\n*** Delete File: p\n*** End Patch\n" +
		"Keep 3 context lines per hunk. Files to update or delete must be read first. All hunks apply or none.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"patch":{"type":"string"}},"required":["patch"],"additionalProperties":false}`),
}

// Def implements Tool.
func (ApplyPatchTool) Def() provider.ToolDef { return applyPatchDef }

// Kind implements Tool: its input names a file path.
func (ApplyPatchTool) Kind() gate.Kind { return gate.KindPath }

func parsePatchInput(input json.RawMessage) ([]patchOp, error) {
	var in patchInput
	if err := decode("apply_patch", input, &in, "patch"); err != nil {
		return nil, err
	}
	ops, err := parsePatch(in.Patch)
	if err != nil {
		return nil, fmt.Errorf("apply_patch: %w", err)
	}
	return ops, nil
}

// Paths returns every path the patch names, as written in it, in order:
// each file's path and, for a move, its destination.
func (ApplyPatchTool) Paths(input json.RawMessage) ([]string, error) {
	ops, err := parsePatchInput(input)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, op := range ops {
		out = append(out, op.path)
		if op.moveTo != "" {
			out = append(out, op.moveTo)
		}
	}
	return out, nil
}

// Targets implements MultiTarget: one target per path of Paths.
func (t ApplyPatchTool) Targets(input json.RawMessage) ([]Target, error) {
	paths, err := t.Paths(input)
	if err != nil {
		return nil, err
	}
	out := make([]Target, len(paths))
	for i, p := range paths {
		out[i] = Target{Tool: "apply_patch", Input: p}
	}
	return out, nil
}

// Target implements Tool: the first path. The loop must gate all of them
// (Targets).
func (t ApplyPatchTool) Target(input json.RawMessage) (Target, error) {
	ts, err := t.Targets(input)
	if err != nil {
		return Target{}, err
	}
	return ts[0], nil
}

// fileChange is one file's planned new state.
type fileChange struct {
	abs     string
	shown   string
	data    []byte // new content; nil with remove
	remove  bool
	created bool
	// what was there, to put back should a later write fail
	had     bool
	oldData []byte
	oldMode fs.FileMode
}

// Run implements Tool.
func (ApplyPatchTool) Run(ctx context.Context, env *Env, input json.RawMessage) Result {
	ops, err := parsePatchInput(input)
	if err != nil {
		return errorResult(err)
	}
	tr, err := tracker("apply_patch", env)
	if err != nil {
		return errorResult(err)
	}
	var changes []*fileChange
	var problems []string
	seen := map[string]string{}
	var summary []string
	adds, dels := 0, 0
	claim := func(path string) (string, string, bool) {
		r, err := resolve("apply_patch", env, path)
		if err != nil {
			problems = append(problems, err.Error())
			return "", "", false
		}
		shown := env.display(r.Abs)
		if prev, dup := seen[r.Abs]; dup {
			problems = append(problems, fmt.Sprintf("%s: named twice in the patch (as %q and %q); one change per file", shown, prev, path))
			return "", "", false
		}
		seen[r.Abs] = path
		if err := tr.CheckWrite(r.Abs); err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", shown, unwrapGuard(err)))
			return "", "", false
		}
		return r.Abs, shown, true
	}
	for _, op := range ops {
		abs, shown, ok := claim(op.path)
		if !ok {
			continue
		}
		switch op.kind {
		case opAdd:
			if _, err := os.Lstat(abs); err == nil {
				problems = append(problems, fmt.Sprintf("%s: already exists (use Update File)", shown))
				continue
			}
			changes = append(changes, &fileChange{abs: abs, shown: shown, data: []byte(op.added()), created: true})
			summary = append(summary, "A "+shown)
			adds += len(op.lines)
		case opDelete:
			b, fi, err := readWhole("apply_patch", shown, abs)
			if err != nil {
				problems = append(problems, strings.TrimPrefix(err.Error(), "apply_patch: "))
				continue
			}
			changes = append(changes, &fileChange{abs: abs, shown: shown, remove: true, had: true, oldData: b, oldMode: fi.Mode().Perm()})
			summary = append(summary, "D "+shown)
			dels += strings.Count(string(b), "\n")
		case opUpdate:
			b, fi, err := readWhole("apply_patch", shown, abs)
			if err != nil {
				problems = append(problems, strings.TrimPrefix(err.Error(), "apply_patch: "))
				continue
			}
			if isBinary(b) {
				problems = append(problems, shown+": a binary file")
				continue
			}
			updated, err := op.updated(string(b))
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s: %v", shown, err))
				continue
			}
			for _, h := range op.hunks {
				for _, l := range h.lines {
					switch l.op {
					case '+':
						adds++
					case '-':
						dels++
					}
				}
			}
			if op.moveTo == "" {
				changes = append(changes, &fileChange{abs: abs, shown: shown, data: []byte(updated), had: true, oldData: b, oldMode: fi.Mode().Perm()})
				summary = append(summary, "M "+shown)
				continue
			}
			dst, dshown, ok := claim(op.moveTo)
			if !ok {
				continue
			}
			if _, err := os.Lstat(dst); err == nil {
				problems = append(problems, fmt.Sprintf("%s: the move destination already exists", dshown))
				continue
			}
			changes = append(changes,
				&fileChange{abs: dst, shown: dshown, data: []byte(updated), created: true, oldMode: fi.Mode().Perm()},
				&fileChange{abs: abs, shown: shown, remove: true, had: true, oldData: b, oldMode: fi.Mode().Perm()})
			summary = append(summary, "R "+shown+" -> "+dshown)
		}
	}
	if len(problems) > 0 {
		return errResult("apply_patch: nothing changed; fix these and send the whole patch again:\n%s", strings.Join(problems, "\n"))
	}
	if err := ctx.Err(); err != nil {
		return errResult("apply_patch: nothing changed: %v", err)
	}
	if err := commit(changes); err != nil {
		return errResult("apply_patch: %v", err)
	}
	var files []string
	for _, c := range changes {
		if c.remove {
			tr.Forget(c.abs)
		} else {
			tr.NoteWrite(c.abs, c.data)
		}
		files = append(files, c.abs)
	}
	return Result{Content: fmt.Sprintf("applied: +%d -%d lines\n%s", adds, dels, strings.Join(summary, "\n")),
		Meta: map[string]any{"files": files, "added": adds, "removed": dels}}
}

// commit writes the planned changes in order. If one fails, those already
// made are undone (best effort) and the error says so.
func commit(changes []*fileChange) error {
	for i, c := range changes {
		var err error
		if c.remove {
			err = os.Remove(c.abs)
		} else if c.created && c.oldMode != 0 {
			// a move keeps the source's mode
			if err = os.MkdirAll(dirOf(c.abs), 0o755); err == nil {
				err = writeMode(c.abs, c.data, c.oldMode)
			}
		} else {
			_, err = writeAtomic(c.abs, c.data)
		}
		if err == nil {
			continue
		}
		var undo []string
		for j := i - 1; j >= 0; j-- {
			if uerr := revert(changes[j]); uerr != nil {
				undo = append(undo, uerr.Error())
			}
		}
		if len(undo) > 0 {
			return fmt.Errorf("%s: %w; undoing the earlier files failed too: %s", c.shown, err, strings.Join(undo, "; "))
		}
		return fmt.Errorf("%s: %w; no file was changed", c.shown, err)
	}
	return nil
}

// revert puts one change back.
func revert(c *fileChange) error {
	if !c.had {
		if err := os.Remove(c.abs); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	return writeMode(c.abs, c.oldData, c.oldMode)
}
