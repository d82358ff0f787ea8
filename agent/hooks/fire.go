package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"
)

// Decisions a hook can make.
const (
	Allow = "allow" // PreToolUse: the call needs no ask (rules that deny or ask still do)
	Ask   = "ask"   // PreToolUse: ask the user even where the rules allow
	Deny  = "deny"  // PreToolUse: refuse the call
	Block = "block" // PostToolUse, UserPromptSubmit, Stop: Claude Code's decision "block"
)

// Result is what the hooks of one event decided together.
type Result struct {
	// Decision is the strongest decision (deny or block > ask > allow; ""
	// none) and By the hook that made it.
	Decision string
	By       *Hook
	// Reason is the deciding hook's reason: for deny and block what the
	// model reads (for a blocked prompt, what the user reads), for ask
	// what the ask shows.
	Reason string
	// Context is additional context for the model (additionalContext, and
	// the plain stdout of UserPromptSubmit and SessionStart hooks).
	Context []string
	// Stop is a hook's "continue": false: the session stops its turn with
	// StopReason.
	Stop       bool
	StopReason string
	// Notes are lines for the user: a hook's systemMessage, a hook that
	// failed (any exit but 0 and 2, a timeout), a hook's stderr where only
	// the user sees it.
	Notes []string
	// Runs records each hook that ran, in order.
	Runs []Run
}

// Run is one hook's run and what it decided.
type Run struct {
	Hook     Hook
	Exit     int // -1: it did not exit by itself (a timeout, not started)
	Decision string
	Reason   string
	Err      string
	Duration time.Duration
	// Suppress is the hook's suppressOutput: its reason is left out of the
	// hook event (the model still reads a deny's or block's reason).
	Suppress bool
}

// rank orders decisions: a stronger one wins.
func rank(d string) int {
	switch d {
	case Deny, Block:
		return 3
	case Ask:
		return 2
	case Allow:
		return 1
	}
	return 0
}

// Fire runs the hooks of in.Event that match in.ToolName, one at a time in
// configuration order, and folds their answers. A deny or block ends the
// event: the hooks after it do not run.
func (r *Runner) Fire(ctx context.Context, in Input) Result {
	var res Result
	hs := r.For(in.Event, in.ToolName)
	if len(hs) == 0 {
		return res
	}
	r.mu.Lock()
	in.SessionID, in.TranscriptPath = r.SessionID, r.TranscriptPath
	r.mu.Unlock()
	if in.Cwd == "" {
		in.Cwd = r.Dir
	}
	if n := ClaudeNames(in.ToolName); len(n) > 0 {
		in.ClaudeToolName = n[0]
	}
	body, err := json.Marshal(in)
	if err != nil {
		res.Notes = append(res.Notes, fmt.Sprintf("hooks %s: encode input: %v", in.Event, err))
		return res
	}
	for _, h := range hs {
		start := time.Now()
		p := r.exec(ctx, h, body)
		run := r.interpret(h, p, &res)
		run.Duration = time.Since(start)
		res.Runs = append(res.Runs, run)
		if rank(run.Decision) > rank(res.Decision) {
			hc := h
			res.Decision, res.By, res.Reason = run.Decision, &hc, run.Reason
		}
		if rank(res.Decision) == 3 || res.Stop || ctx.Err() != nil {
			break
		}
	}
	return res
}

