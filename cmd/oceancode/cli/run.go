package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/engineapi"
	"github.com/oceancode/oceancode/agent/message"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/provider/remote"
	"github.com/oceancode/oceancode/agent/runner"
	"github.com/oceancode/oceancode/agent/session"
	"github.com/oceancode/oceancode/internal/exitcode"
	"github.com/oceancode/oceancode/internal/termtext"
	"github.com/oceancode/oceancode/internal/version"
	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/sessionconfig"
	"github.com/oceancode/oceancode/sessionfactory"
)

type runOptions struct {
	trustProject bool
	auto         bool
	agent        string
	mode         string
	sandbox      string
	format       string
	model        string
	session      string
	failOnDeny   bool
	maxTurns     int
	timeout      time.Duration
	onEvent      func(agent.Event) // Options.OnEvent
}

func newRunCmd(app *App, onEvent func(agent.Event)) *cobra.Command {
	o := runOptions{onEvent: onEvent}
	cmd := &cobra.Command{
		Use:   "run [flags] PROMPT",
		Short: "Run one task headless, then exit",
		Long: `Runs one task against the configured model and exits. Every tool call passes
the permission gate; without --auto anything the rules leave at "ask" is
refused and the model is told which rule would approve it. With --auto asks
are approved, but the dangerous floor and deny rules still win.

Output: text (the answer on stdout, tool calls and decisions on stderr), json
(one object at the end) or stream-json (one event per line).

Exit status: 0 done, 1 error, 3 invalid configuration, 4 requirements
refused (before any model call), 5 a tool call was denied and --fail-on-deny
was given, 130 interrupted.`,
		Example: `  oceancode run "fix the failing test in ./pkg/x"
  oceancode run --model anthropic/claude-sonnet-4-5 "explain this repository"   # reads ANTHROPIC_API_KEY
  oceancode run --auto --format stream-json --model local/qwen3-coder "update the changelog"   # needs a "provider": {"local": …} entry (docs/runtime.md)`,
		Args: args(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			if cmd.Flags().Changed("max-turns") && o.maxTurns < 1 {
				return exitcode.With(exitcode.Usage, fmt.Errorf("--max-turns %d: want 1 or more (a run makes at least one model call)", o.maxTurns))
			}
			return runRun(cmd.Context(), app, o, strings.Join(a, " "))
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.auto, "auto", false, "approve what the rules leave at ask (the floor and deny rules still win)")
	f.StringVar(&o.agent, "agent", "", "build, plan, explore or a custom agent (default: build; with --session, the session's)")
	f.StringVar(&o.mode, "permission-mode", "", "default|acceptEdits|plan|dontAsk|bypassPermissions")
	f.StringVar(&o.sandbox, "sandbox", "", "read-only|workspace-write|danger-full-access")
	f.StringVar(&o.format, "format", "text", "text|json|stream-json")
	f.StringVar(&o.model, "model", "", "PROVIDER/MODEL (default: the config's model; with --session, the session's)")
	f.StringVar(&o.session, "session", "", "continue this session")
	f.BoolVar(&o.failOnDeny, "fail-on-deny", false, "exit 5 when the policy denied a tool call")
	f.IntVar(&o.maxTurns, "max-turns", 0, "stop after this many model calls (default: the config's limits.max_turns, else 50)")
	f.BoolVar(&o.trustProject, "trust-project", false, "trust this workspace's project config for this run (refused when the requirements' project_config forbids it; docs/trust.md)")
	f.DurationVar(&o.timeout, "timeout", 0, "stop after this long (default: the config's limits.timeout_s, else none)")
	return cmd
}

func runRun(ctx context.Context, app *App, o runOptions, prompt string) error {
	switch o.format {
	case "text", "json", "stream-json":
	default:
		return exitcode.With(exitcode.Usage, fmt.Errorf("--format %q: want text, json or stream-json", o.format))
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if o.mode != "" {
		if _, err := permission.ParseMode(o.mode); err != nil {
			return exitcode.With(exitcode.Usage, fmt.Errorf("--permission-mode: %w", err))
		}
	}
	// The model client starts first: its start-up (the vendors' SDKs) runs
	// while the configuration loads, so the first request does not wait.
	client := remote.Start()
	clients := sessionfactory.NewPool(client)
	defer clients.Close()
	fc, err := factoryConfig(app, layers.TrustOptions{Project: o.trustProject})
	if err != nil {
		return err
	}
	fc.Clients = clients
	// A resumed session's record and history are needed before the first
	// request, so its store opens now; a new session's record is created
	// while that request runs.
	req := sessionfactory.Request{Request: o.request(), Resume: o.session}
	if o.session != "" {
		store := openStoreAsync(ctx, app)
		defer store.discardUnused()
		fc.OpenStore = store.take
	} else {
		fc.OpenStore = func(ctx context.Context) (*session.Store, error) { return openStore(ctx, app) }
		req.CreateAfter = client.Sent()
	}
	f := sessionfactory.New(fc)
	defer f.Close()
	out := newRenderer(app, o.format)
	req.OnEvent = func(e runner.Event) {
		out.event(e.Event)
		if o.onEvent != nil {
			o.onEvent(e.Event)
		}
	}
	sess, err := f.Open(ctx, req)
	if err != nil {
		return runExit(o, err)
	}
	// A panic leaves a crash report (no secrets) before the process dies of
	// it; the session stays marked running, so doctor lists it as orphaned.
	defer session.Recover(crashDir(app), version.String(), sess.CurrentID)

	result, runErr := sess.Run(ctx, prompt)
	_ = sess.Close() // a write that failed loses a record of the run, not the run
	if err := sess.Err(); err != nil {
		// The session could not be recorded: the run was stopped for it.
		return err
	}
	out.finish(result, sess.ID(), runErr)
	switch {
	case runErr != nil && ctx.Err() != nil:
		return &exitcode.Err{Code: exitcode.Interrupted, Err: runErr, Silent: true}
	case errors.Is(runErr, agent.ErrAdvisorBreaker):
		return &exitcode.Err{Code: classify(runErr), Err: runErr, Silent: o.format != "text"}
	case runErr != nil:
		// The run already reported its error as an event (and in the json
		// object); only the turn limit has no error event of its own.
		silent := !(errors.Is(runErr, agent.ErrMaxTurns) && o.format == "text")
		return &exitcode.Err{Code: exitcode.Error, Err: runErr, Silent: silent}
	case o.failOnDeny && result.Denied > 0:
		return &exitcode.Err{Code: exitcode.Denied, Err: fmt.Errorf("run: the policy denied %d tool call(s) (--fail-on-deny)", result.Denied), Silent: o.format != "text"}
	}
	return nil
}

// runFlags are run's session-layer settings from its flags (doctor --policy
// drives the same function for its flag paths).
func runFlags(o runOptions) []layers.Setting { return o.request().Settings() }

// runExits is run's one map from the session factory's errors to exit
// statuses (docs/cli.md); say, if set, rewords the error for --session.
var runExits = []struct {
	kind error
	code int
	say  func(o runOptions, err error) error
}{
	{sessionfactory.ErrRefused, exitcode.Refused, nil},
	{sessionfactory.ErrNotFound, exitcode.Usage, func(o runOptions, _ error) error {
		return fmt.Errorf("--session %s: no such session ('oceancode session list' shows them)", o.session)
	}},
	{sessionfactory.ErrLocked, exitcode.Error, func(o runOptions, err error) error {
		return fmt.Errorf("--session %s: %w: wait for it to end, or see 'oceancode doctor'", o.session, err)
	}},
	{sessionfactory.ErrBadRequest, exitcode.Usage, nil},
	{sessionfactory.ErrInvalid, exitcode.Invalid, nil},
}

// runExit gives an error of the session factory its exit status.
func runExit(o runOptions, err error) error {
	for _, e := range runExits {
		if errors.Is(err, e.kind) {
			if e.say != nil {
				err = e.say(o, err)
			}
			return exitcode.With(e.code, err)
		}
	}
	return err
}

// request is the session run asks for, from its flags.
func (o runOptions) request() sessionconfig.Request {
	return sessionconfig.Request{Agent: o.agent, Model: o.model, PermissionMode: o.mode, Sandbox: o.sandbox,
		Auto: o.auto, MaxTurns: o.maxTurns, Timeout: o.timeout}
}

// renderer writes a run's events in the chosen format.
type renderer struct {
	app    *App
	format string
	mu     sync.Mutex
	enc    *json.Encoder
	text   strings.Builder
	events int
	// last is the last byte of the answer written so far, and turnEnded
	// says a model call has ended since: the next turn's text starts on a
	// line of its own instead of being glued to the previous turn's.
	last      byte
	turnEnded bool
}

// answer is the model's text as the text and json formats show it: each
// turn's text on a new line after the previous turn's.
func (r *renderer) answer(e agent.Event) string {
	s := e.Text
	if r.turnEnded && r.last != 0 && r.last != '\n' && s != "" {
		s = "\n" + s
	}
	if s != "" {
		r.turnEnded = false
		r.last = s[len(s)-1]
	}
	return s
}

func newRenderer(app *App, format string) *renderer {
	r := &renderer{app: app, format: format}
	r.enc = json.NewEncoder(app.Stdout)
	r.enc.SetEscapeHTML(false)
	return r
}

func (r *renderer) event(e agent.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events++
	switch r.format {
	case "stream-json":
		_ = r.enc.Encode(e)
	case "json":
		if e.Type == agent.EventText {
			r.text.WriteString(r.answer(e))
		}
	default:
		r.textEvent(e)
	}
	if e.Type == agent.EventUsage {
		r.turnEnded = true // one model call has ended
	}
}

// textEvent writes an event in the text format. Everything it writes —
// the model's answer, tool calls and results, reasons, MCP and error texts
// — passes internal/termtext, as the pager's text does: no escape sequence
// or control character of the model, a tool or an MCP server reaches the
// terminal (the json formats encode them instead).
func (r *renderer) textEvent(e agent.Event) {
	w, errw := r.app.Stdout, r.app.Stderr
	// Every argument is made safe where it is passed (termtext.Line); the
	// formats are this file's own.
	line := func(format string, a ...any) { fmt.Fprintf(errw, format, a...) }
	switch e.Type {
	case agent.EventText:
		e.Text = termtext.Text(e.Text)
		io.WriteString(w, r.answer(e))
	case agent.EventToolCall:
		line("\n→ %s %s\n", termtext.Line(e.ToolCall.Name), termtext.Line(compact(e.ToolCall.Input)))
	case agent.EventHook:
		if s := engineapi.HookLine(e); s != "" {
			line("  %s\n", termtext.Line(s))
		}
	case agent.EventPermission:
		d := e.Decision
		s := fmt.Sprintf("  %s by %s", d.Action, d.Rule)
		if d.Source != "" && !d.Floor {
			s += " (" + d.Layer + " " + d.Source
			if d.Line > 0 {
				s += fmt.Sprintf(":%d", d.Line)
			}
			s += ")"
		}
		if d.Answer != "" {
			s += " → " + d.Answer
		}
		if d.Action != "allow" && d.Reason != "" {
			s += ": " + d.Reason
		}
		line("%s\n", termtext.Line(s))
	case agent.EventToolResult:
		mark := "✓"
		if e.Result.IsError {
			mark = "✗"
		}
		line("  %s %s\n", mark, termtext.Line(firstLine(e.Result.Content)))
	case agent.EventModeChange:
		// already on stderr when it came from the configuration
	case agent.EventAdvice:
		line("%s\n", termtext.Line(adviceLine(e)))
	case agent.EventRetry:
		line("  (retrying: %s)\n", termtext.Line(e.Text))
	case agent.EventCompaction:
		if c := e.Compaction; c != nil {
			line("  (compacted, %s: %d tool outputs pruned, %d messages summarised, ~%d → ~%d tokens)\n",
				termtext.Line(c.Reason), c.Pruned, c.Summarised, c.TokensBefore, c.TokensAfter)
		}
	case agent.EventMCP, agent.EventError:
		line("oceancode: %s\n", termtext.Line(e.Text))
	case agent.EventCommand:
		for _, l := range commandLines(e.Command) {
			line("%s\n", termtext.Line(l))
		}
	case agent.EventInstructions:
		line("  instructions: %s\n", termtext.Line(e.Text))
	}
}

// runJSON is the --format json object (docs/runtime.md), version 1.
type runJSON struct {
	Version    int           `json:"version"`
	Session    string        `json:"session,omitempty"`
	Result     string        `json:"result"`
	StopReason string        `json:"stop_reason"`
	Turns      int           `json:"turns"`
	Denied     int           `json:"denied"`
	Usage      message.Usage `json:"usage"`
	Error      string        `json:"error,omitempty"`
}

func (r *renderer) finish(res agent.Result, session string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch r.format {
	case "json":
		j := runJSON{Version: 1, Session: session, Result: r.text.String(), StopReason: res.StopReason, Turns: res.Turns, Denied: res.Denied, Usage: res.Usage}
		if err != nil {
			j.Error = err.Error()
		}
		_ = writeJSON(r.app, j)
	case "text":
		if r.last != '\n' {
			fmt.Fprintln(r.app.Stdout) // the answer ends with a newline
		}
		if session != "" {
			fmt.Fprintf(r.app.Stderr, "session %s (continue with --session %s)\n", session, session)
		}
	}
}

func compact(b json.RawMessage) string {
	s := string(b)
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}
