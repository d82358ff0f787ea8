//go:build !(linux && (amd64 || arm64))

package sandbox

import "context"

// AgentMarker is the environment variable every supervised command gets.
const AgentMarker = "OCEANCODE_AGENT"

// Supervised is Command here: there is no supervisor on this platform, so an
// unconfined command's detached descendants can outlive the agent.
func Supervised(ctx context.Context, p Policy, argv []string, env []string) (*Cmd, error) {
	return Command(ctx, p, argv, env)
}

// Leftover is a process started by an agent that is gone.
type Leftover struct {
	PID        int    `json:"pid"`
	Command    string `json:"command"`
	AgentPID   int    `json:"agent_pid"`
	AgentStart string `json:"agent_start"`
}

// Leftovers finds nothing on this platform.
func Leftovers() []Leftover { return nil }

// SetProbeCacheDir does nothing on this platform.
func SetProbeCacheDir(string) {}

// Prewarm does nothing on this platform.
func Prewarm(Limits) {}
