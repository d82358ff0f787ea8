package secretenv

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/oceancode/oceancode/internal/secretenv/secretenvtest"
)

// childEnv marks the test binary started as the process under test.
const childEnv = "OC_ENVTEST_CHILD" // not secret-named: it must stay in os.Getenv

// probe is what the process under test's child runs: it tries to read its
// parent's environment, memory, descriptors and command line, and its own
// environment (which proves the probe can read what it is allowed to).
const probe = `
exec 2>&1
echo "environ:"; cat /proc/$PPID/environ && echo "(environ read)"
echo; echo "mem:"; (exec 3</proc/$PPID/mem) && echo MEM_OPEN
echo "fd:"; ls /proc/$PPID/fd/ && echo FD_LISTED
echo "cmdline:"; cat /proc/$PPID/cmdline; echo
echo "self:"; cat /proc/self/environ; echo
`

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "" {
		os.Exit(m.Run())
	}
	// The process under test: secretenv's init has run.
	fmt.Printf("os.Getenv=%q\n", os.Getenv("ANTHROPIC_API_KEY"))
	fmt.Printf("Getenv=%q\n", Getenv("ANTHROPIC_API_KEY"))
	fmt.Printf("Err=%v\n", Err())
	environ, _ := os.ReadFile("/proc/self/environ")
	fmt.Printf("own block non-NUL bytes=%d\n", len(bytes.Trim(environ, "\x00")))
	c := exec.Command("/bin/sh", "-c", probe)
	c.Env = []string{"PATH=/usr/bin:/bin", "PROBE_SELF=readable"}
	out, err := c.CombinedOutput()
	fmt.Printf("probe (%v):\n%s", err, out)
	os.Exit(0)
}

func randomHex(t *testing.T) string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// TestChildrenCannotReadSecrets runs a process with secrets in its
// environment, as root and as nobody (uid 65534), and has its child try
// every /proc route to them.
func TestChildrenCannotReadSecrets(t *testing.T) {
	// A copy of the test binary nobody can run.
	dir := secretenvtest.Dir(t, "secretenv-")
	self, _ := os.Executable()
	bin := filepath.Join(dir, "secretenv.test")
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	key := "sk-ant-api03-" + randomHex(t)
	dbPass := randomHex(t)
	for _, user := range secretenvtest.Users {
		t.Run(user.Name, func(t *testing.T) {
			c := exec.Command(bin)
			c.Dir = dir
			c.Env = []string{childEnv + "=1", "PATH=/usr/bin:/bin", "ANTHROPIC_API_KEY=" + key,
				"DATABASE_URL=postgres://app:" + dbPass + "@db/app"}
			c.SysProcAttr = &syscall.SysProcAttr{Credential: user.Cred}
			outb, err := c.CombinedOutput()
			out := string(outb)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			for _, want := range []string{`os.Getenv=""`, fmt.Sprintf("Getenv=%q", key), "Err=<nil>", "own block non-NUL bytes=0",
				"PROBE_SELF=readable"} {
				if !strings.Contains(out, want) {
					t.Errorf("want %q in:\n%s", want, out)
				}
			}
			probeOut := out[strings.Index(out, "probe ("):]
			for _, secret := range []string{key, dbPass} {
				if strings.Contains(probeOut, secret) {
					t.Errorf("the child read a secret:\n%s", out)
				}
			}
			if user.Cred != nil {
				for _, denied := range []string{"(environ read)", "MEM_OPEN", "FD_LISTED"} {
					if strings.Contains(probeOut, denied) {
						t.Errorf("as nobody, the child got %s of its non-dumpable parent:\n%s", denied, out)
					}
				}
			} else if !strings.Contains(probeOut, "(environ read)") {
				t.Errorf("as root the child reads the (cleared) block; the probe did not:\n%s", out)
			}
		})
	}
}

// TestHideAndEnviron: a variable hidden later leaves os.Environ and
// Environ, Getenv still has it, and the redactor knows its value.
func TestHideAndEnviron(t *testing.T) {
	t.Setenv("OC_ENVTEST_CRED", "hidden-value-"+randomHex(t))
	v := os.Getenv("OC_ENVTEST_CRED")
	Hide("OC_ENVTEST_CRED", "OC_ENVTEST_UNSET")
	if os.Getenv("OC_ENVTEST_CRED") != "" || Getenv("OC_ENVTEST_CRED") != v {
		t.Fatalf("after Hide: os.Getenv %q, Getenv %q", os.Getenv("OC_ENVTEST_CRED"), Getenv("OC_ENVTEST_CRED"))
	}
	for _, kv := range Environ() {
		if strings.HasPrefix(kv, "OC_ENVTEST_CRED=") {
			t.Fatalf("Environ still holds %s", kv)
		}
	}
	if got := Redact("x " + v + " y"); got != "x [redacted: OC_ENVTEST_CRED from environment] y" {
		t.Fatalf("Redact = %q", got)
	}
	Remember("remembered-value-" + v[:8])
	if got := Redact("remembered-value-" + v[:8]); got != "[redacted: provider key from config]" {
		t.Fatalf("Redact of a remembered value = %q", got)
	}
}

// BenchmarkStartup is what every oceancode process pays at start for
// clearing its environment block and becoming non-dumpable.
func BenchmarkStartup(b *testing.B) {
	for b.Loop() {
		if err := clearBlock(); err != nil {
			b.Fatal(err)
		}
		if err := nonDumpable(); err != nil {
			b.Fatal(err)
		}
	}
}
