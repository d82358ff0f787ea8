// Package mcp is the MCP client: it starts the configured MCP servers
// (stdio through the SDK's CommandTransport, or under the sandbox when it is
// on; streamable HTTP), lists their tools and offers each as a tools.Tool
// named mcp__<server>__<tool> through the one tool registry of the turn loop.
//
// Nothing starts before Admit has said yes, on every path (session start,
// reconnect, runtime add, `oceancode mcp check`): the requirements'
// allow-list (name + command or URL + optional executable SHA-256) and, for
// a project's .mcp.json (and plugin) servers, the user's trust decision,
// keyed on a digest of the server's definition and the SHA-256 of its
// resolved executable, so any change asks again. Calls go through the
// permission gate under the key mcp with the pattern <server>/<tool> and the
// server's origin; a server's own annotations (readOnlyHint) are never read.
// Results are untrusted data: marked with where they came from and capped.
//
// See docs/mcp.md.
package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/oceancode/oceancode/agent/engineapi"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/internal/mcplaunch"
)

// Server is one MCP server's definition, as config, a project's .mcp.json or
// a runtime add declare it (engineapi.MCPServer: a front end hands one over
// without linking this package). Its methods Check, Validate, Disabled,
// Remote and Identity are there.
type Server = engineapi.MCPServer

// NeedsTrust reports whether servers of origin o start only once trusted:
// a project's .mcp.json and a plugin. Config and client servers are not
// trust-gated (the seed page); a runtime add is itself the user's decision.
func NeedsTrust(o permission.MCPOrigin) bool {
	return o == permission.MCPProjectFile || o == permission.MCPPlugin || o == permission.MCPOriginUnknown
}

// Fingerprint is what trust and the allow-list are decided on: a digest of
// the definition plus, for a stdio server, its resolved executable and that
// file's SHA-256. The readable fields say what changed when the digest
// differs.
type Fingerprint struct {
	Definition string `json:"definition"`
	Executable string `json:"executable,omitempty"`
	SHA256     string `json:"sha256,omitempty"`
	// Runner is the interpreter or launcher the command is ("python3",
	// "npx"; "" when the executable itself is what runs), Runs what it runs
	// (mcplaunch's kind: "script", "inline code", "package").
	Runner string `json:"runner,omitempty"`
	Runs   string `json:"runs,omitempty"`
	// Script and ScriptSHA256 are the file an interpreter runs and its
	// digest: a rewritten srv.py is a changed server.
	Script       string `json:"script,omitempty"`
	ScriptSHA256 string `json:"script_sha256,omitempty"`
	// Packages are the exact package versions a launcher runs (they are
	// in the arguments, so the definition digest covers them).
	Packages []string `json:"packages,omitempty"`
	Command  string   `json:"command,omitempty"`
	Args     []string `json:"args,omitempty"`
	URL      string   `json:"url,omitempty"`
	EnvNames []string `json:"env_names,omitempty"`
	Headers  []string `json:"header_names,omitempty"`
}

// Same reports whether two fingerprints name the same server.
func (f Fingerprint) Same(g Fingerprint) bool {
	return f.Definition == g.Definition && f.SHA256 == g.SHA256 && f.Executable == g.Executable &&
		f.Script == g.Script && f.ScriptSHA256 == g.ScriptSHA256
}

// Identity is the digest an "always" answer for the server is bound to:
// the definition, the executable's SHA-256 (when it was hashed) and the
// script's.
func (f Fingerprint) Identity() string {
	h := sha256.Sum256([]byte(f.Definition + "\x00" + f.SHA256 + "\x00" + f.ScriptSHA256))
	return hex.EncodeToString(h[:8])
}

// Changes says what differs from old to f, for the prompt that asks again.
func (f Fingerprint) Changes(old Fingerprint) string {
	var out []string
	diff := func(what, a, b string) {
		if a != b {
			out = append(out, fmt.Sprintf("%s %q → %q", what, a, b))
		}
	}
	diff("command", old.Command, f.Command)
	diff("args", strings.Join(old.Args, " "), strings.Join(f.Args, " "))
	diff("url", old.URL, f.URL)
	diff("executable", old.Executable, f.Executable)
	diff("executable sha256", old.SHA256, f.SHA256)
	diff("script", old.Script, f.Script)
	diff("script sha256", old.ScriptSHA256, f.ScriptSHA256)
	diff("env", strings.Join(old.EnvNames, ","), strings.Join(f.EnvNames, ","))
	diff("headers", strings.Join(old.Headers, ","), strings.Join(f.Headers, ","))
	if len(out) == 0 && old.Definition != f.Definition {
		out = append(out, "an environment variable's value")
	}
	return strings.Join(out, "; ")
}

