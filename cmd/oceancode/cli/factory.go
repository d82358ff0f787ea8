package cli

import (
	"context"
	"fmt"

	"github.com/oceancode/oceancode/agent/runner"
	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/sessionfactory"
)

// factoryConfig is what run, serve and the pager give the session factory
// alike: the layers resolved by loadConfigTrust with trust (its report on
// stderr), the working directory, warnings on stderr and the managed audit
// stream (telemetry) of each session. Each sets its store, model clients,
// Via and Interactive.
func factoryConfig(app *App, trust layers.TrustOptions) (sessionfactory.Config, error) {
	cwd, err := app.WorkDir()
	if err != nil {
		return sessionfactory.Config{}, err
	}
	return sessionfactory.Config{
		Resolve: func(s []layers.Setting) (*layers.Resolved, error) { return loadConfigTrust(app, s, trust) },
		Getenv:  app.Getenv, WorkDir: cwd,
		Warn: func(line string) { fmt.Fprintf(app.Stderr, "oceancode: %s\n", line) },
		Observe: func(ctx context.Context, res *layers.Resolved) (func(runner.Event), func()) {
			tel := startTelemetry(ctx, app, res)
			if tel == nil {
				return nil, nil
			}
			return func(e runner.Event) { tel.Event(e.Event) }, func() { closeTelemetry(app, tel) }
		},
	}, nil
}
