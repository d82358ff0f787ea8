package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/oceancode/oceancode/agent/provider/official"
	"github.com/oceancode/oceancode/agent/provider/remote"
	"github.com/oceancode/oceancode/layers"
)

// The test binary is also the model-client companion that `run` starts
// (as bin/oceancode-model is beside bin/oceancode): started with
// remote.HelperArg it serves the real SDK clients.
//
// The commands run in-process read the managed dir from
// layers.SystemManagedDir: tests point it at their machine's (machineApp);
// any other test gets a directory that does not exist, never the host's
// /etc/oceancode.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == remote.HelperArg {
		os.Exit(remote.HelperMain(os.Args[1:], official.Open))
	}
	layers.SystemManagedDir = filepath.Join(os.TempDir(), fmt.Sprintf("oceancode-no-managed-dir-%d", os.Getpid()))
	self, err := os.Executable()
	if err != nil {
		panic(err)
	}
	remote.HelperPath = self
	os.Exit(m.Run())
}
