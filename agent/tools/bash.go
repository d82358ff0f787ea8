package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/oceancode/oceancode/agent/gate"
	"github.com/oceancode/oceancode/agent/provider"
	"github.com/oceancode/oceancode/agent/sandbox"
)

// BashTool runs a shell command.
//
// The command runs as `bash -c` (/bin/sh when bash is missing) in the
// session's working directory with the composed child environment, stdin
// from /dev/null, stdout and stderr merged in order, in a process group of
// its own. When the sandbox is on it runs through sandbox.Command and a
// command that cannot be confined is refused, never run unconfined. The
// whole group is killed on timeout or cancellation, and when the command
// returns: a call leaves nothing running behind it.
type BashTool struct{}

type bashInput struct {
	Command     string `json:"command"`
	TimeoutS    *int   `json:"timeout_s,omitempty"`
	Description string `json:"description,omitempty"`
}

var bashDef = provider.ToolDef{
	Name:        "bash",
	Description: "Run a shell command (bash -c) in the working directory. Output is stdout+stderr merged, cut in the middle past the limit. No stdin; background processes are killed when it returns.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"},"timeout_s":{"type":"integer","minimum":1,"maximum":600,"description":"default 120"},"description":{"type":"string","description":"5-10 words: what it does"}},"required":["command"],"additionalProperties":false}`),
}

// Def implements Tool.
func (BashTool) Def() provider.ToolDef { return bashDef }

// Kind implements Tool: its input is a shell command.
func (BashTool) Kind() gate.Kind { return gate.KindCommand }

func parseBash(input json.RawMessage) (bashInput, error) {
	var in bashInput
	if err := decode("bash", input, &in, "command"); err != nil {
		return in, err
	}
	if strings.TrimSpace(in.Command) == "" {
		return in, errors.New("bash: command is empty")
	}
	if in.TimeoutS != nil && (*in.TimeoutS < 1 || *in.TimeoutS > int(MaxBashTimeout/time.Second)) {
		return in, fmt.Errorf("bash: timeout_s must be between 1 and %d", int(MaxBashTimeout/time.Second))
	}
	return in, nil
}

// Target implements Tool: the command, run in the session's directory.
func (BashTool) Target(input json.RawMessage) (Target, error) {
	in, err := parseBash(input)
	if err != nil {
		return Target{}, err
	}
	return Target{Tool: "bash", Input: in.Command}, nil
}

// shellPath is bash, or /bin/sh where there is none.
var shellPath = sync.OnceValue(func() string {
	if p, err := exec.LookPath("bash"); err == nil {
		return p
	}
	return "/bin/sh"
})

// Run implements Tool.
func (BashTool) Run(ctx context.Context, env *Env, input json.RawMessage) Result {
	in, err := parseBash(input)
	if err != nil {
		return errorResult(err)
	}
	timeout := env.bashTimeout()
	if in.TimeoutS != nil {
		timeout = time.Duration(*in.TimeoutS) * time.Second
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	argv := []string{shellPath(), "-c", in.Command}
	childEnv := env.ChildEnv
	if childEnv == nil {
		childEnv = []string{} // never the agent's own environment
	}
	if childEnv, err = safeProgramEnv(in.Command, childEnv, env.Sandbox.Confined()); err != nil {
		return errResult("bash: not run: %v", err)
	}
	confined := env.Sandbox.Confined()
	p := env.Sandbox
	if p.Workspace == "" {
		p.Workspace = env.Boundary.ProjectRoot
	}
	p.Dir = env.cwd()
	// Sandbox off, the command runs under the supervisor, which ends its
	// whole process tree when it returns and when the agent dies.
	run, err := sandbox.Supervised(rctx, p, argv, childEnv)
	if err != nil {
		if confined {
			return Result{IsError: true, Meta: map[string]any{"sandboxed": true},
				Content: fmt.Sprintf("bash: not run: the sandbox is on and cannot confine this command (%v). Install or enable what it names (bubblewrap: apt install bubblewrap), or ask the user to turn the sandbox off.", err)}
		}
		return errResult("bash: %v", err)
	}
	cmd := run.Cmd
	if confined {
		ownGroup(cmd)
		cmd.Cancel = func() error { return killGroup(cmd.Process.Pid) }
		cmd.WaitDelay = 2 * time.Second
	}
	cmd.Stdin = nil // /dev/null

	pr, pw, err := os.Pipe()
	if err != nil {
		run.Release()
		return errResult("bash: %v", err)
	}
	defer pr.Close()
	cmd.Stdout, cmd.Stderr = pw, pw
	out := newHeadTail(env.outputLimit())
	start := time.Now()
	err = run.Start()
	pw.Close()
	if err != nil {
		return errResult("bash: start: %v", err)
	}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		buf := make([]byte, 32<<10)
		for {
			n, err := pr.Read(buf)
			out.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	err = run.Wait()
	elapsed := time.Since(start)
	// Nothing outlives the call: background children go with the group.
	killGroup(cmd.Process.Pid)
	select {
	case <-copied:
	case <-time.After(2 * time.Second):
		// A process outside the group (it made its own session) still
		// holds the pipe; stop reading rather than wait for it.
		pr.SetReadDeadline(time.Now())
		<-copied
	}

	text, cut := out.String()
	meta := map[string]any{"duration_ms": elapsed.Milliseconds(), "sandboxed": confined}
	if in.Description != "" {
		meta["description"] = in.Description
	}
	if cut > 0 {
		meta["truncated_bytes"] = cut
	}
	if len(run.Warnings) > 0 {
		meta["warnings"] = run.Warnings
	}
	var status []string
	isErr := false
	code := 0
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		isErr = true
		code = -1
		status = append(status, "cancelled; its process group was killed")
		meta["cancelled"] = true
	case rctx.Err() != nil:
		isErr = true
		code = -1
		status = append(status, fmt.Sprintf("timed out after %s; its process group was killed", timeout))
		meta["timed_out"] = true
	case errors.As(err, &ee):
		code = ee.ExitCode()
		if sig, ok := signalOf(ee); ok {
			status = append(status, "killed by signal "+sig)
		} else {
			status = append(status, fmt.Sprintf("exit status %d", code))
		}
	case errors.Is(err, exec.ErrWaitDelay):
		// The command exited; only the output pipe lingered.
	case err != nil:
		isErr = true
		code = -1
		status = append(status, err.Error())
	}
	meta["exit_status"] = code
	if text == "" && len(status) == 0 {
		text = "(no output)"
	}
	if len(status) > 0 {
		if text != "" && !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		text += strings.Join(status, "; ")
	}
	return Result{Content: text, IsError: isErr, Meta: meta}
}
