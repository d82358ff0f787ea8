//go:build !unix

// Package procgroup starts a child as the leader of its own process group
// and ends the whole group; on this system both are no-ops.
package procgroup

import "os/exec"

// Own does nothing here: there are no Unix process groups.
func Own(cmd *exec.Cmd) {}

// Kill does nothing here.
func Kill(pid int) error { return nil }
