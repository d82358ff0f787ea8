//go:build !unix

package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"

	"github.com/oceancode/oceancode/internal/exitcode"
)

// execReplace runs path with this process's terminal and ends with its
// status (Windows has no exec).
func execReplace(path string, argv, env []string) error {
	cmd := exec.Command(path, argv[1:]...)
	cmd.Env, cmd.Stdin, cmd.Stdout, cmd.Stderr = env, os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return exitcode.With(ee.ExitCode(), fmt.Errorf("%s exited with status %d", path, ee.ExitCode()))
	}
	if err != nil {
		return fmt.Errorf("open the pager: run %s: %w", path, err)
	}
	return nil
}
