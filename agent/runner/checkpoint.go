package runner

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"sync"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/checkpoint"
	"github.com/oceancode/oceancode/agent/engineapi"
	"github.com/oceancode/oceancode/agent/message"
)

// checkpoints are a session's turn checkpoints (Options.Checkpoints): the
// shadow repository is opened at the first change of the first turn that
// makes one, the checkpoint is taken before each turn's first change
// (agent.Config.BeforeChange) and recorded at its end.
type checkpoints struct {
	o      checkpoint.Options
	mu     sync.Mutex
	cs     *checkpoint.Session
	err    error  // why the repository could not be opened
	prompt string // the running turn's
	told   bool   // the running turn's failure was told
	pruned bool   // Prune ran after the session's first checkpoint
	wg     sync.WaitGroup
}

// withCheckpoints sets the turn loop's hook when the session keeps
// checkpoints.
func (s *Session) withCheckpoints() {
	if s.o.Checkpoints == nil {
		return
	}
	s.ckpt = &checkpoints{o: *s.o.Checkpoints}
	s.cfg.BeforeChange = s.beforeChange
}

// checkpointSession opens the session's checkpoints once: in the project
// root, under the session's id (a random one for a session not recorded).
func (s *Session) checkpointSession() (*checkpoint.Session, error) {
	c := s.ckpt
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cs != nil || c.err != nil {
		return c.cs, c.err
	}
	root := s.cfg.Env.Boundary.ProjectRoot
	if root == "" {
		root = s.cfg.Env.Cwd
	}
	id := s.ID()
	if id == "" {
		var b [8]byte
		_, _ = rand.Read(b[:])
		id = "unrecorded-" + hex.EncodeToString(b[:])
	}
	repo, err := checkpoint.Open(c.o, root)
	if err == nil {
		c.cs, err = repo.Session(id)
	}
	c.err = err
	return c.cs, err
}

// beforeChange is the turn loop's BeforeChange: the turn's first snapshot,
// once. A checkpoint that cannot be taken does not stop the turn: its
// checkpoint event says why (once per turn), and the turn cannot be undone.
func (s *Session) beforeChange(ctx context.Context, _ string) {
	cs, err := s.checkpointSession()
	if err == nil {
		s.ckpt.mu.Lock()
		prompt := s.ckpt.prompt
		s.ckpt.mu.Unlock()
		err = cs.Before(ctx, prompt)
	}
	if err != nil {
		s.tellCheckpointError(err)
	}
}

func (s *Session) tellCheckpointError(err error) {
	s.ckpt.mu.Lock()
	told := s.ckpt.told
	s.ckpt.told = true
	s.ckpt.mu.Unlock()
	if !told {
		s.emit(agent.Event{Type: agent.EventCheckpoint, Checkpoint: &engineapi.Checkpoint{Op: "turn", Error: err.Error()}})
	}
}

// checkpointTurn starts a turn's checkpoint bookkeeping.
func (s *Session) checkpointTurn(prompt string) {
	if s.ckpt == nil {
		return
	}
	s.ckpt.mu.Lock()
	s.ckpt.prompt, s.ckpt.told = prompt, false
	s.ckpt.mu.Unlock()
}

// checkpointEnd records the turn's checkpoint, if it took one, and tells
// the files it changed. It runs on the session's context: a cancelled turn
// is recorded too.
func (s *Session) checkpointEnd() {
	if s.ckpt == nil {
		return
	}
	s.ckpt.mu.Lock()
	cs := s.ckpt.cs
	s.ckpt.mu.Unlock()
	if cs == nil {
		return
	}
	c, err := cs.End(context.WithoutCancel(s.ctx))
	switch {
	case err != nil:
		s.tellCheckpointError(err)
	case c != nil:
		s.emit(agent.Event{Type: agent.EventCheckpoint, Checkpoint: &engineapi.Checkpoint{Op: "turn", N: c.N,
			Files: filesOf(c.Files), Skipped: skipsOf(c.Skipped)}})
		s.pruneOnce()
	}
}

// pruneOnce drops old checkpoints (by age and size) and packs loose
// objects, in the background, once per session after its first
// checkpoint: a session that changes nothing costs nothing. A failure is
// told as a checkpoint event; the turn is not affected.
func (s *Session) pruneOnce() {
	s.ckpt.mu.Lock()
	done := s.ckpt.pruned
	s.ckpt.pruned = true
	s.ckpt.mu.Unlock()
	if done {
		return
	}
	s.ckpt.wg.Add(1)
	go func() {
		defer s.ckpt.wg.Done()
		if _, err := checkpoint.Prune(s.ctx, s.ckpt.o); err != nil && s.ctx.Err() == nil {
			s.emit(agent.Event{Type: agent.EventCheckpoint, Checkpoint: &engineapi.Checkpoint{Op: "turn", Error: "prune: " + err.Error()}})
		}
	}()
}

