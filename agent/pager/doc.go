// Package pager is the Ocean pager: the interactive terminal session, built
// on bubbletea v2. It is one more client of the session engine
// (agent/runner) through Engine, in process (agent/pager/pagerlocal) or
// attached to `oceancode serve` over HTTP (Remote); every change the user
// makes goes to the engine. It speaks the engine's vocabulary
// (agent/engineapi) and links none of the engine itself — not the runner,
// the tools, the sandbox or the shell guard (deps_test.go holds it to that).
package pager
