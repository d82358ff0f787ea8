package jev

import (
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/oceancode/oceancode/internal/gitquery"
)

// gitTimeout bounds each git query of a decision.
const gitTimeout = 5 * time.Second

// maxCompareBytes is the largest file whose content is compared with git's
// copy; a larger one is treated as changed.
const maxCompareBytes = 64 << 20

// gitState answers, at decision time, whether git could give a file back:
// the file is in HEAD with the same content and mode as in the work tree.
// (The index is not consulted: removing the work-tree file leaves it as it
// is, so a staged change survives the removal.) It runs one read-only git
// listing (ls-tree: no filters, hooks or fsmonitor) and hashes the
// work-tree files itself, so a clean or smudge filter, a line-ending
// conversion or core.fileMode off reads as "changed": it fails closed.
type gitState struct{}

// unchanged returns nil when every path (relative to cwd, or absolute) is
// a file or symbolic link git holds unchanged; otherwise an error naming
// the first that is not, or saying why git could not answer.
func (*gitState) unchanged(cwd string, paths []string) error {
	rel := make([]string, len(paths))
	for i, p := range paths {
		if filepath.IsAbs(p) {
			r, err := filepath.Rel(cwd, p)
			if err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			p = r
		}
		rel[i] = filepath.ToSlash(filepath.Clean(p))
	}
	head, err := gitEntries(cwd, rel, "ls-tree", "-z", "HEAD")
	if err != nil {
		return err
	}
	for i, p := range rel {
		he, ok := head[p]
		if !ok {
			return fmt.Errorf("%s is not in git's last commit", paths[i])
		}
		if err := sameAsBlob(filepath.Join(cwd, filepath.FromSlash(p)), he); err != nil {
			return fmt.Errorf("%s %w", paths[i], err)
		}
	}
	return nil
}

// gitEntry is one line of ls-tree.
type gitEntry struct{ mode, sha string }

// gitEntries runs a read-only git listing in cwd over the literal paths
// and returns its entries by path (as git prints them, relative to cwd).
func gitEntries(cwd string, paths []string, args ...string) (map[string]gitEntry, error) {
	ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
	defer cancel()
	argv := append([]string{"--literal-pathspecs"}, args...)
	argv = append(append(argv, "--"), paths...)
	cmd := gitquery.Command(ctx, cwd, argv...)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("git %s: %s", args[0], clip(msg, 120))
	}
	m := map[string]gitEntry{}
	for _, rec := range bytes.Split(out.Bytes(), []byte{0}) {
		meta, p, ok := bytes.Cut(rec, []byte{'\t'})
		if !ok {
			continue
		}
		f := strings.Fields(string(meta))
		if len(f) != 3 {
			return nil, fmt.Errorf("git %s: unexpected output %q", args[0], clip(string(rec), 80))
		}
		m[string(p)] = gitEntry{mode: f[0], sha: f[2]}
	}
	return m, nil
}

// errChanged is the cause when the work tree's file differs from git's.
var errChanged = errors.New("has changes that are not committed")

// sameAsBlob checks that the file at p has e's mode and content.
func sameAsBlob(p string, e gitEntry) error {
	fi, err := os.Lstat(p)
	if err != nil {
		return fmt.Errorf("cannot be read: %w", err)
	}
	var content []byte
	mode := ""
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		t, err := os.Readlink(p)
		if err != nil {
			return fmt.Errorf("cannot be read: %w", err)
		}
		content, mode = []byte(t), "120000"
	case fi.Mode().IsRegular():
		if fi.Size() > maxCompareBytes {
			return fmt.Errorf("is too large to compare with git's copy (%d bytes)", fi.Size())
		}
		if content, err = os.ReadFile(p); err != nil {
			return fmt.Errorf("cannot be read: %w", err)
		}
		mode = "100644"
		if fi.Mode()&0o100 != 0 {
			mode = "100755"
		}
	default:
		return fmt.Errorf("is not a file (%s)", fi.Mode().Type())
	}
	var h hash.Hash
	switch len(e.sha) {
	case 40:
		h = sha1.New()
	case 64:
		h = sha256.New()
	default:
		return fmt.Errorf("has an object id git's formats do not have (%q)", e.sha)
	}
	h.Write([]byte("blob " + strconv.Itoa(len(content)) + "\x00"))
	h.Write(content)
	if mode != e.mode || hex.EncodeToString(h.Sum(nil)) != e.sha {
		return errChanged
	}
	return nil
}
