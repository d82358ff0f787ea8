//go:build linux && (amd64 || arm64)

package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/oceancode/oceancode/internal/exechelper"
)

// The test binary doubles as the oceancode binary's helper (HelperMain, the
// exact code the CLI's hidden helper mode calls) and as an attack tool run
// inside the sandbox (system calls a shell cannot make).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case HelperArg:
			err := HelperMain(os.Args[2:])
			var es *ExitStatus
			if errors.As(err, &es) {
				os.Exit(es.Code)
			}
			fmt.Fprintln(os.Stderr, "oceancode:", err)
			os.Exit(HelperExitCode(err))
		case "__attack":
			os.Exit(attackMain(os.Args[2:]))
		case "__agent":
			os.Exit(agentMain(os.Args[2:], false))
		case "__agent-off":
			os.Exit(agentMain(os.Args[2:], true))
		case "__nobody-fd":
			os.Exit(nobodyFDMain(os.Args[2:]))
		case "__nobody-spawn":
			os.Exit(nobodySpawnMain(os.Args[2:]))
		case "__nobody-supervised":
			os.Exit(nobodySupervisedMain(os.Args[2:]))
		case "__nobody-secrets":
			os.Exit(nobodySecretsMain(os.Args[2:]))
		}
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	HelperPath = exe
	testROBinds = []string{exe}
	// The exec helper users get (the C program), unless this run checks
	// the Go helper's fallback (TestGoHelperFallback).
	if os.Getenv(envGoHelperOnly) == "" {
		if ExecHelperPath, err = exechelper.Build(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	code := m.Run()
	exechelper.Cleanup()
	os.Exit(code)
}

// envExecHelper hands the exec helper's path to an agent started by
// startAgent ("": the Go helper alone).
const envExecHelper = "OCEANCODE_TEST_EXEC_HELPER"

// envGoHelperOnly set makes this test binary run its sandboxes with the Go
// helper alone, as on a machine where the exec helper is not installed.
const envGoHelperOnly = "OCEANCODE_TEST_GO_HELPER_ONLY"

// TestGoHelperFallback runs the attack suite's core again with the Go
// helper doing what the exec helper does (Landlock, limits, descriptors;
// bubblewrap loads seccomp for both), in a child test process.
func TestGoHelperFallback(t *testing.T) {
	if os.Getenv(envGoHelperOnly) != "" {
		t.Skip("this is the fallback run")
	}
	if testing.Short() {
		t.Skip("-short")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	run := "^(TestAttack(WritesOutsideWorkspace|ProtectedPathsInsideWorkspace|CredentialReads|NetworkEgress|ProcSysWrites|VsockAndIoUring|NamespacesAndCapabilities|HelperInWorkspace|DenyRootOverProtectedPath)|TestHelperHoldsNoCapability|TestDisableUsernsWithoutSeccomp|TestOnlyStdioReachesCommand|TestProcessLimitBounds|TestModesWorkAsAdvertised|TestGitDirsProtected|TestHistorySurvivesDestructiveCommands|TestGitHistoryWorkflowInside|TestSupervised.*|TestCommandKeepsGOMAXPROCS)$"
	cmd := exec.Command(exe, "-test.run", run, "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), envGoHelperOnly+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the suite with the Go helper: %v\n%s", err, out)
	}
	for _, name := range []string{"TestAttackWritesOutsideWorkspace", "TestAttackVsockAndIoUring", "TestAttackNamespacesAndCapabilities", "TestHelperHoldsNoCapability", "TestOnlyStdioReachesCommand", "TestGitDirsProtected", "TestHistorySurvivesDestructiveCommands", "TestGitHistoryWorkflowInside"} {
		if !strings.Contains(string(out), "--- PASS: "+name) {
			t.Errorf("the fallback run did not pass %s:\n%s", name, out)
		}
	}
}

// attackMain runs one attack and prints "ALLOWED" or "DENIED: <errno>";
// the exit status is 0 when the attack got through.
func attackMain(args []string) int {
	if len(args) == 0 {
		return 2
	}
	report := func(err error) int {
		if err != nil {
			fmt.Printf("DENIED: %v\n", err)
			return 1
		}
		fmt.Println("ALLOWED")
		return 0
	}
	dial := func(network, addr string, payload []byte) error {
		c, err := net.DialTimeout(network, addr, time.Second)
		if err != nil {
			return err
		}
		defer c.Close()
		_, err = c.Write(payload)
		return err
	}
	switch args[0] {
	case "spawn":
		// Start up to 96 sleeping children, one by one (never a fork
		// loop: each is waited for at the end), and print how many ran.
		var started []*os.Process
		sleep, _ := exec.LookPath("sleep")
		for i := 0; i < 96; i++ {
			p, err := os.StartProcess(sleep, []string{"sleep", "30"}, &os.ProcAttr{})
			if err == nil {
				started = append(started, p)
			}
		}
		fmt.Printf("running=%d\n", len(started))
		for _, p := range started {
			p.Kill()
			p.Wait()
		}
		return 0
	case "vsock":
		fd, err := unix.Socket(unix.AF_VSOCK, unix.SOCK_STREAM, 0)
		if err == nil {
			unix.Close(fd)
		}
		return report(err)
	case "unshare-user":
		return report(unix.Unshare(unix.CLONE_NEWUSER))
	case "clone-user":
		// A raw clone into a new user namespace (the child exits at once).
		pid, _, errno := unix.RawSyscall6(unix.SYS_CLONE, unix.CLONE_NEWUSER|uintptr(unix.SIGCHLD), 0, 0, 0, 0, 0)
		if errno != 0 {
			return report(errno)
		}
		if pid == 0 {
			unix.RawSyscall(unix.SYS_EXIT_GROUP, 0, 0, 0)
		}
		return report(nil)
	case "clone3":
		args := make([]byte, 88) // struct clone_args, all zero but exit_signal
		args[32] = byte(unix.SIGCHLD)
		pid, _, errno := unix.RawSyscall(unix.SYS_CLONE3, uintptr(unsafePointer(args)), 88, 0)
		if errno != 0 {
			return report(errno)
		}
		if pid == 0 {
			unix.RawSyscall(unix.SYS_EXIT_GROUP, 0, 0, 0)
		}
		return report(nil)
	case "umount":
		return report(unix.Unmount(args[1], unix.MNT_DETACH))
	case "iouring":
		params := make([]byte, 120)
		fd, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, 4, uintptr(unsafePointer(params)), 0)
		if errno != 0 {
			return report(errno)
		}
		unix.Close(int(fd))
		return report(nil)
	case "tcp":
		return report(dial("tcp4", args[1], []byte("hello")))
	case "udp":
		return report(dial("udp4", args[1], []byte("hello")))
	case "unix":
		return report(dial("unix", args[1], []byte("hello")))
	case "dns":
		r := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "udp4", args[1])
		}}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_, err := r.LookupHost(ctx, "exfil.example.com")
		return report(err)
	case "proxy-get":
		// A client that uses the proxy from HTTPS_PROXY for both schemes
		// (Go's own environment lookup skips the proxy for loopback
		// targets). Prints the status and the body.
		pu, err := url.Parse(os.Getenv("HTTPS_PROXY"))
		if err != nil || pu.Host == "" {
			return report(fmt.Errorf("no HTTPS_PROXY: %q", os.Getenv("HTTPS_PROXY")))
		}
		tr := &http.Transport{Proxy: http.ProxyURL(pu), TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}
		c := &http.Client{Transport: tr, Timeout: 5 * time.Second}
		resp, err := c.Get(args[1])
		if err != nil {
			return report(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Printf("STATUS %d\n%s", resp.StatusCode, body)
		if resp.StatusCode != http.StatusOK {
			return 1
		}
		return 0
	case "proxy-raw":
		// proxy-raw CONNECT|GET host:port: one raw request to the
		// forwarder; prints the response head and body.
		pu, err := url.Parse(os.Getenv("HTTP_PROXY"))
		if err != nil || pu.Host == "" {
			return report(fmt.Errorf("no HTTP_PROXY: %q", os.Getenv("HTTP_PROXY")))
		}
		c, err := net.DialTimeout("tcp", pu.Host, time.Second)
		if err != nil {
			return report(err)
		}
		defer c.Close()
		if args[1] == "CONNECT" {
			fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", args[2], args[2])
		} else {
			fmt.Fprintf(c, "GET http://%s/ HTTP/1.1\r\nHost: %s\r\n\r\n", args[2], args[2])
		}
		c.SetReadDeadline(time.Now().Add(3 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return report(err)
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		fmt.Printf("STATUS %d\n%s", resp.StatusCode, body)
		return 0
	case "kill":
		pid, _ := strconv.Atoi(args[1])
		return report(unix.Kill(pid, unix.SIGKILL))
	case "ptrace":
		pid, _ := strconv.Atoi(args[1])
		err := unix.PtraceAttach(pid)
		return report(err)
	}
	return 2
}

// agentMain plays an agent that runs a command (sandboxed, or with the
// sandbox off under the supervisor) and is then killed: it prints the
// command's start and blocks.
func agentMain(args []string, supervised bool) int {
	exe, _ := os.Executable()
	HelperPath, testROBinds = exe, []string{exe}
	ExecHelperPath = os.Getenv(envExecHelper)
	start, p := Command, Policy{Enabled: true, Workspace: args[0]}
	if supervised {
		start, p = Supervised, Policy{Workspace: args[0]}
	}
	c, err := start(context.Background(), p, args[1:], os.Environ())
	if err != nil {
		fmt.Println("ERR", err)
		return 1
	}
	c.Stdout = os.Stdout
	if err := c.Start(); err != nil {
		fmt.Println("ERR", err)
		return 1
	}
	fmt.Println("STARTED")
	_ = c.Wait()
	return 0
}

// startAgent starts this test binary as an agent (verb __agent or
// __agent-off) and returns once it has started its command.
func startAgent(t *testing.T, verb string, args ...string) *exec.Cmd {
	t.Helper()
	exe, _ := os.Executable()
	agent := exec.Command(exe, append([]string{verb}, args...)...)
	// The agent runs its commands with this run's helpers: the exec
	// helper (C: the supervisor of a sandbox-off command, too) unless this
	// is the Go helper's fallback run.
	agent.Env = append(os.Environ(), envExecHelper+"="+ExecHelperPath)
	out, err := agent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { agent.Process.Kill(); agent.Wait() })
	buf := make([]byte, 64)
	n, _ := out.Read(buf)
	if !strings.Contains(string(buf[:n]), "STARTED") {
		t.Fatalf("agent: %q", buf[:n])
	}
	return agent
}

// requireSandbox fails (never skips) when this machine cannot run the
// sandbox: the suite's point is to prove the confinement, and a machine
// that cannot must not pass quietly. scripts/install-bwrap.sh fixes it.
func requireSandbox(t *testing.T) Support {
	t.Helper()
	s := cachedSupport()
	if err := s.Usable(); err != nil {
		t.Fatalf("%v (run scripts/install-bwrap.sh)", err)
	}
	return s
}

type result struct {
	out, errOut string
	code        int
}

// run runs a shell script under p with extra environment variables.
func run(t *testing.T, p Policy, script string, env ...string) result {
	t.Helper()
	return runArgv(t, p, []string{"/bin/sh", "-c", script}, env...)
}

func runArgv(t *testing.T, p Policy, argv []string, env ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := Command(ctx, p, argv, append(os.Environ(), env...))
	if err != nil {
		t.Fatalf("Command: %v", err)
	}
	var so, se bytes.Buffer
	c.Stdout, c.Stderr = &so, &se
	err = c.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run: %v", err)
	}
	return result{out: so.String(), errOut: se.String(), code: code}
}

