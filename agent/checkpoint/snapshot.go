package checkpoint

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Snapshot is the project's tree at one moment.
type Snapshot struct {
	// Tree is the git tree id of the files kept.
	Tree string `json:"tree"`
	// Skipped are the files changed since the previous snapshot that were
	// not kept (larger than the limit, or a nested repository).
	Skipped []Skipped `json:"skipped,omitempty"`
}

// Skipped is a file a snapshot did not keep.
type Skipped struct {
	Path   string `json:"path"`
	Size   int64  `json:"size,omitempty"`
	Reason string `json:"reason"` // "larger than the limit", "nested repository"
}

// emptyTree is git's empty tree.
const emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// Snapshot records the project's working tree in the shadow repository:
// the files git sees changed, deleted or new (ignored files left out) since
// the last snapshot are put in the shadow index, the others keep their
// entries (the index's stat data makes that a stat per file), and the
// index is written as a tree.
func (r *Repo) Snapshot(ctx context.Context) (Snapshot, error) {
	if err := r.lock.lock(); err != nil {
		return Snapshot{}, err
	}
	defer r.lock.unlock()
	return r.snapshot(ctx)
}

func (r *Repo) snapshot(ctx context.Context) (Snapshot, error) {
	if err := r.syncExclude(); err != nil {
		return Snapshot{}, err
	}
	out, err := r.git(ctx, nil, "ls-files", "-z", "-t", "--modified", "--deleted", "--others", "--exclude-standard")
	if err != nil {
		return Snapshot{}, err
	}
	var snap Snapshot
	var update, drop bytes.Buffer
	seen := map[string]bool{}
	for entry := range bytes.SplitSeq(out, []byte{0}) {
		if len(entry) < 3 {
			continue
		}
		p := string(entry[2:])
		if seen[p] {
			continue
		}
		seen[p] = true
		skip, kind := r.classify(p)
		switch kind {
		case pathSkipped:
			snap.Skipped = append(snap.Skipped, skip)
			if entry[0] != '?' { // kept before: its stale entry goes
				drop.WriteString(p + "\x00")
			}
		case pathGone:
			drop.WriteString(p + "\x00")
		default:
			update.WriteString(p + "\x00")
		}
	}
	last, _ := os.ReadFile(filepath.Join(r.dir, "last-tree"))
	snap.Tree = strings.TrimSpace(string(last))
	if update.Len() == 0 && drop.Len() == 0 && snap.Tree != "" {
		return snap, nil
	}
	if drop.Len() > 0 {
		if _, err := r.git(ctx, &drop, "update-index", "--force-remove", "-z", "--stdin"); err != nil {
			return Snapshot{}, err
		}
	}
	if update.Len() > 0 {
		if _, err := r.git(ctx, &update, "update-index", "--add", "--remove", "--replace", "-z", "--stdin"); err != nil {
			return Snapshot{}, err
		}
	}
	tree, err := r.git(ctx, nil, "write-tree")
	if err != nil {
		return Snapshot{}, err
	}
	snap.Tree = strings.TrimSpace(string(tree))
	if err := os.WriteFile(filepath.Join(r.dir, "last-tree"), []byte(snap.Tree+"\n"), 0o600); err != nil {
		return Snapshot{}, fmt.Errorf("checkpoint: record snapshot: %w", err)
	}
	return snap, nil
}

// What a changed path is to a snapshot.
const (
	pathKept    = iota // put in the index as it is now
	pathGone           // removed (or beyond a symbolic link now)
	pathSkipped        // left out: too large, or a nested repository
)

// classify says what the changed path p is to the snapshot: a nested
// repository (git lists it as a directory) or a regular file larger than
// the limit is skipped, a path that is gone (or whose parent is a
// symbolic link now) is removed, anything else is kept.
func (r *Repo) classify(p string) (Skipped, int) {
	if strings.HasSuffix(p, "/") {
		return Skipped{Path: strings.TrimSuffix(p, "/"), Reason: "nested repository"}, pathSkipped
	}
	for dir := path.Dir(p); dir != "."; dir = path.Dir(dir) {
		if fi, err := os.Lstat(filepath.Join(r.root, filepath.FromSlash(dir))); err != nil || !fi.IsDir() {
			return Skipped{}, pathGone
		}
	}
	fi, err := os.Lstat(filepath.Join(r.root, filepath.FromSlash(p)))
	switch {
	case err != nil:
		return Skipped{}, pathGone
	case fi.Mode().IsRegular() && fi.Size() > r.o.MaxFileBytes:
		return Skipped{Path: p, Size: fi.Size(), Reason: fmt.Sprintf("larger than the limit (%d bytes)", r.o.MaxFileBytes)}, pathSkipped
	}
	return Skipped{}, pathKept
}

// syncExclude copies the project's .git/info/exclude (the user's own
// ignore list for this clone) to the file the shadow's core.excludesFile
// names, when it changed. A project whose .git is a file (a worktree, a
// submodule), or whose list cannot be read, has its .gitignore files only:
// a snapshot then keeps more, never less.
func (r *Repo) syncExclude() error {
	want, _ := os.ReadFile(filepath.Join(r.root, ".git", "info", "exclude"))
	p := filepath.Join(r.dir, "info", "project-exclude")
	if got, err := os.ReadFile(p); err == nil && bytes.Equal(got, want) {
		return nil
	}
	if err := os.WriteFile(p, want, 0o600); err != nil {
		return fmt.Errorf("checkpoint: copy the project's exclude list: %w", err)
	}
	return nil
}
