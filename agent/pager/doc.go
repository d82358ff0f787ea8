// Package pager is the Ocean pager: the interactive terminal session, built
// on bubbletea v2. It is one more client of the session engine
// (agent/runner) through Engine, in process or attached to `oceancode
// serve` over HTTP; every change the user makes goes to the engine.
package pager
