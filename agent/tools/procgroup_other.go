//go:build !unix

package tools

import "os/exec"

func ownGroup(cmd *exec.Cmd) {}

func killGroup(pid int) error { return nil }

func signalOf(ps *exec.ExitError) (string, bool) { return "", false }
