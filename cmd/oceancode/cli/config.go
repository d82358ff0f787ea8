package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/oceancode/oceancode/internal/exitcode"
	"github.com/oceancode/oceancode/layers"
)

// loadConfig resolves every configuration layer for this process, with the
// session-layer flags a command collected, and reports what the loader
// noticed on stderr (reportConfig).
func loadConfig(a *App, flags []layers.Setting) (*layers.Resolved, error) {
	return loadConfigTrust(a, flags, layers.TrustOptions{})
}

// loadConfigTrust is loadConfig for a command with --trust-project: with
// trust.Project the workspace is trusted for this process, unless the
// requirements forbid it, which refuses the command (exit 5).
func loadConfigTrust(a *App, flags []layers.Setting, trust layers.TrustOptions) (*layers.Resolved, error) {
	dir, err := a.WorkDir()
	if err != nil {
		return nil, exitcode.With(exitcode.Error, err)
	}
	o := layerOptions(a, dir)
	o.Flags, o.Trust = flags, trust
	r := layers.Resolve(o)
	if r.Workspace != nil && r.Workspace.FlagRefused != "" {
		return nil, exitcode.With(exitcode.Denied, fmt.Errorf("trust workspace %s: %s", r.Workspace.Root, r.Workspace.FlagRefused))
	}
	reportConfig(a.Stderr, r)
	return r, nil
}

// layerOptions are the loader's options for a command of app run in dir:
// its environment and, in tests, its managed dir.
func layerOptions(app *App, dir string) layers.Options {
	return layers.Options{Dir: dir, Getenv: app.Getenv, ManagedDir: app.ManagedDir, ManagedPreferences: app.ManagedPreferences}
}

// pinTrust is --trust-project for the sessions a long-lived process (serve,
// the pager) resolves later: bound to the loosening config of res, the
// one the process started with and named.
func pinTrust(flag bool, res *layers.Resolved) layers.TrustOptions {
	t := layers.TrustOptions{Project: flag}
	if flag && res.Workspace != nil {
		t.Pinned, t.Digest = true, res.Workspace.Digest
	}
	return t
}

// sessionGate is the check every command that starts a session runs first:
// a broken config refuses with 3, refused requirements with no
// last-known-good policy refuse with 4. inspect and doctor never call it.
func sessionGate(r *layers.Resolved) error {
	err := r.Err()
	switch {
	case err == nil:
		return nil
	case errors.Is(err, layers.ErrRequirementsRefused):
		return exitcode.With(exitcode.Refused, err)
	case flagsOnly(r):
		// A bad flag value is a usage error, not a broken config file.
		return exitcode.With(exitcode.Usage, err)
	default:
		return exitcode.With(exitcode.Invalid, err)
	}
}

// flagsOnly reports whether every error diagnostic comes from a flag (or,
// for serve, from a field of the API request: source "api:KEY").
func flagsOnly(r *layers.Resolved) bool {
	n := 0
	for _, d := range r.Diagnostics {
		if d.Severity != layers.Error {
			continue
		}
		if !strings.HasPrefix(d.Source, "flag:") && !strings.HasPrefix(d.Source, "api:") {
			return false
		}
		n++
	}
	return n > 0
}
