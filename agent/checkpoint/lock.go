package checkpoint

import (
	"fmt"
	"os"
	"sync"
)

// fileLock serialises the work on one shadow repository: between the
// sessions of this process (mu) and between processes (an flock on the
// lock file, where the platform has one).
type fileLock struct {
	path string
	mu   sync.Mutex
	f    *os.File
}

func newFileLock(path string) *fileLock { return &fileLock{path: path} }

func (l *fileLock) lock() error {
	l.mu.Lock()
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_RDWR, 0o600)
	if err == nil {
		err = flock(f)
		if err != nil {
			f.Close()
		}
	}
	if err != nil {
		l.mu.Unlock()
		return fmt.Errorf("checkpoint: lock %s: %w", l.path, err)
	}
	l.f = f
	return nil
}

func (l *fileLock) unlock() {
	l.f.Close() // releases the flock
	l.f = nil
	l.mu.Unlock()
}
