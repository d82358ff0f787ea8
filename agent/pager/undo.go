package pager

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/oceancode/oceancode/agent/engineapi"
)

// Checkpointer is what an engine offers for /undo, /redo and /checkpoints
// (GET …/checkpoints, POST …/undo and …/redo): both adapters implement it;
// an engine without it answers that undo is unavailable.
type Checkpointer interface {
	Checkpoints(ctx context.Context) ([]engineapi.CheckpointEntry, error)
	Undo(ctx context.Context, r engineapi.UndoRequest) (engineapi.Checkpoint, error)
	Redo(ctx context.Context, r engineapi.UndoRequest) (engineapi.Checkpoint, error)
}

// undoCommand is /undo [N] [--force], /redo [--force] and /checkpoints.
// A file changed since the turn is never overwritten without --force: the
// refusal lists them.
func (m *model) undoCommand(name string, args []string) tea.Cmd {
	cp, ok := m.eng.(Checkpointer)
	if !ok {
		m.print(m.th.Error.Render("/" + name + ": undo is unavailable here"))
		return nil
	}
	ctx := m.ctx
	if name == "checkpoints" {
		return func() tea.Msg {
			list, err := cp.Checkpoints(ctx)
			if err != nil {
				return outputMsg{err: fmt.Errorf("/checkpoints: %w", err)}
			}
			return outputMsg{text: cleanText(checkpointList(list))}
		}
	}
	var r engineapi.UndoRequest
	for _, a := range args {
		n, err := strconv.Atoi(a)
		switch {
		case a == "--force":
			r.Force = true
		case err == nil && n > 0 && name == "undo":
			r.To = n
		default:
			m.print(m.th.Error.Render(fmt.Sprintf("/%s: unknown argument %q (/%s [N] [--force])", name, a, name)))
			return nil
		}
	}
	op := cp.Undo
	if name == "redo" {
		op = cp.Redo
	}
	return func() tea.Msg {
		_, err := op(ctx, r)
		var ce *engineapi.ConflictError
		switch {
		case errors.As(err, &ce):
			return outputMsg{err: fmt.Errorf("/%s: changed since, not overwritten: %s — /%s --force overwrites them",
				name, cleanText(strings.Join(ce.Files, ", ")), name)}
		case err != nil:
			return outputMsg{err: fmt.Errorf("/%s: %w", name, err)}
		}
		return nil // the checkpoint event tells what was written
	}
}

// checkpointList is the undo list.
func checkpointList(list []engineapi.CheckpointEntry) string {
	if len(list) == 0 {
		return "checkpoints: none yet (a turn that changes files makes one)"
	}
	var b strings.Builder
	b.WriteString("checkpoints (/undo N goes back to before N):")
	for _, c := range list {
		state := ""
		if c.Undone {
			state = "  undone"
		}
		fmt.Fprintf(&b, "\n  %3d  %s  %d files%s  %s", c.N, c.Time.Local().Format("01-02 15:04"), len(c.Files), state, c.Prompt)
	}
	return b.String()
}

// checkpointLine renders a checkpoint event.
func checkpointLine(th Theme, c *engineapi.Checkpoint) string {
	if c == nil {
		return ""
	}
	if c.Error != "" {
		return th.Warn.Render("checkpoint not taken (this turn cannot be undone): " + cleanText(c.Error))
	}
	var names []string
	for _, f := range c.Files {
		names = append(names, f.Path)
	}
	s := fmt.Sprintf("checkpoint %d: %s (/undo)", c.N, strings.Join(names, ", "))
	if c.Op != "turn" {
		s = fmt.Sprintf("%s of checkpoint %v: %s", c.Op, c.Checkpoints, strings.Join(names, ", "))
	}
	for _, k := range c.Skipped {
		s += fmt.Sprintf("\n  not kept: %s (%s)", k.Path, k.Reason)
	}
	return th.Muted.Render(cleanText(s))
}
