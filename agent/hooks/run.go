package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/oceancode/oceancode/agent/sandbox"
	"github.com/oceancode/oceancode/internal/procgroup"
	"github.com/oceancode/oceancode/internal/termtext"
)

// Input is what a hook reads on stdin, in Claude Code's field names. The
// fields of other events are left out.
type Input struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	PermissionMode string `json:"permission_mode,omitempty"`
	Event          Event  `json:"hook_event_name"`
	// ToolName is OceanCode's name (bash, edit, mcp__server__tool);
	// ClaudeToolName is Claude Code's for the same tool (Bash, Edit), when
	// it has one.
	ToolName       string          `json:"tool_name,omitempty"`
	ClaudeToolName string          `json:"claude_tool_name,omitempty"`
	ToolInput      json.RawMessage `json:"tool_input,omitempty"`
	ToolUseID      string          `json:"tool_use_id,omitempty"`
	ToolResponse   *ToolResponse   `json:"tool_response,omitempty"`
	Prompt         string          `json:"prompt,omitempty"`
	StopHookActive *bool           `json:"stop_hook_active,omitempty"`
	Source         string          `json:"source,omitempty"`
	Message        string          `json:"message,omitempty"`
}

// ToolResponse is a PostToolUse hook's view of the tool's result.
type ToolResponse struct {
	Content string `json:"content"`
	IsError bool   `json:"is_error"`
}

// OutputLimit bounds what is kept of a hook's stdout and of its stderr.
const OutputLimit = 64 << 10

// Runner runs a session's hooks. The zero value runs none.
type Runner struct {
	Hooks []Hook
	// Sandbox is the policy hooks run under (as the bash tool's commands:
	// confined when the session's sandbox is on; a hook that cannot be
	// confined is not run, and says so).
	Sandbox sandbox.Policy
	// Env is the composed child environment (secret-named variables
	// stripped); the project root is added as CLAUDE_PROJECT_DIR and
	// OCEANCODE_PROJECT_DIR.
	Env []string
	// Dir is where hooks run (the session's working directory) and
	// ProjectRoot the project's root.
	Dir, ProjectRoot string
	// SessionID and TranscriptPath fill the input's fields ("" when not
	// known).
	SessionID, TranscriptPath string
	// Redact, if set, is applied to everything a hook prints before the
	// model or the user sees it (with termtext's sanitising, always).
	Redact func(string) string
	mu     sync.Mutex
}

// For returns the hooks of event that match tool ("" for events without a
// tool), in configuration order.
func (r *Runner) For(event Event, tool string) []Hook {
	if r == nil {
		return nil
	}
	var out []Hook
	for _, h := range r.Hooks {
		if h.Event == event && (tool == "" || h.Matches(tool)) {
			out = append(out, h)
		}
	}
	return out
}

// SetSession sets the session's id and transcript path for later inputs.
func (r *Runner) SetSession(id, transcript string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.SessionID, r.TranscriptPath = id, transcript
}

// proc is what one hook process did.
type proc struct {
	exit           int // -1: it did not exit by itself
	stdout, stderr string
	err            error
}

// exec runs one hook with in on stdin.
func (r *Runner) exec(ctx context.Context, h Hook, in []byte) proc {
	ctx, cancel := context.WithTimeout(ctx, h.Timeout)
	defer cancel()
	p := r.Sandbox
	if p.Workspace == "" {
		p.Workspace = r.ProjectRoot
	}
	p.Dir = r.Dir
	env := append(append([]string{}, r.Env...), "CLAUDE_PROJECT_DIR="+r.ProjectRoot, "OCEANCODE_PROJECT_DIR="+r.ProjectRoot)
	run, err := sandbox.Supervised(ctx, p, []string{shellPath(), "-c", h.Command}, env)
	if err != nil {
		if p.Confined() {
			return proc{exit: -1, err: fmt.Errorf("not run: the sandbox is on and cannot confine it: %w", err)}
		}
		return proc{exit: -1, err: fmt.Errorf("not run: %w", err)}
	}
	cmd := run.Cmd
	if p.Confined() {
		procgroup.Own(cmd)
		cmd.Cancel = func() error { return procgroup.Kill(cmd.Process.Pid) }
		cmd.WaitDelay = 2 * time.Second
	}
	var stdout, stderr capped
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(in), &stdout, &stderr
	if err := run.Start(); err != nil {
		run.Release()
		return proc{exit: -1, err: fmt.Errorf("start: %w", err)}
	}
	err = run.Wait()
	procgroup.Kill(cmd.Process.Pid) // nothing outlives the hook
	out := proc{stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		out.exit, out.err = -1, fmt.Errorf("timed out after %s; its process tree was killed", h.Timeout)
	case ctx.Err() != nil:
		out.exit, out.err = -1, fmt.Errorf("cancelled: %w", context.Cause(ctx))
	case errors.As(err, &ee):
		out.exit = ee.ExitCode()
		if out.exit < 0 {
			out.err = fmt.Errorf("killed: %v", ee)
		}
	case err != nil && !errors.Is(err, exec.ErrWaitDelay):
		out.exit, out.err = -1, err
	}
	return out
}

// clean makes a hook's text safe for the model and the terminal.
func (r *Runner) clean(s string) string {
	s = termtext.Text(strings.TrimSpace(s))
	if r.Redact != nil {
		s = r.Redact(s)
	}
	return s
}

// capped keeps the first OutputLimit bytes written to it and counts the
// rest.
type capped struct {
	mu  sync.Mutex
	b   bytes.Buffer
	cut int
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	room := OutputLimit - c.b.Len()
	if room >= len(p) {
		c.b.Write(p)
		return len(p), nil
	}
	if room > 0 {
		c.b.Write(p[:room])
	}
	c.cut += len(p) - max(room, 0)
	return len(p), nil
}

func (c *capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cut > 0 {
		return c.b.String() + fmt.Sprintf("\n[%d bytes cut]", c.cut)
	}
	return c.b.String()
}

// shellPath is bash, or /bin/sh where there is none (the bash tool's shell).
var shellPath = sync.OnceValue(func() string {
	if p, err := exec.LookPath("bash"); err == nil {
		return p
	}
	return "/bin/sh"
})
