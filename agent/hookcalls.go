package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/oceancode/oceancode/agent/engineapi"
	"github.com/oceancode/oceancode/agent/gate"
	"github.com/oceancode/oceancode/agent/hooks"
	"github.com/oceancode/oceancode/agent/message"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/provenance"
)

// The turn loop's calls into the session's hooks (Config.Hooks,
// docs/hooks.md). A hook tightens: its deny or exit 2 refuses a call, its
// ask turns an allow into an ask; its allow skips an ask only where the
// ask's rule is no higher than the hook's own layer, never the dangerous
// floor's, a deny rule's, the requirements' or the default-deny shell
// posture's.

// StopHookBlocked is the stop reason of a run a hook ended: a blocked
// prompt, or a hook's "continue": false.
const StopHookBlocked = string(engineapi.StopHookBlocked)

// maxStopBlocks bounds how often Stop hooks may send the model back to
// work in one run (Claude Code's stop_hook_active guards a hook against
// looping; this bounds one that does not look).
const maxStopBlocks = 3

// fireHooks runs the hooks of one event and reports each as an event.
func (r *run) fireHooks(ctx context.Context, in hooks.Input, call *message.ToolCall) hooks.Result {
	if r.c.Hooks == nil {
		return hooks.Result{}
	}
	if in.PermissionMode == "" {
		in.PermissionMode = string(r.c.Gate.Engine().Mode())
	}
	res := r.c.Hooks(ctx, in)
	for _, run := range res.Runs {
		d := hookDecision(run.Hook, run.Decision, run.Reason)
		if run.Suppress && run.Decision != hooks.Deny && run.Decision != hooks.Block {
			d.Reason = ""
		}
		e := Event{Type: EventHook, Key: string(in.Event), ToolCall: call, Decision: d, Text: run.Err}
		r.emit(e)
	}
	for _, n := range res.Notes {
		r.emit(Event{Type: EventHook, Key: string(in.Event), Text: n})
	}
	if res.Stop && r.hookStop == "" {
		r.hookStop = res.StopReason
	}
	return res
}

// hookDecision is a hook's decision as events carry it.
func hookDecision(h hooks.Hook, action, reason string) *Decision {
	if action == "" {
		action = "none"
	}
	return &Decision{Action: action, Rule: "hook " + h.Name(), Layer: h.Origin.Layer.String(),
		Source: h.Origin.Source, Line: h.Origin.Line, Reason: reason}
}

// startHooks runs SessionStart (on a session's first run) and
// UserPromptSubmit (pm: the prompt's message, nil without one), adding
// their context to pm. It returns why the run must not go on ("": it may).
func (r *run) startHooks(ctx context.Context, pm *message.Message, resumed bool) string {
	var extra []string
	if !r.c.QuietStart {
		src := "startup"
		if resumed {
			src = "resume"
		}
		extra = append(extra, r.fireHooks(ctx, hooks.Input{Event: hooks.SessionStart, Source: src}, nil).Context...)
	}
	if r.hookStop != "" {
		return r.hookStop
	}
	if pm != nil {
		hr := r.fireHooks(ctx, hooks.Input{Event: hooks.UserPromptSubmit, Prompt: pm.Parts[0].Text}, nil)
		if hr.Decision == hooks.Block {
			return "the prompt was blocked by hook " + hr.By.Name() + ": " + hr.Reason
		}
		if r.hookStop != "" {
			return r.hookStop
		}
		extra = append(extra, hr.Context...)
	}
	if pm != nil {
		for _, c := range extra {
			pm.Parts = append(pm.Parts, message.Part{Type: message.Text, Text: "<hook-context>\n" + c + "\n</hook-context>"})
		}
	}
	return ""
}

// preToolUse runs the PreToolUse hooks of call. A deny is returned as the
// reason the model reads, after its permission event.
func (r *run) preToolUse(ctx context.Context, call message.ToolCall, res *Result) (hooks.Result, string) {
	if r.c.Hooks == nil {
		return hooks.Result{}, "" // a session without hooks pays nothing per call
	}
	if r.hookStop != "" { // an earlier call's hook stopped the run
		return hooks.Result{}, "not run: " + r.hookStop
	}
	hr := r.fireHooks(ctx, hooks.Input{Event: hooks.PreToolUse, ToolName: call.Name, ToolInput: r.hookToolInput(call), ToolUseID: call.ID}, &call)
	if r.hookStop != "" {
		return hr, "not run: " + r.hookStop
	}
	if hr.Decision != hooks.Deny {
		return hr, ""
	}
	c := call
	r.emit(Event{Type: EventPermission, ToolCall: &c, Decision: hookDecision(*hr.By, "deny", hr.Reason)})
	res.Denied++
	return hr, "denied by hook " + hr.By.Name() + ": " + hr.Reason
}

