package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/oceancode/oceancode/agent/session"
	"github.com/oceancode/oceancode/layers"
)

// sessionsDB is the session store's path in the state dir.
func sessionsDB(app *App) string {
	return filepath.Join(layers.StateDir(app.Getenv), "sessions.db")
}

// crashDir is where crash reports go.
func crashDir(app *App) string {
	return filepath.Join(layers.StateDir(app.Getenv), "crashes")
}

// storeFuture opens the session store in the background while a resumed run
// resolves its configuration: both are on the path to the first model
// request, and they do not depend on each other.
type storeFuture struct {
	done chan struct{}
	st   *session.Store
	err  error
}

func openStoreAsync(ctx context.Context, app *App) *storeFuture {
	f := &storeFuture{done: make(chan struct{})}
	go func() {
		defer close(f.done)
		f.st, f.err = openStore(ctx, app)
	}()
	return f
}

// openStore opens (creating if need be) the session store in the state dir.
func openStore(ctx context.Context, app *App) (*session.Store, error) {
	path := sessionsDB(app)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("open sessions %s: %w", path, err)
	}
	return session.Open(ctx, path)
}

// get waits for the store.
func (f *storeFuture) get() (*session.Store, error) {
	<-f.done
	return f.st, f.err
}

// discard closes the store if the run stops before using it.
func (f *storeFuture) discard() {
	if f == nil {
		return
	}
	if st, err := f.get(); err == nil {
		st.Close()
	}
}
