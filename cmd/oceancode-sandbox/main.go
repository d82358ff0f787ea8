// Command oceancode-sandbox is the lean sandbox helper that oceancode
// installs beside itself. Inside bubblewrap it applies rlimits,
// no_new_privs, Landlock and the seccomp filter to itself and execs the
// confined command (agent/sandbox/helper.Main). It links that package
// alone (no net/http, no encoding/json, no crypto: a deps test keeps it
// so), so each sandboxed command pays only its own small start-up;
// without it, oceancode re-executes itself in the same hidden mode.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/oceancode/oceancode/agent/sandbox/helper"
)

func main() {
	if len(os.Args) < 2 || os.Args[1] != helper.Arg {
		fmt.Fprintf(os.Stderr, "oceancode-sandbox: internal helper of oceancode; run commands with 'oceancode sandbox -- CMD'\n")
		os.Exit(2)
	}
	err := helper.Main(os.Args[2:])
	if err != nil {
		var st *helper.ExitStatus
		if !errors.As(err, &st) {
			fmt.Fprintf(os.Stderr, "oceancode-sandbox: %v\n", err)
		}
	}
	os.Exit(helper.ExitCode(err))
}
