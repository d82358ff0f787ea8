package cli

import (
	"fmt"

	"github.com/oceancode/oceancode/agent/sandbox"
)

// leftoverProblems lists, for doctor, every live process that a bash tool
// call started for an agent that is gone (found by the sandbox.AgentMarker
// each command's environment carries; see docs/sandbox.md, "When the agent
// ends"). With the supervisor in place there are none unless it was killed
// too (kill -9 of its process group) or a process dropped its environment.
func leftoverProblems() []string {
	var out []string
	for _, l := range sandbox.Leftovers() {
		out = append(out, fmt.Sprintf("process %d (%s) outlived its agent (pid %d, gone): end it with 'kill %d' if it is not wanted",
			l.PID, shortCommand(l.Command), l.AgentPID, l.PID))
	}
	return out
}

func shortCommand(s string) string {
	const n = 80
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
