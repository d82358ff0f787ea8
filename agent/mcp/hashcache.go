package mcp

import (
	"fmt"
	"os"
	"sync"
	"time"
)

// fileKey identifies a file's content without reading it: path, size,
// modification time and (where the OS has one) the inode and change time,
// which no unprivileged write can keep.
type fileKey struct {
	path  string
	size  int64
	mtime time.Time
	extra string
}

// hashes caches executables' SHA-256 for the process: five servers run by
// one interpreter (node, python) hash it once, and a session start does not
// pay for re-reading a 100 MB binary per server.
var hashes struct {
	mu sync.Mutex
	m  map[fileKey]*hashEntry
}

type hashEntry struct {
	once sync.Once
	sum  string
	err  error
}

func cachedSHA256(p string) (string, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return "", err
	}
	k := fileKey{path: p, size: fi.Size(), mtime: fi.ModTime(), extra: statExtra(fi)}
	hashes.mu.Lock()
	if hashes.m == nil {
		hashes.m = map[fileKey]*hashEntry{}
	}
	e := hashes.m[k]
	if e == nil {
		e = &hashEntry{}
		hashes.m[k] = e
	}
	hashes.mu.Unlock()
	e.once.Do(func() { e.sum, e.err = fileSHA256(p) })
	if e.err != nil {
		return "", e.err
	}
	// The file changed while it was read: do not trust the digest.
	if fi2, err := os.Stat(p); err != nil || fi2.Size() != k.size || !fi2.ModTime().Equal(k.mtime) || statExtra(fi2) != k.extra {
		hashes.mu.Lock()
		delete(hashes.m, k)
		hashes.mu.Unlock()
		return "", fmt.Errorf("%s changed while it was hashed", p)
	}
	return e.sum, nil
}
