//go:build unix

package signing

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

func openAnchor(path string, c AnchorCheck) (*os.File, error) {
	// O_NONBLOCK keeps a FIFO planted at path from blocking the open.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("signing: read trust anchor: %w", err)
		}
		if fi, lerr := os.Lstat(path); lerr == nil && !fi.Mode().IsRegular() {
			return nil, anchorNotRegular(path, fi)
		}
		return nil, fmt.Errorf("signing: %w: open %s: %v", ErrAnchor, path, err)
	}
	if err := checkAnchorFile(f, path, c); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func checkAnchorFile(f *os.File, path string, c AnchorCheck) error {
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("signing: %w: stat %s: %v", ErrAnchor, path, err)
	}
	if !fi.Mode().IsRegular() {
		return anchorNotRegular(path, fi)
	}
	if err := checkOwnerMode(path, fi, c, false, "0644"); err != nil {
		return err
	}
	dir := filepath.Dir(path)
	di, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("signing: %w: stat directory %s: %v", ErrAnchor, dir, err)
	}
	if err := checkOwnerMode(dir, di, c, false, "0755"); err != nil {
		return err
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return fmt.Errorf("signing: %w: resolve directory %s: %v", ErrAnchor, dir, err)
	}
	real, err = filepath.Abs(real)
	if err != nil {
		return fmt.Errorf("signing: %w: resolve directory %s: %v", ErrAnchor, dir, err)
	}
	for p := filepath.Dir(real); ; p = filepath.Dir(p) {
		pi, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("signing: %w: stat directory %s: %v", ErrAnchor, p, err)
		}
		if err := checkOwnerMode(p, pi, c, true, "0755"); err != nil {
			return err
		}
		if filepath.Dir(p) == p {
			return nil
		}
	}
}

// checkOwnerMode refuses fi unless it is owned by c.WantUID (or, for an
// ancestor directory, root) and not group- or world-writable (an ancestor may
// be if sticky).
func checkOwnerMode(path string, fi os.FileInfo, c AnchorCheck, ancestor bool, fixMode string) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("signing: %w: %s: cannot read its owner", ErrAnchor, path)
	}
	uid := int(st.Uid)
	what := "the trust anchor"
	if fi.IsDir() {
		what = "the trust anchor's directory"
		if ancestor {
			what = "a directory above the trust anchor"
		}
	}
	found := fmt.Sprintf("owner uid %d, mode %04o", uid, st.Mode&0o7777)
	owner := "root:root"
	if c.WantUID != 0 {
		owner = fmt.Sprint(c.WantUID)
	}
	if uid != c.WantUID && !(ancestor && uid == 0) {
		return fmt.Errorf("signing: %w: %s %s is not owned by uid %d (%s); fix with: chown %s %s", ErrAnchor, what, path, c.WantUID, found, owner, path)
	}
	perm := fi.Mode().Perm()
	if perm&0o022 != 0 && !(ancestor && fi.Mode()&os.ModeSticky != 0) {
		kind := "group-writable"
		switch {
		case perm&0o022 == 0o022:
			kind = "group- and world-writable"
		case perm&0o002 != 0:
			kind = "world-writable"
		}
		return fmt.Errorf("signing: %w: %s %s is %s (%s); fix with: chmod %s %s", ErrAnchor, what, path, kind, found, fixMode, path)
	}
	return nil
}
