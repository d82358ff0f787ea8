//go:build !linux

package sandbox

import (
	"os"
	"time"
)

// scanDir calls fn with the name and kind of each entry of the directory
// at path, symlinks not followed (os.ReadDir here; Linux reads getdents64
// directly). It reports whether the whole directory was read.
func scanDir(path string, _ []byte, fn func(name []byte, kind entryKind)) bool {
	ents, err := os.ReadDir(path)
	if err != nil {
		return false
	}
	for _, e := range ents {
		k := entryOther
		switch {
		case e.IsDir():
			k = entryDir
		case e.Type().IsRegular():
			k = entryFile
		}
		fn([]byte(e.Name()), k)
	}
	return true
}

// dirStamp vouches for no listing here: every search reads every
// directory.
type dirStamp struct{}

type stamper struct{}

func newStamper(time.Time) *stamper { return &stamper{} }

func (*stamper) stamp(string) (d dirStamp, vouch, leaf bool) { return dirStamp{}, false, false }

// leafGit is never asked here: no directory is known to be a leaf.
func leafGit(string) ([]searchEntry, bool) { return nil, false }

// readHeads records nothing off Linux: the runner keeps git history only
// there (see docs/sandbox.md).
func readHeads([]string) []gitHead { return nil }

// readGitFile reads a .git file when it is a regular file of at most 4096
// bytes.
func readGitFile(p string) ([]byte, bool) {
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > 4096 {
		return nil, false
	}
	b, err := os.ReadFile(p)
	return b, err == nil && len(b) <= 4096
}
