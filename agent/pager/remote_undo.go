package pager

import (
	"context"

	"github.com/oceancode/oceancode/agent/engineapi"
)

// Checkpoints, Undo and Redo make the remote engine a Checkpointer.
func (r *remote) Checkpoints(ctx context.Context) ([]engineapi.CheckpointEntry, error) {
	return r.c.Checkpoints(ctx, r.id)
}

func (r *remote) Undo(ctx context.Context, req engineapi.UndoRequest) (engineapi.Checkpoint, error) {
	return r.c.Undo(ctx, r.id, req)
}

func (r *remote) Redo(ctx context.Context, req engineapi.UndoRequest) (engineapi.Checkpoint, error) {
	return r.c.Redo(ctx, r.id, req)
}
