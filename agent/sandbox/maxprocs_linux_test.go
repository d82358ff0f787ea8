//go:build linux && (amd64 || arm64)

package sandbox

import (
	"bytes"
	"context"
	"testing"
	"time"
)

// The helper starts with GOMAXPROCS=1 (Spec.OneProc); the command gets its
// own environment back exactly: no GOMAXPROCS, an empty one, or its value.
func TestCommandKeepsGOMAXPROCS(t *testing.T) {
	requireSandbox(t)
	ws := t.TempDir()
	script := `if [ "${GOMAXPROCS+set}" = set ]; then echo "set:$GOMAXPROCS"; else echo unset; fi`
	for _, c := range []struct {
		name string
		env  []string
		want string
	}{
		{"unset", nil, "unset\n"},
		{"empty", []string{"GOMAXPROCS="}, "set:\n"},
		{"value", []string{"GOMAXPROCS=3"}, "set:3\n"},
		{"last of two", []string{"GOMAXPROCS=2", "GOMAXPROCS=7"}, "set:7\n"}, // as os/exec's Cmd.Env, with either helper
	} {
		for _, start := range []struct {
			name string
			fn   func(context.Context, Policy, []string, []string) (*Cmd, error)
			p    Policy
		}{
			{"sandbox", Command, Policy{Enabled: true, Workspace: ws}},
			{"supervised", Supervised, Policy{Workspace: ws}},
		} {
			t.Run(c.name+"/"+start.name, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				cmd, err := start.fn(ctx, start.p, []string{"/bin/sh", "-c", script}, append([]string{"PATH=/usr/bin:/bin"}, c.env...))
				if err != nil {
					t.Fatal(err)
				}
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &out
				if err := cmd.Run(); err != nil {
					t.Fatalf("%v: %s", err, out.String())
				}
				if out.String() != c.want {
					t.Errorf("the command saw %q, want %q", out.String(), c.want)
				}
			})
		}
	}
}
