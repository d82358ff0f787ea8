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
}
