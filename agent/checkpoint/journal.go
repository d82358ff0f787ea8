package checkpoint

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/oceancode/oceancode/internal/atomicfile"
)

// Change is one file a turn changed.
type Change struct {
	Path   string `json:"path"`
	Status string `json:"status"` // added, modified, deleted
	// The file's mode and blob id before and after ("" when absent).
	OldMode string `json:"old_mode,omitempty"`
	NewMode string `json:"new_mode,omitempty"`
	OldID   string `json:"old_id,omitempty"`
	NewID   string `json:"new_id,omitempty"`
}

// Checkpoint is one turn's: the snapshots before its first change and at
// its end, and the files that differ.
type Checkpoint struct {
	N      int       `json:"n"`
	Time   time.Time `json:"time"`
	Prompt string    `json:"prompt,omitempty"`
	Pre    string    `json:"pre"`
	Post   string    `json:"post"`
	Files  []Change  `json:"files"`
	// Skipped are files the turn changed that were not kept (too large):
	// an undo cannot restore them.
	Skipped []Skipped `json:"skipped,omitempty"`
	// Bytes is the size of the files it kept (about the disk it costs).
	Bytes  int64 `json:"bytes"`
	Undone bool  `json:"undone,omitempty"`
}

// undoRecord is one undo, for redo: the checkpoints it undid, the
// snapshot taken before it, and what it wrote (Old: before the undo, New:
// what the undo put there).
type undoRecord struct {
	Time        time.Time `json:"time"`
	Checkpoints []int     `json:"checkpoints"`
	Before      string    `json:"before"`
	Files       []Change  `json:"files"`
}

// journal is a session's checkpoints, as kept in its JSON file.
type journal struct {
	Session string `json:"session"`
	Root    string `json:"root"`
	// MaxFileBytes is the limit the session's snapshots used: an undo
	// from another process takes its snapshot with the same.
	MaxFileBytes int64        `json:"max_file_bytes,omitempty"`
	Checkpoints  []Checkpoint `json:"checkpoints"`
	Redo         []undoRecord `json:"redo,omitempty"`
}

// Session is one session's checkpoints in a project's shadow repository.
type Session struct {
	repo   *Repo
	id     string
	mu     sync.Mutex
	pre    *Snapshot // the running turn's, once taken
	prompt string
}

// validSessionID: a letter or digit, then up to 127 letters, digits, '_',
// '.' or '-' (a file name in the journal directory). A loop, not a
// regexp: the bounded repetition compiled at package init cost every
// oceancode process 0.5 ms and 1,700 allocations.
func validSessionID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || c != '_' && c != '.' && c != '-') {
			return false
		}
	}
	return true
}

// Session returns the checkpoints of session id.
func (r *Repo) Session(id string) (*Session, error) {
	if !validSessionID(id) || strings.Contains(id, "..") {
		return nil, fmt.Errorf("checkpoint: session id %q: not a session id", id)
	}
	return &Session{repo: r, id: id}, nil
}

// OpenSession returns the checkpoints of a recorded session, in the
// project its journal names (oceancode undo, out of the session's process).
func OpenSession(o Options, id string) (*Session, error) {
	if !validSessionID(id) {
		return nil, fmt.Errorf("checkpoint: session id %q: not a session id", id)
	}
	p := journalPath(o.StateDir, id)
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("checkpoint: session %s: %w", id, ErrNoCheckpoints)
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint: read %s: %w", p, err)
	}
	var j journal
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, fmt.Errorf("checkpoint: read %s: %w", p, err)
	}
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = j.MaxFileBytes
	}
	r, err := Open(o, j.Root)
	if err != nil {
		return nil, err
	}
	return r.Session(id)
}

// ErrNoCheckpoints: the session has no checkpoint (nothing to undo).
var ErrNoCheckpoints = errors.New("no checkpoints")

func journalPath(stateDir, id string) string {
	return filepath.Join(stateDir, "checkpoints", "sessions", id+".json")
}

func (s *Session) load() (*journal, error) {
	p := journalPath(s.repo.o.StateDir, s.id)
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return &journal{Session: s.id, Root: s.repo.root}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint: read %s: %w", p, err)
	}
	var j journal
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, fmt.Errorf("checkpoint: read %s: %w", p, err)
	}
	return &j, nil
}

