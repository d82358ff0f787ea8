package cli

import (
	"os"
	"testing"

	"github.com/oceancode/oceancode/agent/provider/official"
	"github.com/oceancode/oceancode/agent/provider/remote"
)

// The test binary is also the model-client companion that `run` starts
// (as bin/oceancode-model is beside bin/oceancode): started with
// remote.HelperArg it serves the real SDK clients.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == remote.HelperArg {
		os.Exit(remote.HelperMain(os.Args[1:], official.Open))
	}
	self, err := os.Executable()
	if err != nil {
		panic(err)
	}
	remote.HelperPath = self
	os.Exit(m.Run())
}
