package mcp

import (
	"errors"
	"fmt"
	"strings"
)

// Policy decides whether a server may start. The zero Policy allows every
// config server and trusts no project server.
type Policy struct {
	// Allowed is the requirements' allow-list check (nil: no requirements
	// in force): false comes with the reason. When an allow-list is present
	// it is exclusive: only the servers it lists start.
	Allowed func(Candidate) (bool, string)
	// Denied, if set, reports whether the permission rules deny every tool
	// of the server (a "server/*" or "*" deny, e.g. the requirements'
	// rules.deny, the deny list): such a server is not started at all.
	Denied func(name string) bool
	// Trust is the user's trust store; nil trusts no project server.
	Trust *TrustStore
	// Project is the project root: the trust store's key.
	Project string
}

// Candidate is what the allow-list decides on: the server's name, its
// command and arguments or URL, the executable's SHA-256 and, for an
// interpreter or launcher, what it runs (the script and its SHA-256).
type Candidate struct {
	Name    string
	Command string
	Args    []string
	SHA256  string
	// Runner is the interpreter or launcher ("" when the executable is
	// what runs); Script and ScriptSHA256 the file it runs.
	Runner       string
	Script       string
	ScriptSHA256 string
	URL          string
}

// candidate is s with its fingerprint, as the allow-list sees it.
func candidate(s Server, fp Fingerprint) Candidate {
	return Candidate{Name: s.Name, Command: s.Command, Args: s.Args, SHA256: fp.SHA256, Runner: fp.Runner,
		Script: fp.Script, ScriptSHA256: fp.ScriptSHA256, URL: s.URL}
}

// Why a server did not start.
var (
	// ErrRefused: the requirements' allow-list refuses it.
	ErrRefused = errors.New("refused by the requirements' MCP allow-list")
	// ErrDenied: the permission rules deny every tool of the server.
	ErrDenied = errors.New("every tool of the server is denied by the permission rules")
	// ErrUntrusted: a project or plugin server that is not trusted (or whose
	// definition or executable changed since it was).
	ErrUntrusted = errors.New("not trusted")
)

// AdmitError says why a server may not start.
type AdmitError struct {
	Server string
	Kind   error  // ErrRefused, ErrDenied or ErrUntrusted
	Reason string // the allow-list's reason, or what changed since trust
	Err    error  // the cause, when there is one (ErrUnpinned)
}

func (e *AdmitError) Error() string {
	if e.Kind == ErrUntrusted {
		return fmt.Sprintf("start mcp server %s: %s", e.Server, e.Reason)
	}
	return fmt.Sprintf("start mcp server %s: %v: %s", e.Server, e.Kind, e.Reason)
}

func (e *AdmitError) Unwrap() []error {
	if e.Err != nil {
		return []error{e.Kind, e.Err}
	}
	return []error{e.Kind}
}

// Admit decides whether s may start now and returns its fingerprint; it
// never starts anything. It is the one check on every start path: session
// start, reconnect, runtime add, sub-agent and resume (which start through
// the same Manager), and `oceancode mcp check`. dir resolves a relative
// command, path is the child environment's PATH.
func (p Policy) Admit(s Server, dir, path string) (Fingerprint, error) {
	if err := s.Validate(); err != nil {
		return Fingerprint{}, err
	}
	if p.Denied != nil && p.Denied(s.Name) {
		return Fingerprint{}, &AdmitError{Server: s.Name, Kind: ErrDenied,
			Reason: fmt.Sprintf("a deny rule covers mcp(%s/*), so it is not started", s.Name)}
	}
	// The executable is hashed only where something compares the digest:
	// an allow-list in force, or trust.
	fp, err := identify(s, dir, path, p.Allowed != nil || NeedsTrust(s.Origin))
	if errors.Is(err, ErrUnpinned) {
		// What would run cannot be pinned: neither gate can admit it.
		kind := ErrUntrusted
		if p.Allowed != nil {
			kind = ErrRefused
		}
		return fp, &AdmitError{Server: s.Name, Kind: kind, Reason: err.Error(), Err: err}
	}
	if err != nil {
		return fp, err
	}
	if p.Allowed != nil {
		if ok, why := p.Allowed(candidate(s, fp)); !ok {
			return fp, &AdmitError{Server: s.Name, Kind: ErrRefused, Reason: why}
		}
	}
	if !NeedsTrust(s.Origin) {
		return fp, nil
	}
	rec, ok, err := p.Trust.Lookup(p.Project, s.Name)
	if err != nil {
		return fp, &AdmitError{Server: s.Name, Kind: ErrUntrusted, Reason: err.Error()}
	}
	switch {
	case !ok:
		return fp, &AdmitError{Server: s.Name, Kind: ErrUntrusted,
			Reason: fmt.Sprintf("%s is from %s and not trusted yet; run `oceancode mcp trust %s` after reading its definition (%s)", s.Name, s.Origin, s.Name, describe(s, fp))}
	case !rec.Same(fp):
		return fp, &AdmitError{Server: s.Name, Kind: ErrUntrusted,
			Reason: fmt.Sprintf("%s changed since it was trusted (%s); run `oceancode mcp trust %s` again if the change is yours", s.Name, fp.Changes(rec.Fingerprint), s.Name)}
	}
	return fp, nil
}

// describe is the full command line (or URL) and the executable's digest.
func describe(s Server, fp Fingerprint) string {
	if s.Remote() {
		return "url " + s.URL
	}
	line := s.Command
	for _, a := range s.Args {
		line += " " + a
	}
	out := fmt.Sprintf("command %q", line)
	if fp.Executable != "" {
		out += fmt.Sprintf(", executable %s sha256 %s", fp.Executable, fp.SHA256)
	}
	out += fp.RunsSummary()
	if e := EnvSummary(s); e != "" {
		out += ", env " + e
	}
	return out
}

// RunsSummary says what an interpreter or launcher runs (", script PATH
// sha256 HEX", ", packages A@1, B@2", ", inline code"), "" for a program.
func (f Fingerprint) RunsSummary() string {
	out := ""
	if f.Script != "" {
		out += fmt.Sprintf(", script %s sha256 %s", f.Script, f.ScriptSHA256)
	}
	if len(f.Packages) > 0 {
		out += ", packages " + strings.Join(f.Packages, ", ")
	}
	if f.Runs == "inline code" {
		out += ", inline code in its arguments"
	}
	return out
}

// EnvSummary shows a server's env for a trust decision: each name, with its
// value where it names one of your variables (${NAME}: what it will be
// given), else "…".
func EnvSummary(s Server) string {
	var parts []string
	for _, k := range sortedKeys(s.Env) {
		v := s.Env[k]
		if !strings.Contains(v, "${") {
			v = "…"
		}
		parts = append(parts, k+"="+v)
	}
	return strings.Join(parts, " ")
}
