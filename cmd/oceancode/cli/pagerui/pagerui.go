// Package pagerui draws the Ocean pager for the CLI: it turns the
// cli.PagerHost the pager's commands build (a session in process, or a
// server's client for attach) into pager engines and runs agent/pager.
// Only the oceancode-pager companion links it (see cli.Options.RunPager).
package pagerui

import (
	"context"
	"fmt"
	"sync"

	"charm.land/lipgloss/v2"

	"github.com/oceancode/oceancode/agent/pager"
	"github.com/oceancode/oceancode/agent/pager/pagerlocal"
	"github.com/oceancode/oceancode/agent/server/client"
	"github.com/oceancode/oceancode/cmd/oceancode/cli"
)

// Run runs the pager on h until the user exits.
func Run(ctx context.Context, h cli.PagerHost) error {
	var engines engines
	defer engines.close()
	o := pager.Options{In: h.In, Out: h.Out, Root: h.Root, Refs: h.Refs, HistoryFile: h.HistoryFile,
		Dark: lipgloss.HasDarkBackground(h.In, h.Out)}
	switch {
	case h.Client != nil:
		c := h.Client
		o.Engine = engines.set(pager.Remote(c, h.ID))
		o.Resume = func(ctx context.Context, id string) (pager.Engine, error) {
			if _, err := c.State(ctx, id); err != nil {
				return nil, fmt.Errorf("session %s is not open on %s: %w", id, h.Addr, err)
			}
			return engines.set(pager.Remote(c, id)), nil
		}
		o.New = func(ctx context.Context) (pager.Engine, error) {
			st, err := c.Create(ctx, client.CreateRequest{})
			if err != nil {
				return nil, err
			}
			return engines.set(pager.Remote(c, st.ID)), nil
		}
	default:
		hooks := pagerlocal.Hooks{Inspect: h.Inspect, Sessions: h.Sessions}
		o.Engine = engines.set(pagerlocal.New(h.First, hooks))
		o.Resume = func(ctx context.Context, id string) (pager.Engine, error) {
			sess, err := h.Open(ctx, id)
			if err != nil {
				return nil, err
			}
			return engines.set(pagerlocal.New(sess, hooks)), nil
		}
		o.New = func(ctx context.Context) (pager.Engine, error) { return o.Resume(ctx, "") }
	}
	return pager.Run(ctx, o)
}

// engines keeps the engine the pager runs on (it switches with /sessions
// and /clear), to close the last one when it exits.
type engines struct {
	mu  sync.Mutex
	cur pager.Engine
}

func (p *engines) set(e pager.Engine) pager.Engine {
	p.mu.Lock()
	p.cur = e
	p.mu.Unlock()
	return e
}

func (p *engines) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cur != nil {
		_ = p.cur.Close()
	}
}
