package sessionconfig

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/oceancode/oceancode/agent/hooks"
	"github.com/oceancode/oceancode/layers"
)

// HookKey is hooks.EVENT: the event's matcher groups, each with the origin
// (file:line) of its own group.
type HookKey struct{ spec }

func hookKey(event hooks.Event) HookKey {
	return register(HookKey{spec{segs: []string{"hooks", string(event)}, typ: Array}})
}

func hookKeys() []HookKey {
	var out []HookKey
	for _, e := range hooks.Events {
		out = append(out, hookKey(e))
	}
	return out
}

// Event is the key's hook event.
func (k HookKey) Event() string { return k.segs[1] }

// HooksOf returns the hooks the resolved configuration runs, in layer
// order (a project's only in a trusted workspace: the layers split the
// others off; under allow_managed_hooks_only only the managed layer's and
// the requirements'). A group that does not parse is an error naming the
// key, file and line.
func HooksOf(res *layers.Resolved) ([]hooks.Hook, error) {
	if res == nil {
		return nil, nil
	}
	var out []hooks.Hook
	for _, k := range Hooks {
		for i, it := range res.Lists[k.Path()] {
			b, err := json.Marshal(it.Value)
			if err != nil {
				return nil, fmt.Errorf("read %s[%d] at %s: %w", k.Path(), i, where(it.Origin), err)
			}
			var g hooks.Group
			if err := json.Unmarshal(b, &g); err != nil {
				return nil, fmt.Errorf("read %s[%d] at %s: %w", k.Path(), i, where(it.Origin), err)
			}
			hs, err := hooks.Parse(k.Event(), i, g, it.Origin)
			if err != nil {
				return nil, err
			}
			out = append(out, hs...)
		}
	}
	return out, nil
}

// DroppedHookNotes are the lines that name each hook group the
// requirements' allow_managed_hooks_only dropped, for stderr.
func DroppedHookNotes(res *layers.Resolved) []string {
	var out []string
	for _, d := range res.Locks.DroppedHooks {
		out = append(out, "hook not run: the requirements allow only managed hooks (allow_managed_hooks_only): "+d.String())
	}
	return out
}

// withHooks sets the session's hooks (Session.Hooks, Turn.Hooks) from the
// resolved configuration and tells the dropped ones.
func (s *Session) withHooks(h Host, res *layers.Resolved, r *hooks.Runner) error {
	for _, n := range DroppedHookNotes(res) {
		s.warn(h, n)
	}
	hs, err := HooksOf(res)
	if err != nil || len(hs) == 0 {
		return err
	}
	r.Hooks = hs
	s.Hooks = r
	s.Turn.Hooks = r.Fire
	return nil
}

// toolHooksOnly is a sub-agent's hooks: its tool calls run the session's
// PreToolUse and PostToolUse hooks; its start, prompt and stop are the
// session's, not a new session's.
func toolHooksOnly(f func(context.Context, hooks.Input) hooks.Result) func(context.Context, hooks.Input) hooks.Result {
	if f == nil {
		return nil
	}
	return func(ctx context.Context, in hooks.Input) hooks.Result {
		if in.Event != hooks.PreToolUse && in.Event != hooks.PostToolUse {
			return hooks.Result{}
		}
		return f(ctx, in)
	}
}