func (s *Session) save(j *journal) error {
	p := journalPath(s.repo.o.StateDir, s.id)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("checkpoint: save %s: %w", p, err)
	}
	data, err := json.MarshalIndent(j, "", "  ")
	if err != nil {
		return fmt.Errorf("checkpoint: save %s: %w", p, err)
	}
	if err := atomicfile.Write(p, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

// List returns the session's checkpoints, oldest first.
func (s *Session) List() ([]Checkpoint, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j, err := s.load()
	if err != nil {
		return nil, err
	}
	return j.Checkpoints, nil
}

// CanRedo reports whether an undo can be redone.
func (s *Session) CanRedo() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	j, err := s.load()
	return err == nil && len(j.Redo) > 0
}

// Before takes the running turn's first snapshot, once per turn: call it
// before each tool call that may change files. prompt labels the
// checkpoint in the list.
func (s *Session) Before(ctx context.Context, prompt string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pre != nil {
		return nil
	}
	snap, err := s.repo.Snapshot(ctx)
	if err != nil {
		return err
	}
	s.pre, s.prompt = &snap, prompt
	return nil
}

// End closes the running turn: when Before took a snapshot, it takes the
// second, records the checkpoint when files changed and returns it (nil:
// no snapshot was taken, or nothing changed).
func (s *Session) End(ctx context.Context) (*Checkpoint, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	pre := s.pre
	s.pre = nil
	if pre == nil {
		return nil, nil
	}
	post, err := s.repo.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	files, err := s.repo.diff(ctx, pre.Tree, post.Tree)
	if err != nil {
		return nil, err
	}
	skipped := newlySkipped(pre.Skipped, post.Skipped)
	if len(files) == 0 && len(skipped) == 0 {
		return nil, nil
	}
	j, err := s.load()
	if err != nil {
		return nil, err
	}
	c := Checkpoint{N: len(j.Checkpoints) + 1, Time: s.repo.o.Now().UTC(), Prompt: firstLine(s.prompt),
		Pre: pre.Tree, Post: post.Tree, Files: files, Skipped: skipped, Bytes: s.repo.sizeOf(files)}
	if err := s.repo.keep(ctx, s.id, fmt.Sprintf("%d", c.N), c.Pre, c.Post); err != nil {
		return nil, err
	}
	j.Checkpoints = append(j.Checkpoints, c)
	j.MaxFileBytes = s.repo.o.MaxFileBytes
	j.Redo = nil // a new change ends what could be redone
	if err := s.save(j); err != nil {
		return nil, err
	}
	return &c, nil
}

// newlySkipped are the files of post skipped that pre did not skip as
// they are (a large file that was there before the turn is not the
// turn's).
func newlySkipped(pre, post []Skipped) []Skipped {
	before := map[string]int64{}
	for _, s := range pre {
		before[s.Path] = s.Size
	}
	var out []Skipped
	for _, s := range post {
		if size, ok := before[s.Path]; !ok || size != s.Size {
			out = append(out, s)
		}
	}
	return out
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(s); len(r) > 80 {
		s = string(r[:79]) + "…"
	}
	return s
}

// diff lists the files that differ between two trees.
func (r *Repo) diff(ctx context.Context, from, to string) ([]Change, error) {
	if from == to {
		return nil, nil
	}
	out, err := r.git(ctx, nil, "diff-tree", "-r", "-z", "--no-renames", "--no-ext-diff", "--no-textconv", from, to)
	if err != nil {
		return nil, err
	}
	fields := bytes.Split(out, []byte{0})
	var files []Change
	for i := 0; i+1 < len(fields); i += 2 {
		meta := strings.Fields(strings.TrimPrefix(string(fields[i]), ":"))
		if len(meta) != 5 {
			return nil, fmt.Errorf("checkpoint: git diff-tree: unexpected line %q", fields[i])
		}
		c := Change{Path: string(fields[i+1]), OldMode: meta[0], NewMode: meta[1], OldID: meta[2], NewID: meta[3]}
		switch meta[4] {
		case "A":
			c.Status, c.OldMode, c.OldID = "added", "", ""
		case "D":
			c.Status, c.NewMode, c.NewID = "deleted", "", ""
		default:
			c.Status = "modified"
		}
		files = append(files, c)
	}
	return files, nil
}

// sizeOf is the size of the changed files as they are now.
func (r *Repo) sizeOf(files []Change) int64 {
	var n int64
	for _, f := range files {
		if fi, err := os.Lstat(filepath.Join(r.root, filepath.FromSlash(f.Path))); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// keep points refs at the trees a checkpoint (or an undo) needs, so that
// git keeps them until Prune drops the refs.
func (r *Repo) keep(ctx context.Context, session, name string, trees ...string) error {
	var in bytes.Buffer
	for i, t := range trees {
		fmt.Fprintf(&in, "update refs/oceancode/%s/%s-%d %s\n", session, name, i, t)
	}
	_, err := r.git(ctx, &in, "update-ref", "--stdin")
	return err
}
