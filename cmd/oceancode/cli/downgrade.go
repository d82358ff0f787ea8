package cli

import (
	"fmt"
	"io"

	"github.com/oceancode/oceancode/sessionconfig"
)

// announce prints each downgrade (sessionconfig.Downgrades: a value the
// requirements did not let through) on stderr, one line each, and returns
// them.
func announce(w io.Writer, ds []sessionconfig.Downgrade) []sessionconfig.Downgrade {
	for _, d := range ds {
		fmt.Fprintf(w, "oceancode: %s\n", d.Note())
	}
	return ds
}
