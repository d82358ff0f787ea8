package client

import (
	"context"

	"github.com/oceancode/oceancode/agent/engineapi"
)

func init() {
	sentinels["nothing_to_undo"] = engineapi.ErrNothingToUndo
	sentinels["nothing_to_redo"] = engineapi.ErrNothingToRedo
	sentinels["checkpoints_off"] = engineapi.ErrCheckpointsOff
}

// Checkpoints is GET …/checkpoints: the session's undo list.
func (c *Client) Checkpoints(ctx context.Context, id string) ([]engineapi.CheckpointEntry, error) {
	var b struct {
		Checkpoints []engineapi.CheckpointEntry `json:"checkpoints"`
	}
	err := c.do(ctx, "GET", sessionPath(id, "/checkpoints"), nil, &b)
	return b.Checkpoints, err
}

// Undo is POST …/undo; a 409 changed_since is an *engineapi.ConflictError.
func (c *Client) Undo(ctx context.Context, id string, r engineapi.UndoRequest) (engineapi.Checkpoint, error) {
	var b engineapi.Checkpoint
	err := c.do(ctx, "POST", sessionPath(id, "/undo"), r, &b)
	return b, err
}

// Redo is POST …/redo, as Undo.
func (c *Client) Redo(ctx context.Context, id string, r engineapi.UndoRequest) (engineapi.Checkpoint, error) {
	var b engineapi.Checkpoint
	err := c.do(ctx, "POST", sessionPath(id, "/redo"), r, &b)
	return b, err
}