// processesWith lists host processes whose command line contains token
// (with spaces between arguments).
func processesWith(token string) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		if strings.Contains(string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})), token) {
			pids = append(pids, pid)
		}
	}
	return pids
}

func processAlive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// A zombie is not alive.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}

// nobodySpawnMain runs the spawn attack in a sandbox limited to 32
// processes (run as uid 65534 by TestAsNobody).
func nobodySpawnMain(args []string) int {
	exe, _ := os.Executable()
	HelperPath, testROBinds = exe, []string{exe}
	p := Policy{Enabled: true, Workspace: args[0], Limits: Limits{Processes: 32}}
	return runToStdout(p, []string{exe, "__attack", "spawn"}, []string{"PATH=/usr/bin:/bin"})
}

// runToStdout runs argv under p with this process's stdout and stderr and
// returns the exit code a test-binary verb reports.
func runToStdout(p Policy, argv, env []string) int {
	c, err := Command(context.Background(), p, argv, env)
	if err != nil {
		fmt.Println("ERR", err)
		return 1
	}
	c.Stdout, c.Stderr = os.Stdout, os.Stderr
	if err := c.Run(); err != nil {
		fmt.Println("ERR", err)
		return 1
	}
	return 0
}

// nobodySecretsMain says whether the plan masks /etc/shadow, then reads
// the system secrets in a read-only sandbox (run as uid 65534).
func nobodySecretsMain(args []string) int {
	exe, _ := os.Executable()
	HelperPath, testROBinds = exe, []string{exe}
	p := Policy{Mode: ModeReadOnly, Workspace: args[0]}
	if a, err := BwrapArgs(p, Env{Helper: exe}); err == nil && strings.Contains(strings.Join(a, " "), "/etc/shadow") {
		fmt.Println("MASKED")
	}
	return runToStdout(p, []string{"/bin/sh", "-c", "cat /etc/shadow /etc/gshadow 2>&1; echo RC=$?"}, []string{"PATH=/usr/bin:/bin"})
}

// nobodySupervisedMain runs a shell script with the sandbox off under the
// supervisor and prints DONE once Wait returned.
func nobodySupervisedMain(args []string) int {
	exe, _ := os.Executable()
	HelperPath, testROBinds = exe, []string{exe}
	c, err := Supervised(context.Background(), Policy{Workspace: args[0]}, []string{"/bin/sh", "-c", args[1]}, []string{"PATH=/usr/bin:/bin"})
	if err != nil {
		fmt.Println("ERR", err)
		return 1
	}
	if err := c.Run(); err != nil {
		fmt.Println("ERR", err)
		return 1
	}
	fmt.Println("DONE")
	return 0
}
