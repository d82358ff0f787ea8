// Package sandboxtest lets a test binary double as the sandbox helper, so
// the tests of packages that run confined commands use the real helper
// (this binary, re-executed) without building oceancode-sandbox first.
package sandboxtest

import (
	"errors"
	"fmt"
	"os"

	"github.com/oceancode/oceancode/agent/sandbox"
)

// ServeHelper is called first in TestMain. Re-executed as the sandbox
// helper, the binary applies the confinement and execs the command (it
// never returns); otherwise ServeHelper points sandbox.HelperPath at this
// binary and returns.
func ServeHelper() {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		err := sandbox.HelperMain(os.Args[2:])
		var st *sandbox.ExitStatus
		if err != nil && !errors.As(err, &st) {
			fmt.Fprintln(os.Stderr, "oceancode:", err)
		}
		os.Exit(sandbox.HelperExitCode(err))
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "sandboxtest: find this test binary:", err)
		os.Exit(1)
	}
	sandbox.HelperPath = exe
}
