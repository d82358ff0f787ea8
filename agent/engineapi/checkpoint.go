package engineapi

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// EventCheckpoint: a turn that changed files recorded its checkpoint (Op
// "turn", N, the files changed), or an undo or a redo restored files (Op
// "undo" or "redo", Checkpoints, the files written). Error says why a
// turn's checkpoint could not be taken (its changes cannot be undone).
const EventCheckpoint EventType = "checkpoint"

// Checkpoint is a checkpoint event's payload.
type Checkpoint struct {
	Op          string           `json:"op"`
	N           int              `json:"n,omitempty"`
	Checkpoints []int            `json:"checkpoints,omitempty"`
	Files       []CheckpointFile `json:"files,omitempty"`
	// Skipped are files not kept (larger than checkpoints.max_file_mb, a
	// nested repository): an undo leaves them as they are.
	Skipped []CheckpointSkip `json:"skipped,omitempty"`
	Error   string           `json:"error,omitempty"`
}

// CheckpointFile is one file a turn changed (or an undo wrote): Status is
// added, modified or deleted.
type CheckpointFile struct {
	Path   string `json:"path"`
	Status string `json:"status"`
}

// CheckpointSkip is a file a checkpoint did not keep.
type CheckpointSkip struct {
	Path   string `json:"path"`
	Size   int64  `json:"size,omitempty"`
	Reason string `json:"reason"`
}

// CheckpointEntry is one checkpoint of the undo list
// (GET /api/session/{id}/checkpoints, oceancode undo --list).
type CheckpointEntry struct {
	N       int              `json:"n"`
	Time    time.Time        `json:"time"`
	Prompt  string           `json:"prompt,omitempty"`
	Files   []CheckpointFile `json:"files"`
	Skipped []CheckpointSkip `json:"skipped,omitempty"`
	Bytes   int64            `json:"bytes"`
	Undone  bool             `json:"undone,omitempty"`
}

// UndoRequest is an undo's (or a redo's) options: To undoes every
// checkpoint back to number To (0: the last one); Force overwrites files
// changed since.
type UndoRequest struct {
	To    int  `json:"to,omitempty"`
	Force bool `json:"force,omitempty"`
}

// Errors of undo and redo.
var (
	ErrNothingToUndo = errors.New("checkpoint: nothing to undo")
	ErrNothingToRedo = errors.New("checkpoint: nothing to redo")
	// ErrCheckpointsOff: the session keeps no checkpoints.
	ErrCheckpointsOff = errors.New("checkpoint: checkpoints are off for this session")
)

// ConflictError lists the files changed since the turn ended (or since
// the undo, for a redo): an undo never overwrites them without Force, and
// writes nothing.
type ConflictError struct {
	Op    string   `json:"op"` // undo or redo
	Files []string `json:"files"`
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("checkpoint: %s: changed since, not overwritten: %s (%s with force to overwrite them)",
		e.Op, strings.Join(e.Files, ", "), e.Op)
}
