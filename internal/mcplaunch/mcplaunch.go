// Package mcplaunch says what an MCP server's command line runs, so that
// trust and the requirements' allow-list can pin it: the executable itself,
// a script an interpreter runs (python3 srv.py: the file srv.py), code in
// the arguments (python3 -c CODE: only the argument vector can pin it), or a
// package a launcher fetches (npx pkg@1.2.3: only an exact version pins it).
// A command line whose code cannot be pinned (a version range, a module
// name, code from stdin, a wrapper such as env) is an error saying how to
// pin it.
//
// It is pure (no file access): the agent hashes the script it names, the
// administrators' validate checks an allow-list entry's arguments with it.
// Both sides use the same tables, so an entry oceanadmin accepts is one the
// agent can match.
package mcplaunch

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"
	"sync"
)

// Kind is what runs when the command starts.
type Kind int

const (
	// Program: the executable itself (its own digest pins it).
	Program Kind = iota
	// Script: an interpreter runs a file (Launch.Script).
	Script
	// Inline: an interpreter runs code given in the arguments (-c, -e):
	// the whole argument vector is its identity.
	Inline
	// Package: a launcher fetches and runs packages at exact versions
	// (Launch.Packages).
	Package
)

func (k Kind) String() string {
	return [...]string{"program", "script", "inline code", "package"}[k]
}

// Launch is what a command line runs.
type Launch struct {
	Kind Kind
	// Runner is the interpreter or launcher (its command's base name, e.g.
	// "python3", "npx"); "" for Program.
	Runner string
	// Script is the file an interpreter runs, as written in the arguments
	// (relative to the server's working directory unless absolute).
	Script string
	// Packages are the pinned package specs a launcher runs (also those uv
	// run adds with --with), as written.
	Packages []string
}

// ErrUnpinned marks a command line whose code cannot be pinned.
var ErrUnpinned = errors.New("what it runs cannot be pinned")

// unpinned is an ErrUnpinned with what to do.
func unpinned(runner, format string, a ...any) error {
	return fmt.Errorf("%w: %s %s", ErrUnpinned, runner, fmt.Sprintf(format, a...))
}

// Base is the runner name of a command: its base name, lower-cased on
// Windows-style names, without .exe/.cmd/.bat.
func Base(command string) string {
	b := path.Base(strings.ReplaceAll(command, `\`, "/"))
	lb := strings.ToLower(b)
	for _, ext := range []string{".exe", ".cmd", ".bat"} {
		if strings.HasSuffix(lb, ext) {
			return lb[:len(lb)-len(ext)]
		}
	}
	return b
}

// AbsolutePath reports whether p is absolute on Unix or Windows (C:\, \\host):
// a relative script names a file of whichever directory the server runs in.
func AbsolutePath(p string) bool {
	return strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\\`) ||
		len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/')
}

// IsRunner reports whether command is an interpreter, a launcher or a
// wrapper: a program whose arguments decide what runs.
func IsRunner(command string) bool {
	_, ok := runnerOf(Base(command))
	return ok
}

// Analyze says what command with args runs. A command that is no known
// interpreter or launcher is a Program. The error wraps ErrUnpinned and says
// how to pin.
func Analyze(command string, args []string) (Launch, error) {
	name := Base(command)
	r, ok := runnerOf(name)
	if !ok {
		return Launch{Kind: Program}, nil
	}
	l, err := r(name, args)
	l.Runner = name
	return l, err
}

type runner func(name string, args []string) (Launch, error)

var versioned = lazyRegexp(`^(python|pythonw|pypy|ruby|perl|php|lua|node|nodejs)(\d+(\.\d+)*)?$`)

// runnerOf returns the analysis of a runner name.
func runnerOf(name string) (runner, bool) {
	if m := versioned().FindStringSubmatch(name); m != nil {
		switch m[1] {
		case "python", "pythonw", "pypy":
			return interp(python), true
		case "ruby":
			return interp(ruby), true
		case "perl":
			return interp(perl), true
		case "php":
			return interp(php), true
		case "lua":
			return interp(lua), true
		case "node", "nodejs":
			return interp(node), true
		}
	}
	switch name {
	case "luajit":
		return interp(lua), true
	case "tsx", "ts-node":
		return interp(node), true
	case "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish", "yash":
		return interp(shell), true
	case "java":
		return javaJar, true
	case "bun":
		return bun, true
	case "deno":
		return deno, true
	case "npx":
		return npmExec, true
	case "npm":
		return sub(map[string]runner{"exec": npmExec, "x": npmExec}), true
	case "bunx":
		return bunx, true
	case "pnpm":
		return sub(map[string]runner{"dlx": pnpmDlx}), true
	case "yarn":
		return sub(map[string]runner{"dlx": yarnDlx}), true
	case "uvx":
		return uvx, true
	case "uv":
		return sub(map[string]runner{"run": uvRun, "tool": sub(map[string]runner{"run": uvx})}), true
	case "pipx":
		return sub(map[string]runner{"run": pipxRun}), true
	case "docker", "podman", "nerdctl":
		return sub(map[string]runner{"run": dockerRun, "container": sub(map[string]runner{"run": dockerRun})}), true
	case "env", "sudo", "doas", "nice", "nohup", "timeout", "stdbuf", "setsid", "time", "ionice", "chrt",
		"taskset", "flock", "xargs", "script", "xvfb-run", "busybox", "cmd", "powershell", "pwsh", "exec",
		"command", "su", "runuser", "chroot", "unshare", "firejail", "bwrap", "caffeinate", "arch":
		return wrapper, true
	}
	return nil, false
}

// wrapper refuses wrappers: they run another program whose identity the
// digest of the wrapper does not cover.
func wrapper(name string, _ []string) (Launch, error) {
	return Launch{}, unpinned(name, "runs another program given in its arguments: declare that program itself as the command (variables go in the server's \"env\")")
}

// sub dispatches on a subcommand (npm exec, uv run, pipx run), skipping the
// runner's own leading options.
func sub(subs map[string]runner) runner {
	return func(name string, args []string) (Launch, error) {
		for i, a := range args {
			if strings.HasPrefix(a, "-") {
				continue
			}
			if r, ok := subs[a]; ok {
				return r(name+" "+a, args[i+1:])
			}
			return Launch{}, unpinned(name, "%s runs code that cannot be pinned (a project script or an installed command): declare the script file or a launcher with an exact package version", a)
		}
		return Launch{}, unpinned(name, "names no subcommand that runs a pinnable program")
	}
}

// lazyRegexp compiles expr on first use: compiling this package's patterns
// at init cost every oceancode process ~0.7 ms (GODEBUG=inittrace=1), and
// most never launch an MCP server.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
