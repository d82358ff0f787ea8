//go:build linux && (amd64 || arm64)

package sandbox

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/agent/sandbox/helper"
)

// TestExecHelperContract runs the Go helper and the exec helper (the C
// program users get) directly, outside bubblewrap, over the same specs:
// each must apply the limits, no_new_privs, the descriptor rule and the
// Landlock ruleset the same way, and fail the same way (126 when it cannot
// confine or is misused, 127 for a missing command), so the fallback is
// never weaker than the fast path.
func TestExecHelperContract(t *testing.T) {
	abi := cachedSupport().LandlockABI
	if abi < 2 {
		t.Skip("needs Landlock ABI 2 or newer")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	type runner struct {
		name string
		argv func(h helper.Spec) []string
	}
	runners := []runner{{"go", func(h helper.Spec) []string { return append([]string{exe, HelperArg}, h.Args()...) }}}
	if ExecHelperPath != "" {
		runners = append(runners, runner{"exec", func(h helper.Spec) []string {
			a, err := h.ExecArgs()
			if err != nil {
				t.Fatal(err)
			}
			return append([]string{ExecHelperPath}, a...)
		}})
	}
	dir := t.TempDir()
	rw, other := filepath.Join(dir, "rw"), filepath.Join(dir, "other")
	must(t, os.Mkdir(rw, 0o755))
	must(t, os.Mkdir(other, 0o755))
	plain, garbage := filepath.Join(dir, "plain"), filepath.Join(dir, "garbage")
	must(t, os.WriteFile(plain, []byte("#!/bin/sh\necho ran\n"), 0o644))
	must(t, os.WriteFile(garbage, []byte("\x00\x01 not a program"), 0o755))
	ruleset := helper.NewRuleset(abi, []string{"/"}, []string{rw, filepath.Join(dir, "missing")}, []string{"/dev"})
	cases := []struct {
		name   string
		spec   helper.Spec
		argv   []string
		code   int
		stdout string
		stderr string
	}{
		{"limits", helper.Spec{NoFile: 64, FSize: 1 << 20}, []string{"/bin/sh", "-c", "ulimit -n; ulimit -Hn; ulimit -f"}, 0, "64\n64\n2048\n", ""},
		{"no_new_privs", helper.Spec{}, []string{"/bin/sh", "-c", "grep NoNewPrivs /proc/self/status"}, 0, "NoNewPrivs:\t1\n", ""},
		{"only stdio", helper.Spec{}, []string{"/bin/sh", "-c", "for f in 3 4 5; do [ -e /proc/$$/fd/$f ] && echo open $f; done; echo done"}, 0, "done\n", ""},
		{"landlock", helper.Spec{Landlock: ruleset}, []string{"/bin/sh", "-c", "echo x > " + rw + "/f && echo wrote; (echo y > " + other + "/f) 2>/dev/null || echo denied; cat " + rw + "/f"}, 0, "wrote\ndenied\nx\n", ""},
		{"path lookup", helper.Spec{}, []string{"sh", "-c", "echo found"}, 0, "found\n", ""},
		{"not found", helper.Spec{}, []string{"no-such-command-xyz"}, 127, "", "command not found: no-such-command-xyz"},
		{"not executable", helper.Spec{}, []string{plain}, 127, "", "command not found: " + plain},
		{"exec fails", helper.Spec{}, []string{garbage}, 126, "", "exec " + garbage},
	}
	for _, r := range runners {
		for _, c := range cases {
			t.Run(r.name+"/"+c.name, func(t *testing.T) {
				argv := append(r.argv(c.spec), c.argv...)
				cmd := exec.Command(argv[0], argv[1:]...)
				cmd.Env = []string{"PATH=/usr/bin:/bin"}
				// Descriptors 3, 4 and 5 are open in the helper, as
				// bubblewrap's would be.
				for i := 0; i < 3; i++ {
					f, err := os.Open(dir)
					must(t, err)
					defer f.Close()
					cmd.ExtraFiles = append(cmd.ExtraFiles, f)
				}
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err := cmd.Run()
				code := 0
				if ee, ok := err.(*exec.ExitError); ok {
					code = ee.ExitCode()
				} else if err != nil {
					t.Fatal(err)
				}
				if code != c.code || stdout.String() != c.stdout || !strings.Contains(stderr.String(), c.stderr) {
					t.Errorf("exit %d, stdout %q, stderr %q; want %d, %q, stderr containing %q", code, stdout.String(), stderr.String(), c.code, c.stdout, c.stderr)
				}
			})
		}
		// Misuse is refused before anything runs.
		for _, bad := range [][]string{{"--bogus", "--", "true"}, {"--nofile", "x", "--", "true"}, {"--landlock", "1"}, {"--nofile", "3"}, {"--"}} {
			t.Run(r.name+"/bad "+strings.Join(bad, " "), func(t *testing.T) {
				argv := r.argv(helper.Spec{})
				argv = append(argv[:len(argv)-1], bad...) // drop the spec's "--"
				out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
				if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 126 {
					t.Errorf("%q: %v, want exit 126\n%s", bad, err, out)
				}
				if !strings.Contains(string(out), "helper") {
					t.Errorf("%q: the error does not say it is the helper's: %s", bad, out)
				}
			})
		}
	}
}
