package fsguard

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// SmallFileLimit is the size under which a file the session itself created
// may be overwritten without a read.
const SmallFileLimit = 64 << 10

// The refusals a Tracker wraps (errors.Is works on them).
var (
	ErrNotRead = errors.New("file exists but has not been read this session")
	ErrStale   = errors.New("changed on disk since it was last read; read it again first")
)

// fileInfo is what CheckWrite needs to know about a file.
type fileInfo struct {
	size     int64
	dir      bool
	birth    time.Time
	hasBirth bool // the filesystem reported a birth time
}

// readState is what the session saw when it last read a file.
type readState struct {
	sum  [sha256.Size]byte
	size int64
}

// Tracker is one session's read-before-write and stale-detection memory.
// The zero value is ready to use; it is safe for concurrent use.
type Tracker struct {
	mu    sync.Mutex
	start time.Time
	reads map[string]readState
	// stat finds out about a file; nil is statBirth (statx on Linux,
	// birthtime_linux.go). Tests play a filesystem without birth times.
	stat func(path string) (fileInfo, error)
}

// Start records the time of the session's first tool call (later calls are
// ignored). Call it before the first tool runs: a file born at or after it
// counts as created by the session. Without Start, the first NoteRead,
// NoteWrite or CheckWrite starts the session.
func (t *Tracker) Start(at time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.start.IsZero() {
		t.start = at
	}
}

// Started returns the session's start time (zero before the first call).
func (t *Tracker) Started() time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.start
}

func (t *Tracker) startLocked() {
	if t.start.IsZero() {
		t.start = time.Now()
	}
}

// key canonicalises a path: absolute, symlinks resolved.
func key(path string) string {
	a := absOrSelf(path)
	if r, err := resolvePath(a); err == nil {
		return r
	}
	return filepath.Clean(a)
}

// NoteRead records that the session read path and saw content. Pass the
// whole file as read, even when only a range of it was shown to the model.
func (t *Tracker) NoteRead(path string, content []byte) {
	k := key(path)
	st := readState{sum: sha256.Sum256(content), size: int64(len(content))}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.startLocked()
	if t.reads == nil {
		t.reads = map[string]readState{}
	}
	t.reads[k] = st
}

// NoteWrite records that the session wrote content to path: the session
// knows the file as written, so the next edit needs no read.
func (t *Tracker) NoteWrite(path string, content []byte) { t.NoteRead(path, content) }

// Forget drops what the session knows about path (it was deleted).
func (t *Tracker) Forget(path string) {
	k := key(path)
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.reads, k)
}

// CheckWrite says whether an edit or write of path may go ahead:
//   - a file that does not exist writes freely;
//   - a file read this session (or written by it) writes only if its
//     content still hashes to what was read — else ErrStale;
//   - a file not read this session is refused (ErrNotRead) unless it is
//     under SmallFileLimit and its birth time is at or after the session's
//     start; never when the filesystem reports no birth time.
//
// Any error finding out is a refusal.
func (t *Tracker) CheckWrite(path string) error {
	k := key(path)
	t.mu.Lock()
	t.startLocked()
	st, read := t.reads[k]
	start := t.start
	t.mu.Unlock()

	stat := t.stat
	if stat == nil {
		stat = statBirth
	}
	fi, err := stat(k)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("fsguard: write %s: %w", path, err)
	}
	if fi.dir {
		return fmt.Errorf("fsguard: write %s: is a directory", path)
	}
	if read {
		if fi.size != st.size {
			return fmt.Errorf("fsguard: write %s: %w", path, ErrStale)
		}
		sum, err := hashFile(k)
		if err != nil {
			return fmt.Errorf("fsguard: write %s: %w", path, err)
		}
		if !bytes.Equal(sum[:], st.sum[:]) {
			return fmt.Errorf("fsguard: write %s: %w", path, ErrStale)
		}
		return nil
	}
	if fi.hasBirth && fi.size < SmallFileLimit && !fi.birth.Before(start) {
		return nil
	}
	return fmt.Errorf("fsguard: write %s: %w", path, ErrNotRead)
}

func hashFile(path string) ([sha256.Size]byte, error) {
	var sum [sha256.Size]byte
	f, err := os.Open(path)
	if err != nil {
		return sum, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return sum, err
	}
	copy(sum[:], h.Sum(nil))
	return sum, nil
}
