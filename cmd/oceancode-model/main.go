// Command oceancode-model is oceancode's model client: the official
// Anthropic and OpenAI SDK clients in a companion process that `oceancode
// run` starts and talks to over a pipe (agent/provider/remote). Keeping the
// SDKs out of oceancode itself keeps every other command's start-up small.
// It is not meant to be run by hand.
package main

import (
	"os"

	"github.com/oceancode/oceancode/agent/provider/official"
	"github.com/oceancode/oceancode/agent/provider/remote"
	// The client holds the API key in memory: non-dumpable, so no
	// same-user process reads it from /proc/<pid>/mem (see SECURITY.md).
	_ "github.com/oceancode/oceancode/internal/secretenv"
)

func main() {
	os.Exit(remote.HelperMain(os.Args[1:], official.Open))
}
