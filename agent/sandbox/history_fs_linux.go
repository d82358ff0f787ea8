package sandbox

// The history keeper runs outside the sandbox, with the agent's rights, on
// directories that sandboxed commands write (and that a command still
// running may change while it works). It therefore reaches every file
// through directory descriptors opened one component at a time without
// following a link: a link a command put in a git dir never leads the
// keeper to read, write or remove a file elsewhere.

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// openNoLinks opens the directory at the absolute path p, one component
// at a time from the root, following no link.
func openNoLinks(p string) (int, error) {
	fd, err := unix.Open("/", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	sub, err := openBelow(fd, strings.TrimPrefix(p, "/"), false, false)
	unix.Close(fd)
	return sub, err
}

// openBelow opens the directory rel (slash-separated; "" or "." is at
// itself) below the directory at, following no link. With mkdir it makes
// missing components; with unlink it also replaces a link found where a
// directory is expected by a directory (in refs/, where git never makes
// links).
func openBelow(at int, rel string, mkdir, unlink bool) (int, error) {
	fd, err := unix.Dup(at)
	if err != nil {
		return -1, err
	}
	unix.CloseOnExec(fd)
	for _, c := range strings.Split(rel, "/") {
		if c == "" || c == "." {
			continue
		}
		if c == ".." {
			unix.Close(fd)
			return -1, unix.EINVAL
		}
		next, err := openDirAt(fd, c)
		if err != nil && mkdir && unlink && kindAt(fd, c) == unix.S_IFLNK && unix.Unlinkat(fd, c, 0) == nil {
			err = unix.ENOENT // ELOOP or ENOTDIR, by kernel
		}
		if mkdir && errors.Is(err, unix.ENOENT) {
			if err = unix.Mkdirat(fd, c, 0o755); err == nil || errors.Is(err, unix.EEXIST) {
				next, err = openDirAt(fd, c)
			}
		}
		unix.Close(fd)
		if err != nil {
			return -1, err
		}
		fd = next
	}
	return fd, nil
}

func openDirAt(at int, name string) (int, error) {
	return unix.Openat(at, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
}

// readSmallAt reads the file name in the directory at when it is a regular
// file of at most max bytes (a link is not followed, a FIFO or device is
// not opened for reading); ok is false otherwise.
func readSmallAt(at int, name string, max int64) (data []byte, ok bool) {
	b, err := readFileAt(at, name, max)
	return b, err == nil
}

// listAt lists the names in the directory at.
func listAt(at int) ([]string, error) {
	fd, err := unix.Openat(at, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), ".")
	defer f.Close()
	return f.Readdirnames(-1)
}

// kindAt is the type bits of name in the directory at (a link's own);
// 0 when it does not exist.
func kindAt(at int, name string) uint32 {
	var st unix.Stat_t
	if unix.Fstatat(at, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return 0
	}
	return st.Mode & unix.S_IFMT
}

// createTempAt creates a new file in the directory at, named prefix and
// random letters, without following a link; a name someone else made
// first is never used.
func createTempAt(at int, prefix string, perm uint32) (*os.File, string, error) {
	var b [8]byte
	for try := 0; ; try++ {
		if _, err := rand.Read(b[:]); err != nil {
			return nil, "", err
		}
		name := prefix + hex.EncodeToString(b[:])
		fd, err := unix.Openat(at, name, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, perm)
		if err == nil {
			return os.NewFile(uintptr(fd), name), name, nil
		}
		if !errors.Is(err, unix.EEXIST) || try == 16 {
			return nil, "", err
		}
	}
}

// replaceAt writes data to the file name in the directory at by a rename
// of a new file over it (never through a link). A directory in its place
// (which git cannot read as a ref) is moved aside under a new name first.
func replaceAt(at int, name string, data []byte) error {
	f, tmp, err := createTempAt(at, name+".oceancode-restore-", 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = unix.Renameat(at, tmp, at, name)
		if errors.Is(err, unix.EISDIR) || errors.Is(err, unix.ENOTEMPTY) || errors.Is(err, unix.EEXIST) {
			if err = moveAside(at, name); err == nil {
				err = unix.Renameat(at, tmp, at, name)
			}
		}
	}
	if err != nil {
		_ = unix.Unlinkat(at, tmp, 0)
	}
	return err
}

// moveAside renames name in the directory at to a new name beside it
// (name.oceancode-moved-…), so that something else can take its place.
func moveAside(at int, name string) error {
	f, aside, err := createTempAt(at, name+".oceancode-moved-", 0o600)
	if err != nil {
		return err
	}
	f.Close()
	if err := unix.Unlinkat(at, aside, 0); err != nil {
		return err
	}
	return unix.Renameat(at, name, at, aside)
}