// hookGate applies a PreToolUse hook's ask or allow to the gate's result
// for one target of the call.
func hookGate(hr hooks.Result, gr gate.Result) gate.Result {
	if hr.By == nil {
		return gr
	}
	h := *hr.By
	d := gr.Decision
	decided := func(a permission.Action) gate.Result {
		gr.Decision.Action = a
		// Not a "*" pattern: a hook's ask is never a residual ask the Jev
		// advisor may settle; the hook asked for a person.
		gr.Decision.Rule = &permission.Rule{Key: permission.Key(gr.Call.Tool), Pattern: "hook " + h.Name(), Action: a, Origin: h.Origin, Source: "hook"}
		gr.Decision.Origin, gr.Decision.Reason, gr.Decision.Approved = h.Origin, hr.Reason, false
		gr.Guard = "hook " + h.Name()
		return gr
	}
	switch {
	case hr.Decision == hooks.Ask && d.Action == permission.Allow:
		return decided(permission.Ask)
	case hr.Decision == hooks.Allow && d.Action == permission.Ask && hookMayAllow(h.Origin, d):
		return decided(permission.Allow)
	}
	return gr
}

// hookMayAllow reports whether a hook from origin o may skip ask d: never
// the floor's, the requirements' or the shell posture's, nor a rule of a
// layer above the hook's own.
func hookMayAllow(o provenance.Origin, d permission.Decision) bool {
	if d.Floor || d.Posture() || d.Rule == nil || strings.HasPrefix(d.Rule.Source, "requirements") || d.Origin.Layer == provenance.Requirements {
		return false
	}
	return d.Origin.Layer <= o.Layer
}

// postToolUse runs the PostToolUse hooks of a call that ran; a block's
// reason and the hooks' context go back to the model with the result.
func (r *run) postToolUse(ctx context.Context, call message.ToolCall, out *message.ToolResult) {
	if r.c.Hooks == nil {
		return
	}
	resp := &hooks.ToolResponse{Content: out.Content, IsError: out.IsError}
	hr := r.fireHooks(ctx, hooks.Input{Event: hooks.PostToolUse, ToolName: call.Name, ToolInput: r.hookToolInput(call), ToolUseID: call.ID, ToolResponse: resp}, &call)
	var add []string
	if hr.Decision == hooks.Block {
		add = append(add, fmt.Sprintf("PostToolUse hook %s: %s", hr.By.Name(), hr.Reason))
	}
	for _, c := range hr.Context {
		add = append(add, "<hook-context>\n"+c+"\n</hook-context>")
	}
	if len(add) > 0 {
		out.Content += "\n\n" + strings.Join(add, "\n")
	}
}

// stopHooks runs the Stop hooks when the model stops. It returns the text
// that sends the model back to work ("": the run ends).
func (r *run) stopHooks(ctx context.Context) string {
	if r.c.Hooks == nil {
		return ""
	}
	if r.stopBlocks >= maxStopBlocks {
		r.emit(Event{Type: EventHook, Key: string(hooks.Stop), Text: fmt.Sprintf("Stop hooks not run again: they sent the model back to work %d times this run", maxStopBlocks)})
		return ""
	}
	active := r.stopBlocks > 0
	hr := r.fireHooks(ctx, hooks.Input{Event: hooks.Stop, StopHookActive: &active}, nil)
	if hr.Decision != hooks.Block || r.hookStop != "" {
		return ""
	}
	r.stopBlocks++
	return fmt.Sprintf("A Stop hook (%s) did not let you stop yet: %s", hr.By.Name(), hr.Reason)
}

// notify runs the Notification hooks when an ask is put to the user.
func (r *run) notify(ctx context.Context, call message.ToolCall) {
	if r.c.Hooks == nil {
		return
	}
	r.fireHooks(ctx, hooks.Input{Event: hooks.Notification, Message: "OceanCode needs your permission to use " + call.Name}, &call)
}

// hookToolInput is the call's input as a hook reads it: a relative "path"
// gains Claude Code's "file_path", absolute.
func (r *run) hookToolInput(call message.ToolCall) []byte {
	cwd := r.c.ProjectRoot
	if r.c.Env != nil {
		cwd = r.c.Env.Cwd
	}
	return hooks.ClaudeInput(call.Input, cwd)
}

// hookEnded ends the run because of a hook: why is an error event's text.
func (r *run) hookEnded(res *Result, why string) (Result, error) {
	r.emit(Event{Type: EventError, Text: why})
	res.StopReason = StopHookBlocked
	r.emit(Event{Type: EventDone, StopReason: res.StopReason, Usage: &res.Usage})
	return *res, nil
}
