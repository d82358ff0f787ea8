package checkpoint

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"strconv"
	"strings"
)

// entries are the files of tree among paths (all of them when there are
// many), by path.
func (r *Repo) entries(ctx context.Context, tree string, paths []string) (map[string]entry, error) {
	args := []string{"ls-tree", "-r", "-z", "--full-tree", tree}
	if len(paths) <= 1000 {
		args = append(append(args, "--"), paths...)
	}
	out := map[string]entry{}
	if len(paths) == 0 {
		return out, nil
	}
	data, err := r.git(ctx, nil, args...)
	if err != nil {
		return nil, err
	}
	for rec := range bytes.SplitSeq(data, []byte{0}) {
		meta, p, ok := bytes.Cut(rec, []byte{'\t'})
		f := strings.Fields(string(meta))
		if !ok || len(f) != 3 {
			continue
		}
		out[string(p)] = entry{f[0], f[2]}
	}
	return out, nil
}

// restore writes each change's new state (NewID, NewMode; removed when
// NewID is "") in the project, through an os.Root: no path leaves the
// project, whatever symbolic links the tree holds now.
func (r *Repo) restore(ctx context.Context, changes []Change) error {
	blobs, err := r.blobs(ctx, changes)
	if err != nil {
		return err
	}
	root, err := os.OpenRoot(r.root)
	if err != nil {
		return fmt.Errorf("checkpoint: restore in %s: %w", r.root, err)
	}
	defer root.Close()
	var failed []string
	for _, c := range changes {
		if err := restoreOne(root, c, blobs[c.NewID]); err != nil {
			failed = append(failed, c.Path+": "+err.Error())
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("checkpoint: restore in %s: %s", r.root, strings.Join(failed, "; "))
	}
	return nil
}

func restoreOne(root *os.Root, c Change, data []byte) error {
	p := c.Path
	switch c.NewMode {
	case "":
		if err := root.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	case "160000": // a nested repository's commit: not ours to write
		return nil
	}
	if dir := path.Dir(p); dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	if c.NewMode == "120000" {
		if err := root.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return root.Symlink(string(data), p)
	}
	perm := fs.FileMode(0o644)
	if fi, err := root.Lstat(p); err == nil && fi.Mode().IsRegular() {
		perm = fi.Mode().Perm() &^ 0o111
	}
	if c.NewMode == "100755" {
		perm |= (perm&0o444)>>2 | 0o100 // executable where readable
	}
	return writeAtomic(root, p, data, perm)
}

// writeAtomic replaces p under root with data: a temporary file beside it,
// renamed over it.
func writeAtomic(root *os.Root, p string, data []byte, perm fs.FileMode) error {
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	tmp := path.Join(path.Dir(p), ".oceancode-undo-"+hex.EncodeToString(rnd[:]))
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		if fi, lerr := root.Lstat(p); lerr == nil && fi.IsDir() {
			err = fmt.Errorf("a directory is in the way")
		}
	}
	if err == nil {
		err = root.Rename(tmp, p)
	}
	if err != nil {
		_ = root.Remove(tmp)
	}
	return err
}

// blobs reads the contents of the changes' new blobs with one git
// cat-file --batch.
func (r *Repo) blobs(ctx context.Context, changes []Change) (map[string][]byte, error) {
	var in bytes.Buffer
	want := map[string]bool{}
	for _, c := range changes {
		if c.NewID != "" && c.NewMode != "160000" && !want[c.NewID] {
			want[c.NewID] = true
			in.WriteString(c.NewID + "\n")
		}
	}
	out := map[string][]byte{}
	if len(want) == 0 {
		return out, nil
	}
	cmd := exec.CommandContext(ctx, "git", "cat-file", "--batch")
	cmd.Dir, cmd.Env, cmd.Stdin = r.root, r.env(), &in
	stdout, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("checkpoint: git cat-file in %s: %w", r.root, err)
	}
	br := bufio.NewReader(bytes.NewReader(stdout))
	for range len(want) {
		head, err := br.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("checkpoint: git cat-file: %w", err)
		}
		f := strings.Fields(head)
		if len(f) != 3 {
			return nil, fmt.Errorf("checkpoint: git cat-file: %s", strings.TrimSpace(head))
		}
		n, err := strconv.Atoi(f[2])
		if err != nil {
			return nil, fmt.Errorf("checkpoint: git cat-file: %s", strings.TrimSpace(head))
		}
		data := make([]byte, n+1) // the content and its newline
		if _, err := io.ReadFull(br, data); err != nil {
			return nil, fmt.Errorf("checkpoint: git cat-file %s: %w", f[0], err)
		}
		out[f[0]] = data[:n]
	}
	return out, nil
}
