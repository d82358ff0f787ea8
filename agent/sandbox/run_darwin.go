//go:build darwin

package sandbox

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// Cmd is a command prepared by Command.
type Cmd struct {
	*exec.Cmd
	// Warnings are the weaker-than-full protections that apply.
	Warnings []string
}

// Release frees what the sandbox set up for the command (nothing on macOS).
func (c *Cmd) Release() {}

// HelperPath is unused on macOS (no helper re-exec).
var HelperPath string

// ExecHelperPath is unused on macOS.
var ExecHelperPath string

// Helpers: no helper runs inside the macOS sandbox.
func Helpers() (execHelper, goHelper string, err error) { return "", "", nil }

// Detect reports sandbox-exec on macOS.
func Detect() Support {
	s := Support{OS: runtime.GOOS}
	if p, err := exec.LookPath("sandbox-exec"); err == nil {
		s.SandboxExec = p
	} else {
		s.Problem = "sandbox-exec not found (it ships with macOS in /usr/bin)"
	}
	return s
}

// Command prepares argv under p with sandbox-exec and a generated profile.
func Command(ctx context.Context, p Policy, argv []string, env []string) (*Cmd, error) {
	if len(argv) == 0 {
		return nil, errors.New("sandbox: no command")
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if env == nil {
		env = []string{}
	}
	dir := p.Dir
	if dir == "" {
		dir = p.Workspace
	}
	if !p.Confined() {
		c := exec.CommandContext(ctx, argv[0], argv[1:]...)
		c.Env, c.Dir = env, dir
		return &Cmd{Cmd: c}, nil
	}
	s := Detect()
	warnings, err := s.Check(p)
	if err != nil {
		return nil, err
	}
	home, _ := os.UserHomeDir()
	temps := []string{"/private/tmp", "/private/var/tmp"}
	if t := os.Getenv("TMPDIR"); t != "" {
		temps = append(temps, realPath(t))
	}
	p.Workspace = realPath(p.Workspace)
	prof, err := SBPLProfile(p, MacEnv{Home: realPath(home), TempDirs: temps})
	if err != nil {
		return nil, err
	}
	c := exec.CommandContext(ctx, s.SandboxExec, append([]string{"-p", prof, "--"}, argv...)...)
	c.Env, c.Dir = env, filepath.Clean(dir)
	return &Cmd{Cmd: c, Warnings: warnings}, nil
}

// QuickDetect is Detect (which runs nothing on macOS either).
func QuickDetect() Support { return Detect() }
