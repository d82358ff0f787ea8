package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"

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
// starts its model client and resolves its configuration: the store is on
// the path to the first model request.
type storeFuture struct {
	done  chan struct{}
	st    *session.Store
	err   error
	taken atomic.Bool
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

// take waits for the store and hands it over (sessionfactory.Config's
// OpenStore): who takes it closes it.
func (f *storeFuture) take(context.Context) (*session.Store, error) {
	f.taken.Store(true)
	<-f.done
	return f.st, f.err
}

// discardUnused closes the store if nobody took it.
func (f *storeFuture) discardUnused() {
	if f.taken.Load() {
		return
	}
	<-f.done
	if f.err == nil {
		f.st.Close()
	}
}
