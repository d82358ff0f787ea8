package gitquery

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/oceancode/oceancode/internal/filestamp"
)

// RefsStamp returns a fingerprint of what `git log --all` of the
// repository at root walks from: every ref and HEAD (the linked worktrees'
// too), the packed refs, a reftable's table list, grafts and the shallow
// file. Commits are immutable, so while the stamp is unchanged the history
// below the refs is too, and a question answered from it (the redactor's
// read of the secrets files' history) need not be asked again.
//
// It reads only file metadata, never runs git: git writes a ref, the
// packed refs and a reftable's list through a lock file it renames into
// place, so each change gives the file a new inode and modification time.
// ok is false when the layout is not one it knows (a .git file that names
// no directory, an unreadable refs tree): the caller then asks git.
func RefsStamp(root string) (stamp string, ok bool) {
	gitDir, common, err := gitDirs(root)
	if err != nil {
		return "", false
	}
	h := sha256.New()
	fmt.Fprintf(h, "v1\x00%s\x00%s\x00", gitDir, common)
	for _, p := range []string{
		filepath.Join(gitDir, "HEAD"), filepath.Join(common, "packed-refs"),
		filepath.Join(common, "reftable", "tables.list"), filepath.Join(common, "info", "grafts"),
		filepath.Join(common, "shallow"),
	} {
		stampFile(h, p)
	}
	dirs := []string{filepath.Join(common, "refs"), filepath.Join(common, "worktrees")}
	if gitDir != common {
		dirs = append(dirs, filepath.Join(gitDir, "refs"))
	}
	for _, d := range dirs {
		if err := stampTree(h, d); err != nil {
			return "", false
		}
	}
	return hex.EncodeToString(h.Sum(nil)), true
}

// gitDirs returns the repository's git directory and its common directory
// (the same but for a linked worktree).
func gitDirs(root string) (gitDir, common string, err error) {
	dotGit := filepath.Join(root, ".git")
	fi, err := os.Lstat(dotGit)
	switch {
	case err != nil:
		return "", "", err
	case fi.IsDir():
		gitDir = dotGit
	case fi.Mode().IsRegular():
		b, err := os.ReadFile(dotGit)
		if err != nil {
			return "", "", err
		}
		line, found := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
		if !found || strings.ContainsAny(line, "\n\x00") {
			return "", "", fmt.Errorf("read %s: not a gitdir link", dotGit)
		}
		gitDir = line
		if !filepath.IsAbs(gitDir) {
			gitDir = filepath.Join(root, gitDir)
		}
	default:
		return "", "", fmt.Errorf("read %s: not a file or directory", dotGit)
	}
	common = gitDir
	if b, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		common = strings.TrimSpace(string(b))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitDir, common)
		}
	}
	return filepath.Clean(gitDir), filepath.Clean(common), nil
}

// stampFile writes p's name and metadata (or its absence) to h.
func stampFile(h hash.Hash, p string) {
	fi, err := os.Lstat(p)
	if err != nil {
		fmt.Fprintf(h, "%s\x00-\x00", p)
		return
	}
	fmt.Fprintf(h, "%s\x00%s\x00", p, meta(fi))
}

// stampTree writes every entry below dir, in the walk's (lexical) order,
// to h; a missing dir is stamped as missing.
func stampTree(h hash.Hash, dir string) error {
	if _, err := os.Lstat(dir); os.IsNotExist(err) {
		fmt.Fprintf(h, "%s\x00-\x00", dir)
		return nil
	}
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%s\x00", p, meta(fi))
		return nil
	})
}

// meta is what a rename into place changes (internal/filestamp).
func meta(fi fs.FileInfo) string {
	st := filestamp.Of(fi)
	return fmt.Sprintf("%d %d %d %o", st.Size, st.MTime.UnixNano(), st.Ino, st.Type)
}