// checkpointWait waits for a prune in the background (Close, once the
// session's context is cancelled).
func (s *Session) checkpointWait() {
	if s.ckpt != nil {
		s.ckpt.wg.Wait()
	}
}

// Checkpoints lists the session's checkpoints, oldest first
// (ErrCheckpointsOff when it keeps none).
func (s *Session) Checkpoints() ([]engineapi.CheckpointEntry, error) {
	if s.ckpt == nil {
		return nil, engineapi.ErrCheckpointsOff
	}
	cs, err := s.checkpointSession()
	if err != nil {
		return nil, err
	}
	list, err := cs.List()
	if err != nil {
		return nil, err
	}
	out := make([]engineapi.CheckpointEntry, 0, len(list))
	for _, c := range list {
		out = append(out, EntryOf(c))
	}
	return out, nil
}

// EntryOf is a checkpoint as the undo list shows it.
func EntryOf(c checkpoint.Checkpoint) engineapi.CheckpointEntry {
	return engineapi.CheckpointEntry{N: c.N, Time: c.Time, Prompt: c.Prompt, Files: filesOf(c.Files),
		Skipped: skipsOf(c.Skipped), Bytes: c.Bytes, Undone: c.Undone}
}

// Undo restores the files of the last checkpoint (or of every checkpoint
// back to r.To) between turns — it waits for the running turn — and adds
// a note to the conversation so the model knows. A *ConflictError lists
// files changed since, unless r.Force.
func (s *Session) Undo(ctx context.Context, r engineapi.UndoRequest) (engineapi.Checkpoint, error) {
	return s.checkpointOp(ctx, func(cs *checkpoint.Session) (checkpoint.Result, error) {
		return cs.Undo(ctx, checkpoint.UndoOptions{To: r.To, Force: r.Force})
	})
}

// Redo puts back what the last undo replaced, as Undo does.
func (s *Session) Redo(ctx context.Context, r engineapi.UndoRequest) (engineapi.Checkpoint, error) {
	return s.checkpointOp(ctx, func(cs *checkpoint.Session) (checkpoint.Result, error) {
		return cs.Redo(ctx, r.Force)
	})
}

// checkpointOp runs an undo or a redo on the session's loop, between turns.
func (s *Session) checkpointOp(ctx context.Context, op func(*checkpoint.Session) (checkpoint.Result, error)) (engineapi.Checkpoint, error) {
	if s.ckpt == nil {
		return engineapi.Checkpoint{}, engineapi.ErrCheckpointsOff
	}
	var out engineapi.Checkpoint
	var err error
	done := make(chan struct{})
	// done of the item: Close answers a dropped item there.
	it := &item{done: make(chan turnResult, 1), fn: func() {
		defer close(done)
		out, err = s.runCheckpointOp(op)
	}}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return out, ErrClosed
	}
	s.queue = append(s.queue, it)
	s.poke()
	s.mu.Unlock()
	select {
	case <-done:
		return out, err
	case <-it.done:
		return engineapi.Checkpoint{}, ErrClosed
	case <-ctx.Done(): // the op may still run: out and err are its, not ours to read
		return engineapi.Checkpoint{}, ctx.Err()
	}
}

// runCheckpointOp runs op and, when it wrote files, tells the model (a
// user message in the conversation and the store) and the clients (a
// checkpoint event).
func (s *Session) runCheckpointOp(op func(*checkpoint.Session) (checkpoint.Result, error)) (engineapi.Checkpoint, error) {
	s.mu.Lock()
	if n := len(s.history); n > 0 && len(s.history[n-1].ToolCalls()) > 0 {
		s.mu.Unlock()
		return engineapi.Checkpoint{}, errors.New("checkpoint: the session waits for tool results: answer its asks first")
	}
	s.mu.Unlock()
	cs, err := s.checkpointSession()
	if err != nil {
		return engineapi.Checkpoint{}, err
	}
	res, err := op(cs)
	if err != nil {
		return engineapi.Checkpoint{}, err
	}
	note := message.UserText(res.Note())
	s.mu.Lock()
	s.history = append(s.history, note)
	s.mu.Unlock()
	s.turnMessage(note)
	ev := engineapi.Checkpoint{Op: res.Op, Checkpoints: res.Checkpoints, Files: filesOf(res.Files), Skipped: skipsOf(res.NotRestored)}
	s.emit(agent.Event{Type: agent.EventCheckpoint, Text: res.Note(), Checkpoint: &ev})
	return ev, nil
}

func filesOf(cs []checkpoint.Change) []engineapi.CheckpointFile {
	out := make([]engineapi.CheckpointFile, 0, len(cs))
	for _, c := range cs {
		out = append(out, engineapi.CheckpointFile{Path: c.Path, Status: c.Status})
	}
	return out
}

func skipsOf(ss []checkpoint.Skipped) []engineapi.CheckpointSkip {
	var out []engineapi.CheckpointSkip
	for _, k := range ss {
		out = append(out, engineapi.CheckpointSkip{Path: k.Path, Size: k.Size, Reason: k.Reason})
	}
	return out
}
