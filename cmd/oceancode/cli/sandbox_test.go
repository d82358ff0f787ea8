package cli

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/oceancode/oceancode/agent/sandbox"
	"github.com/oceancode/oceancode/internal/hermetictest"
)

func TestSandboxPolicyFromFlags(t *testing.T) {
	t.Parallel()
	p, err := sandboxPolicy(sandboxOptions{mode: "read-only", network: "on", workspace: "ws", deny: []string{".git"}}, "/home/u/proj")
	if err != nil {
		t.Fatal(err)
	}
	if p.Workspace != "/home/u/proj/ws" || p.Mode != sandbox.ModeReadOnly || p.Network != sandbox.NetworkOn || p.Dir != "" {
		t.Errorf("policy = %+v", p)
	}
	p, err = sandboxPolicy(sandboxOptions{mode: "workspace-write", network: "off"}, "/home/u/proj")
	if err != nil || p.Dir != "/home/u/proj" || p.Workspace != "/home/u/proj" {
		t.Errorf("policy = %+v, %v", p, err)
	}
	if _, err := sandboxPolicy(sandboxOptions{mode: "yolo", network: "off"}, "/w"); err == nil {
		t.Error("unknown mode accepted")
	}
}

// TestSandboxCommandEndToEnd runs the real oceancode binary: the CLI verb,
// the hidden helper mode it re-executes inside bubblewrap, and the exit
// statuses. It fails (does not skip) without bubblewrap: run
// scripts/install-bwrap.sh.
func TestSandboxCommandEndToEnd(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the Linux sandbox runs on Linux")
	}
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Fatal("bubblewrap is missing: run scripts/install-bwrap.sh")
	}
	bin := filepath.Join(t.TempDir(), "oceancode")
	hermetictest.GoBuild(t, bin, "github.com/oceancode/oceancode/cmd/oceancode")
	user := hermetictest.New(t)
	base := hermetictest.Scratch(t)
	ws, out := filepath.Join(base, "ws"), filepath.Join(base, "out")
	os.MkdirAll(ws, 0o755)
	os.MkdirAll(out, 0o755)

	run := func(env []string, args ...string) (string, int) {
		c := exec.Command(bin, args...)
		c.Dir = ws
		c.Env = user.Env(os.Environ(), env...)
		var buf bytes.Buffer
		c.Stdout, c.Stderr = &buf, &buf
		err := c.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return buf.String(), code
	}

	t.Run("exit status and workspace write", func(t *testing.T) {
		o, code := run([]string{"MY_TOKEN=leak"}, "sandbox", "--", "sh", "-c", `echo in > inside; echo out > "$0/outside"; echo "tok=$MY_TOKEN"; exit 3`, out)
		if code != 3 {
			t.Errorf("exit %d, want the command's 3\n%s", code, o)
		}
		if b, _ := os.ReadFile(filepath.Join(ws, "inside")); string(b) != "in\n" {
			t.Errorf("workspace write missing: %q", b)
		}
		if _, err := os.Stat(filepath.Join(out, "outside")); err == nil {
			t.Error("a write outside the workspace reached the host")
		}
		if strings.Contains(o, "leak") {
			t.Error("a TOKEN variable reached the child")
		}
	})
	t.Run("read-only", func(t *testing.T) {
		_, code := run(nil, "sandbox", "--mode", "read-only", "--", "sh", "-c", "echo x > ro")
		if code == 0 {
			t.Error("read-only allowed a workspace write")
		}
		if _, err := os.Stat(filepath.Join(ws, "ro")); err == nil {
			t.Error("read-only: file appeared on the host")
		}
	})
	t.Run("command not found", func(t *testing.T) {
		if o, code := run(nil, "sandbox", "--", "no-such-command-xyz"); code != 127 {
			t.Errorf("exit %d, want 127\n%s", code, o)
		}
	})
	t.Run("bad mode is a usage error", func(t *testing.T) {
		if o, code := run(nil, "sandbox", "--mode", "yolo", "--", "true"); code != 2 {
			t.Errorf("exit %d, want 2\n%s", code, o)
		}
	})
	t.Run("refused without bubblewrap", func(t *testing.T) {
		o, code := run([]string{"PATH=" + t.TempDir()}, "sandbox", "--", "/bin/true")
		if code != 5 || !strings.Contains(o, "apt-get install bubblewrap") {
			t.Errorf("exit %d, want 5 with the install hint\n%s", code, o)
		}
	})
	t.Run("network allowlist through the egress proxy", func(t *testing.T) {
		var hits [2]atomic.Int64
		var ports [2]string
		for i := range hits {
			ln, err := net.Listen("tcp4", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				hits[i].Add(1)
				io.WriteString(w, "hello from the allowed host")
			})}
			go srv.Serve(ln)
			t.Cleanup(func() { srv.Close() })
			_, ports[i], _ = net.SplitHostPort(ln.Addr().String())
		}
		// bash's /dev/tcp as the client: plain HTTP through the forwarder.
		get := `p=${HTTP_PROXY##*:}; exec 3<>/dev/tcp/127.0.0.1/$p || exit 9
			printf 'GET http://%s/ HTTP/1.1\r\nHost: %s\r\n\r\n' "$0" "$0" >&3; cat <&3`
		o, code := run(nil, "sandbox", "--network", "allowlist", "--allow-host", "127.0.0.1:"+ports[0], "--", "bash", "-c", get, "127.0.0.1:"+ports[0])
		if code != 0 || !strings.Contains(o, "200 OK") || !strings.Contains(o, "hello from the allowed host") || hits[0].Load() != 1 {
			t.Errorf("allowed: exit %d, hits %d\n%s", code, hits[0].Load(), o)
		}
		o, code = run(nil, "sandbox", "--network", "allowlist", "--allow-host", "127.0.0.1:"+ports[0], "--", "bash", "-c", get, "127.0.0.1:"+ports[1])
		if code != 0 || !strings.Contains(o, "403 Forbidden") || !strings.Contains(o, "oceancode: egress refused GET 127.0.0.1:"+ports[1]) || hits[1].Load() != 0 {
			t.Errorf("refused: exit %d, hits %d\n%s", code, hits[1].Load(), o)
		}
		// No route around the proxy.
		o, code = run(nil, "sandbox", "--network", "allowlist", "--allow-host", "127.0.0.1:"+ports[0], "--", "bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/$0", ports[0])
		if code == 0 || hits[0].Load() != 1 {
			t.Errorf("direct connection: exit %d, hits %d\n%s", code, hits[0].Load(), o)
		}
		if o, code := run(nil, "sandbox", "--network", "allowlist", "--allow-host", "*", "--", "true"); code != 2 {
			t.Errorf("bad --allow-host: exit %d, want 2\n%s", code, o)
		}
	})
	t.Run("danger-full-access runs unconfined", func(t *testing.T) {
		_, code := run(nil, "sandbox", "--mode", "danger-full-access", "--", "sh", "-c", `echo out > "$0/free"`, out)
		if b, _ := os.ReadFile(filepath.Join(out, "free")); code != 0 || string(b) != "out\n" {
			t.Errorf("exit %d, file %q", code, b)
		}
	})
}
