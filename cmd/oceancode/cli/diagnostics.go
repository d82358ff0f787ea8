package cli

import (
	"fmt"
	"io"

	"github.com/oceancode/oceancode/layers"
)

// printDiagnostics is what every command that loads the configuration (run,
// permission check, doctor, inspect, sandbox) says on stderr about it, so a
// problem is never visible in only one of them: each warning — an unknown
// key with its file, line, did-you-mean and, for another agent's spelling,
// our equivalent; an MCP server the requirements keep from starting — on a
// line of its own. Errors are not repeated here: they refuse sessions, and
// each command reports them (the session gate, doctor's problems, inspect's
// report).
func printDiagnostics(w io.Writer, r *layers.Resolved) {
	for _, d := range r.Diagnostics {
		if d.Severity == layers.Warning {
			fmt.Fprintf(w, "oceancode: %s\n", d)
		}
	}
}