// output is a hook's JSON answer (Claude Code's fields).
type output struct {
	Continue       *bool  `json:"continue"`
	StopReason     string `json:"stopReason"`
	SuppressOutput bool   `json:"suppressOutput"`
	SystemMessage  string `json:"systemMessage"`
	Decision       string `json:"decision"`
	Reason         string `json:"reason"`
	Specific       *struct {
		PermissionDecision       string `json:"permissionDecision"`
		PermissionDecisionReason string `json:"permissionDecisionReason"`
		AdditionalContext        string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// interpret turns one hook's exit and output into its decision, adding its
// context and notes to res.
func (r *Runner) interpret(h Hook, p proc, res *Result) Run {
	run := Run{Hook: h, Exit: p.exit}
	where := fmt.Sprintf("hook %s (%s)", h.Name(), h.Location())
	switch {
	case p.err != nil:
		run.Err = p.err.Error()
		res.Notes = append(res.Notes, fmt.Sprintf("%s: %s", where, r.clean(run.Err)))
		return run
	case p.exit == 2:
		reason := r.clean(p.stderr)
		if reason == "" {
			reason = "blocked by " + where + " (exit 2, no message)"
		}
		switch h.Event {
		case PreToolUse:
			run.Decision = Deny
		case PostToolUse, UserPromptSubmit, Stop:
			run.Decision = Block
		default: // SessionStart, Notification: the user reads it
			res.Notes = append(res.Notes, where+": "+reason)
			return run
		}
		run.Reason = reason
		return run
	case p.exit != 0:
		run.Err = fmt.Sprintf("exit status %d", p.exit)
		msg := where + ": " + run.Err
		if s := r.clean(p.stderr); s != "" {
			msg += ": " + firstLine(s)
		}
		res.Notes = append(res.Notes, msg)
		return run
	}
	trimmed := bytes.TrimSpace([]byte(p.stdout))
	if len(trimmed) == 0 || trimmed[0] != '{' {
		if s := r.clean(p.stdout); s != "" && (h.Event == UserPromptSubmit || h.Event == SessionStart) {
			res.Context = append(res.Context, s)
		}
		return run
	}
	var o output
	if err := json.Unmarshal(trimmed, &o); err != nil {
		run.Err = "its JSON output does not parse: " + err.Error()
		res.Notes = append(res.Notes, where+": "+run.Err)
		return run
	}
	r.apply(h, o, &run, res)
	return run
}

// apply takes a hook's JSON answer.
func (r *Runner) apply(h Hook, o output, run *Run, res *Result) {
	run.Suppress = o.SuppressOutput
	if o.SystemMessage != "" {
		res.Notes = append(res.Notes, fmt.Sprintf("hook %s: %s", h.Name(), r.clean(o.SystemMessage)))
	}
	if o.Continue != nil && !*o.Continue {
		res.Stop = true
		res.StopReason = r.clean(o.StopReason)
		if res.StopReason == "" {
			res.StopReason = "stopped by hook " + h.Name()
		}
	}
	if s := o.Specific; s != nil {
		if s.AdditionalContext != "" {
			res.Context = append(res.Context, r.clean(s.AdditionalContext))
		}
		if h.Event == PreToolUse {
			switch s.PermissionDecision {
			case Allow, Ask, Deny:
				run.Decision, run.Reason = s.PermissionDecision, r.clean(s.PermissionDecisionReason)
				return
			}
		}
	}
	switch o.Decision {
	case Block:
		run.Reason = r.clean(o.Reason)
		if h.Event == PreToolUse {
			run.Decision = Deny // Claude Code's older PreToolUse "block"
			return
		}
		if h.Event == PostToolUse || h.Event == UserPromptSubmit || h.Event == Stop {
			run.Decision = Block
		}
	case "approve":
		if h.Event == PreToolUse {
			run.Decision, run.Reason = Allow, r.clean(o.Reason)
		}
	}
}

func firstLine(s string) string {
	if i := bytes.IndexByte([]byte(s), '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// ClaudeInput is a tool call's input as a hook reads it: an input object
// with a "path" and no "file_path" gains Claude Code's "file_path", the
// path made absolute against cwd, so a hook written for Claude Code's file
// tools reads the file it means.
func ClaudeInput(input json.RawMessage, cwd string) json.RawMessage {
	var m map[string]any
	if json.Unmarshal(input, &m) != nil {
		return input
	}
	p, ok := m["path"].(string)
	if _, has := m["file_path"]; !ok || has || p == "" {
		return input
	}
	if !filepath.IsAbs(p) && cwd != "" {
		p = filepath.Join(cwd, p)
	}
	m["file_path"] = p
	b, err := json.Marshal(m)
	if err != nil {
		return input
	}
	return b
}
