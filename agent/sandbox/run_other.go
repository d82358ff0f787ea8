//go:build !darwin && !(linux && (amd64 || arm64))

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"runtime"
)

// Cmd is a command prepared by Command.
type Cmd struct {
	*exec.Cmd
	// Warnings are the weaker-than-full protections that apply.
	Warnings []string
}

// Release frees what the sandbox set up for the command (nothing here).
func (c *Cmd) Release() {}

// HelperPath is unused on this platform.
var HelperPath string

// ExecHelperPath is unused on this platform.
var ExecHelperPath string

// Helpers: no helper runs inside a sandbox on this platform.
func Helpers() (execHelper, goHelper string, err error) { return "", "", nil }

// Detect reports that no sandbox is available on this platform.
func Detect() Support {
	return Support{OS: runtime.GOOS, Problem: "no kernel sandbox on " + runtime.GOOS + "/" + runtime.GOARCH}
}

// Command runs unconfined policies and refuses confined ones.
func Command(ctx context.Context, p Policy, argv []string, env []string) (*Cmd, error) {
	if len(argv) == 0 {
		return nil, errors.New("sandbox: no command")
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if p.Confined() {
		return nil, fmt.Errorf("sandbox: %w: %s", ErrUnavailable, Detect().Problem)
	}
	c := exec.CommandContext(ctx, argv[0], argv[1:]...)
	c.Env = env
	c.Dir = p.Dir
	if c.Dir == "" {
		c.Dir = p.Workspace
	}
	return &Cmd{Cmd: c}, nil
}

// QuickDetect is Detect.
func QuickDetect() Support { return Detect() }