// definitionDigest is the SHA-256 of the definition's canonical JSON: name,
// transport, command, args, env (names and values), url and header names
// (header values are credentials that rotate; a rotated token does not
// re-ask).
func definitionDigest(s Server) string {
	env := make([]string, 0, len(s.Env))
	for k, v := range s.Env {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	args := s.Args
	if len(args) == 0 {
		args = nil // [] and absent are the same definition
	}
	b, _ := json.Marshal(struct {
		Name, Transport, Command string
		Args, Env                []string
		URL                      string
		Headers                  []string
	}{s.Name, transport(s), s.Command, args, env, s.URL, sortedKeys(s.Headers)})
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func transport(s Server) string {
	if s.Remote() {
		return "http"
	}
	return "stdio"
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Identify computes s's fingerprint. A stdio server's command is resolved
// as exec would resolve it — relative to dir when it has a slash, else on
// path (the child environment's PATH) — symlinks followed, and the file
// hashed. A command that cannot be resolved is an error: it could not
// start either.
func Identify(s Server, dir, path string) (Fingerprint, error) {
	return identify(s, dir, path, true)
}

// identify is Identify; without hash the executable is resolved but not
// hashed (a config server that no allow-list pins: nothing compares it).
func identify(s Server, dir, path string, hash bool) (Fingerprint, error) {
	fp := Fingerprint{Definition: definitionDigest(s), Command: s.Command, Args: s.Args, URL: s.URL,
		EnvNames: sortedKeys(s.Env), Headers: sortedKeys(s.Headers)}
	if s.Remote() {
		return fp, nil
	}
	exe, err := resolve(s.Command, dir, path)
	if err != nil {
		return fp, fmt.Errorf("resolve mcp server %s command %q: %w", s.Name, s.Command, err)
	}
	fp.Executable = exe
	if !hash {
		return fp, nil
	}
	sum, err := cachedSHA256(exe)
	if err != nil {
		return fp, fmt.Errorf("hash mcp server %s executable: %w", s.Name, err)
	}
	fp.SHA256 = sum
	return fp, pinRuns(&fp, s, dir)
}

// ErrUnpinned: an interpreter or launcher runs code no digest or exact
// version pins (python3 -m NAME, npx pkg without a version, env CMD).
var ErrUnpinned = mcplaunch.ErrUnpinned

// pinRuns adds what an interpreter or launcher runs to fp: the script's
// path and SHA-256 (python3 srv.py), the exact packages (npx pkg@1.2.3);
// code in the arguments (python3 -c) is pinned by the definition digest.
// A command line whose code cannot be pinned is an error wrapping
// ErrUnpinned that says how to pin it.
func pinRuns(fp *Fingerprint, s Server, dir string) error {
	l, err := mcplaunch.Analyze(s.Command, s.Args)
	if err == nil && l.Kind == mcplaunch.Program {
		// A link named otherwise to an interpreter runs as that interpreter.
		l, err = mcplaunch.Analyze(fp.Executable, s.Args)
	}
	if err != nil {
		return fmt.Errorf("pin mcp server %s: %w", s.Name, err)
	}
	if l.Kind == mcplaunch.Program {
		return nil
	}
	fp.Runner, fp.Runs, fp.Packages = l.Runner, l.Kind.String(), l.Packages
	if l.Kind != mcplaunch.Script {
		return nil
	}
	p := l.Script
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	real, err := filepath.EvalSymlinks(p)
	if err == nil {
		var fi os.FileInfo
		if fi, err = os.Stat(real); err == nil && !fi.Mode().IsRegular() {
			err = errors.New("not a regular file")
		}
	}
	if err != nil {
		return fmt.Errorf("pin mcp server %s: %w: %s runs %s, which is not a file it can hash (%v): name the script file to run", s.Name, ErrUnpinned, l.Runner, l.Script, err)
	}
	sum, err := cachedSHA256(real)
	if err != nil {
		return fmt.Errorf("hash mcp server %s script: %w", s.Name, err)
	}
	fp.Script, fp.ScriptSHA256 = real, sum
	return nil
}

// resolve finds cmd's executable file.
func resolve(cmd, dir, path string) (string, error) {
	var cands []string
	if strings.Contains(cmd, "/") {
		if !filepath.IsAbs(cmd) {
			cmd = filepath.Join(dir, cmd)
		}
		cands = []string{cmd}
	} else {
		for _, d := range filepath.SplitList(path) {
			if d == "" || !filepath.IsAbs(d) {
				continue // a relative PATH entry would depend on the cwd
			}
			cands = append(cands, filepath.Join(d, cmd))
		}
	}
	for _, c := range cands {
		real, err := filepath.EvalSymlinks(c)
		if err != nil {
			continue
		}
		fi, err := os.Stat(real)
		if err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return real, nil
		}
	}
	if len(cands) == 1 {
		return "", fmt.Errorf("%s is not an executable file", cands[0])
	}
	return "", errors.New("not found on PATH")
}

func fileSHA256(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// envPath is PATH in env ("" when unset).
func envPath(env []string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], "PATH="); ok {
			return v
		}
	}
	return ""
}

// sortedServers returns servers in name order.
func sortedServers(in []Server) []Server {
	out := slices.Clone(in)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
