package pagerlocal

import (
	"context"

	"github.com/oceancode/oceancode/agent/engineapi"
)

// Checkpoints, Undo and Redo make the in-process engine a pager.Checkpointer.
func (l *Engine) Checkpoints(ctx context.Context) ([]engineapi.CheckpointEntry, error) {
	return l.s.Checkpoints()
}

// Undo is the session's Undo.
func (l *Engine) Undo(ctx context.Context, r engineapi.UndoRequest) (engineapi.Checkpoint, error) {
	return l.s.Undo(ctx, r)
}

// Redo is the session's Redo.
func (l *Engine) Redo(ctx context.Context, r engineapi.UndoRequest) (engineapi.Checkpoint, error) {
	return l.s.Redo(ctx, r)
}
