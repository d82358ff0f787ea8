package pager

import (
	"context"

	"github.com/oceancode/oceancode/agent/runner"
	"github.com/oceancode/oceancode/agent/session"
)

// LocalHooks are what the Local engine needs beyond the session.
type LocalHooks struct {
	Inspect  func() ([]byte, error)
	Sessions func(context.Context) ([]session.Session, error)
}

// Local is the Engine over an in-process session (h-pui implements it).
func Local(*runner.Session, LocalHooks) Engine { panic("h-pui") }
