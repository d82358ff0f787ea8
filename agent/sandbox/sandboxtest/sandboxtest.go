// Package sandboxtest lets a test binary double as the sandbox helper, so
// the tests of packages that run confined commands use the real helpers
// without building oceancode-sandbox first: this binary, re-executed, as
// the Go helper, and the exec helper (cmd/oceancode-sandbox-exec) built
// from source, as an installed oceancode has beside it.
package sandboxtest

import (
	"errors"
	"fmt"
	"os"
	"runtime"

	"github.com/oceancode/oceancode/agent/sandbox"
	"github.com/oceancode/oceancode/internal/exechelper"
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
	if runtime.GOOS != "linux" {
		return // no helper runs inside the sandbox elsewhere
	}
	if sandbox.ExecHelperPath, err = exechelper.Build(); err != nil {
		fmt.Fprintln(os.Stderr, "sandboxtest:", err)
		os.Exit(1)
	}
}

// Cleanup removes the exec helper ServeHelper built; call it after m.Run.
func Cleanup() { exechelper.Cleanup() }
