package cli

import (
	"context"
	"fmt"
	"github.com/oceancode/oceancode/internal/exechelper"
	"os"
	"path/filepath"
	"testing"

	"github.com/oceancode/oceancode/agent/provider/official"
	"github.com/oceancode/oceancode/agent/provider/remote"
	"github.com/oceancode/oceancode/agent/sandbox"
)

// The test binary is also the model-client companion that `run` starts
// (as bin/oceancode-model is beside bin/oceancode): started with
// remote.HelperArg it serves the real SDK clients.
//
// The commands run in-process read the managed dir their App names:
// tests name their machine's (machineApp); this binary run as the CLI
// names a directory that does not exist, never the host's /etc/oceancode.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == remote.HelperArg {
		os.Exit(remote.HelperMain(os.Args[1:], official.Open))
	}
	app := StdIO()
	app.ManagedDir = filepath.Join(os.TempDir(), fmt.Sprintf("oceancode-no-managed-dir-%d", os.Getpid()))
	self, err := os.Executable()
	if err != nil {
		panic(err)
	}
	remote.HelperPath = self
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg && os.Getenv(envRunAsCLI) == "" {
		// The sandbox's helper, re-executed by a CLI run of this binary.
		os.Exit(Main(context.Background(), os.Args[1:], app, Options{}))
	}
	if os.Getenv(envRunAsCLI) == "1" {
		sandbox.HelperPath = self
		// A test started this binary as oceancode itself (redact_e2e_test.go):
		// a separate process on its own terminal, without building one.
		os.Exit(Main(context.Background(), os.Args[1:], app, Options{}))
	}
	code := m.Run()
	// Built once for the process and shared by every sandbox test here:
	// removed only after the last one ran.
	exechelper.Cleanup()
	os.Exit(code)
}

// envRunAsCLI makes the test binary run as oceancode (see TestMain).
const envRunAsCLI = "OC_TEST_RUN_AS_CLI"
