package checkpoint

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/oceancode/oceancode/agent/engineapi"
)

// ErrNothingToUndo and ErrNothingToRedo: no checkpoint is left to undo, no
// undo to redo (the engine's vocabulary, agent/engineapi).
var (
	ErrNothingToUndo = engineapi.ErrNothingToUndo
	ErrNothingToRedo = engineapi.ErrNothingToRedo
)

// ConflictError lists the files changed since the turn ended (or since the
// undo, for a redo): they are not overwritten without Force.
type ConflictError = engineapi.ConflictError

// UndoOptions choose what an undo restores.
type UndoOptions struct {
	// To undoes every checkpoint from the last back to number To (0: the
	// last one not undone yet).
	To int
	// Force overwrites files changed since the turn ended.
	Force bool
}

// Result is what an undo or a redo did.
type Result struct {
	Op          string   `json:"op"` // undo or redo
	Checkpoints []int    `json:"checkpoints"`
	Files       []Change `json:"files"` // Old: before, New: what was written ("" when removed)
	// NotRestored are files the checkpoints skipped (too large): they are
	// as they are.
	NotRestored []Skipped `json:"not_restored,omitempty"`
}

// Note is the result told to the model (and the user), one paragraph.
func (res Result) Note() string {
	var b strings.Builder
	verb := "undid"
	if res.Op == "redo" {
		verb = "redid"
	}
	nums := make([]string, len(res.Checkpoints))
	for i, n := range res.Checkpoints {
		nums[i] = fmt.Sprint(n)
	}
	fmt.Fprintf(&b, "[oceancode] The user %s the file changes of checkpoint %s.", verb, strings.Join(nums, ", "))
	if len(res.Files) > 0 {
		var names []string
		for _, f := range res.Files {
			names = append(names, f.Path)
		}
		fmt.Fprintf(&b, " These files are back as they were before those changes: %s.", strings.Join(names, ", "))
		if res.Op == "redo" {
			b.Reset()
			fmt.Fprintf(&b, "[oceancode] The user redid the file changes of checkpoint %s: these files are again as those turns left them: %s.",
				strings.Join(nums, ", "), strings.Join(names, ", "))
		}
	}
	if len(res.NotRestored) > 0 {
		var names []string
		for _, s := range res.NotRestored {
			names = append(names, s.Path+" ("+s.Reason+")")
		}
		fmt.Fprintf(&b, " Not restored: %s.", strings.Join(names, ", "))
	}
	b.WriteString(" Re-read a file before editing it.")
	return b.String()
}

// Undo restores the files of the last checkpoint (or of every checkpoint
// back to opts.To) to what they were before those turns. A file changed
// since its turn ended is not overwritten unless opts.Force: a
// *ConflictError lists them and nothing is written.
func (s *Session) Undo(ctx context.Context, opts UndoOptions) (Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j, err := s.load()
	if err != nil {
		return Result{}, err
	}
	var pick []int // indexes into j.Checkpoints, newest first
	for i := len(j.Checkpoints) - 1; i >= 0; i-- {
		c := j.Checkpoints[i]
		if c.Undone || (opts.To > 0 && c.N < opts.To) {
			continue
		}
		pick = append(pick, i)
		if opts.To <= 0 {
			break
		}
	}
	if len(pick) == 0 {
		return Result{}, ErrNothingToUndo
	}
	if err := s.repo.lock.lock(); err != nil {
		return Result{}, err
	}
	defer s.repo.lock.unlock()
	now, err := s.repo.snapshot(ctx)
	if err != nil {
		return Result{}, err
	}
	paths := pathsOf(j.Checkpoints, pick)
	cur, err := s.repo.entries(ctx, now.Tree, paths)
	if err != nil {
		return Result{}, err
	}
	// Walk back from the newest: each file must be as the turn left it.
	state := maps.Clone(cur)
	var conflicts []string
	res := Result{Op: "undo"}
	for _, i := range pick {
		c := j.Checkpoints[i]
		res.Checkpoints = append(res.Checkpoints, c.N)
		res.NotRestored = append(res.NotRestored, c.Skipped...)
		for _, f := range c.Files {
			if state[f.Path] != (entry{f.NewMode, f.NewID}) && !slices.Contains(conflicts, f.Path) {
				conflicts = append(conflicts, f.Path)
			}
			state[f.Path] = entry{f.OldMode, f.OldID}
		}
	}
	if len(conflicts) > 0 && !opts.Force {
		slices.Sort(conflicts)
		return Result{}, &ConflictError{Op: "undo", Files: conflicts}
	}
	res.Files = changesTo(paths, cur, state)
	if err := s.repo.restore(ctx, res.Files); err != nil {
		return Result{}, err
	}
	if err := s.repo.keep(ctx, s.id, fmt.Sprintf("u%d", len(j.Redo)+1), now.Tree); err != nil {
		return Result{}, err
	}
	for _, i := range pick {
		j.Checkpoints[i].Undone = true
	}
	j.Redo = append(j.Redo, undoRecord{Time: s.repo.o.Now().UTC(), Checkpoints: res.Checkpoints, Before: now.Tree, Files: res.Files})
	return res, s.save(j)
}

