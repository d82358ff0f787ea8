//go:build !unix

package tools

import (
	"os/exec"

	"github.com/oceancode/oceancode/internal/procgroup"
)

func ownGroup(cmd *exec.Cmd) { procgroup.Own(cmd) }

func killGroup(pid int) error { return procgroup.Kill(pid) }

func signalOf(ps *exec.ExitError) (string, bool) { return "", false }
