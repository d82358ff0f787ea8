package cli

import (
	"fmt"
	"io"

	"github.com/oceancode/oceancode/layers"
)

// reportConfig is the one place where what the loader noticed becomes
// stderr lines: loadConfig calls it, so every command that loads
// configuration (run, permission check, sandbox, doctor, inspect) says the
// same thing, once, before its own output. Each line is one sentence
// naming the file, what is wrong and what to do.
func reportConfig(w io.Writer, r *layers.Resolved) {
	if r.Requirements != nil {
		if n := r.Requirements.Notice(); n != "" {
			fmt.Fprintf(w, "oceancode: %s\n", n)
		}
	}
}