// Redo puts back what the last undo replaced, unless a file changed since
// the undo (a *ConflictError lists them; force overwrites them).
func (s *Session) Redo(ctx context.Context, force bool) (Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j, err := s.load()
	if err != nil {
		return Result{}, err
	}
	if len(j.Redo) == 0 {
		return Result{}, ErrNothingToRedo
	}
	rec := j.Redo[len(j.Redo)-1]
	if err := s.repo.lock.lock(); err != nil {
		return Result{}, err
	}
	defer s.repo.lock.unlock()
	now, err := s.repo.snapshot(ctx)
	if err != nil {
		return Result{}, err
	}
	var paths []string
	for _, f := range rec.Files {
		paths = append(paths, f.Path)
	}
	cur, err := s.repo.entries(ctx, now.Tree, paths)
	if err != nil {
		return Result{}, err
	}
	var conflicts []string
	want := map[string]entry{}
	for _, f := range rec.Files {
		if cur[f.Path] != (entry{f.NewMode, f.NewID}) {
			conflicts = append(conflicts, f.Path)
		}
		want[f.Path] = entry{f.OldMode, f.OldID}
	}
	if len(conflicts) > 0 && !force {
		return Result{}, &ConflictError{Op: "redo", Files: conflicts}
	}
	res := Result{Op: "redo", Checkpoints: rec.Checkpoints, Files: changesTo(paths, cur, want)}
	if err := s.repo.restore(ctx, res.Files); err != nil {
		return Result{}, err
	}
	for i := range j.Checkpoints {
		if slices.Contains(rec.Checkpoints, j.Checkpoints[i].N) {
			j.Checkpoints[i].Undone = false
			res.NotRestored = append(res.NotRestored, j.Checkpoints[i].Skipped...)
		}
	}
	j.Redo = j.Redo[:len(j.Redo)-1]
	return res, s.save(j)
}

// entry is a file in a tree: its mode and blob id ("" when absent).
type entry struct{ mode, id string }

// pathsOf are the files the picked checkpoints changed, sorted.
func pathsOf(cps []Checkpoint, pick []int) []string {
	var paths []string
	for _, i := range pick {
		for _, f := range cps[i].Files {
			paths = append(paths, f.Path)
		}
	}
	slices.Sort(paths)
	return slices.Compact(paths)
}

// changesTo are the writes that take each path from cur to want.
func changesTo(paths []string, cur, want map[string]entry) []Change {
	var out []Change
	for _, p := range paths {
		c, w := cur[p], want[p]
		if c == w {
			continue
		}
		ch := Change{Path: p, OldMode: c.mode, OldID: c.id, NewMode: w.mode, NewID: w.id, Status: "modified"}
		switch {
		case c.id == "":
			ch.Status = "added"
		case w.id == "":
			ch.Status = "deleted"
		}
		out = append(out, ch)
	}
	return out
}
