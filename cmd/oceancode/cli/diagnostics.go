package cli

import (
	"fmt"
	"io"

	"github.com/oceancode/oceancode/layers"
)

// reportConfig is the one place where what the loader noticed becomes
// stderr lines: loadConfig calls it, so every command that loads
// configuration (run, permission check, sandbox, doctor, inspect) says the
// same thing, once, before its own output. First the requirements' state
// when it is not plainly in force (missing, unreadable or refused while keys
// are trusted, expired with a warning) as one sentence naming the file, what
// is wrong and what to do; then each warning — an unknown key with its file,
// line, did-you-mean and, for another agent's spelling, our equivalent; an
// MCP server the requirements keep from starting — on a line of its own.
// Errors are not repeated here: they refuse sessions, and each command
// reports them (the session gate, doctor's problems, inspect's report).
func reportConfig(w io.Writer, r *layers.Resolved) {
	if r.Requirements != nil {
		if n := r.Requirements.Notice(); n != "" {
			fmt.Fprintf(w, "oceancode: %s\n", n)
		}
	}
	for _, d := range r.Diagnostics {
		if d.Severity == layers.Warning {
			fmt.Fprintf(w, "oceancode: %s\n", d)
		}
	}
	reportWorkspace(w, r.Workspace)
}

// reportWorkspace names every project config key that was ignored because
// the workspace is not trusted, with its file:line and what it would have
// done, and says how to apply them (docs/trust.md).
func reportWorkspace(w io.Writer, ws *layers.Workspace) {
	if ws == nil || len(ws.Ignored) == 0 {
		return
	}
	fmt.Fprintf(w, "oceancode: workspace %s is not trusted: %s\n", ws.Root, ws.Reason)
	fmt.Fprintf(w, "oceancode: ignored %d project config key(s) that loosen the session or run code:\n", len(ws.Ignored))
	for _, k := range ws.Ignored {
		fmt.Fprintf(w, "oceancode:   %s\n", k)
	}
	if ws.ProjectConfig == layers.ProjectConfigTrust {
		fmt.Fprintf(w, "oceancode: review them ('oceancode inspect'), then 'oceancode trust' applies them (or --trust-project for one run)\n")
	}
}
