// Package prestart starts oceancode's model client (oceancode-model, see
// agent/provider/remote) while the rest of the program is still being
// initialised. cmd/oceancode imports it for that side effect.
//
// Go initialises every linked package before main, which takes oceancode a
// few milliseconds; a `run` waits for the model client's own start-up
// before its first request. Started from this package's init — which has
// almost no dependencies, so it runs early — the client starts up on the
// second core while oceancode initialises on the first. Only the plain form
// `oceancode run …` is recognised here; any other start-up path starts the
// client later, from the command itself. A client nobody takes is killed
// with the process (see Spawn).
package prestart

import (
	"fmt"
	"os"
	"sync"

	// Its init runs first: it takes the secrets out of the environment
	// (and makes the process non-dumpable) before any child starts.
	_ "github.com/oceancode/oceancode/internal/secretenv"
	"github.com/oceancode/oceancode/internal/sibling"
)

// Binary is the model client's file name, installed beside oceancode.
const Binary = "oceancode-model"

// HelperArg is the model client's first argument; anything else makes it
// explain that it is internal and exit 2.
const HelperArg = "__model-serve"

// Process is a started model client and the parent's ends of its pipes.
type Process struct {
	Path   string
	Proc   *os.Process
	Stdin  *os.File // write end of the client's standard input
	Stdout *os.File // read end of its standard output
	Stderr *os.File // read end of its standard error
}

var (
	mu     sync.Mutex
	early  *Process
	taken  bool
	envVar = "OC_MODEL_PRESTART" // "0" turns the early start off
)

func init() {
	if len(os.Args) < 2 || os.Args[1] != "run" || os.Getenv(envVar) == "0" {
		return
	}
	self, err := os.Executable()
	if err != nil {
		return
	}
	path, ok := sibling.Find(self, Binary)
	if !ok {
		return // the command looks for it itself and explains
	}
	early, _ = spawn(path, true) // on failure the command starts it again and reports why
}

// Take returns the client started during initialisation, once, or nil.
func Take() *Process {
	mu.Lock()
	defer mu.Unlock()
	if taken {
		return nil
	}
	taken = true
	return early
}

// Release ends a client started during initialisation that nobody took
// (the command was not a run after all: `run --help`, a usage error): it is
// killed and reaped, so it does not outlive oceancode even as a zombie.
// main calls it before exiting.
func Release() {
	mu.Lock()
	p := early
	if taken {
		p = nil
	}
	taken = true
	mu.Unlock()
	if p == nil {
		return
	}
	_ = p.Proc.Kill()
	_, _ = p.Proc.Wait()
	p.Stdin.Close()
	p.Stdout.Close()
	p.Stderr.Close()
}

// Spawn starts the model client at path with three pipes, in its own
// process group (a Ctrl-C meant for oceancode must not kill a call the
// parent wants to cancel cleanly) and, on Linux, killed by the kernel if
// the parent dies without closing its input.
func Spawn(path string) (*Process, error) { return spawn(path, false) }

// EarlyEnv is set in the environment of a client started during
// initialisation (for diagnostics and tests; the client ignores it).
const EarlyEnv = "OC_MODEL_PRESTARTED=1"

func spawn(path string, early bool) (*Process, error) {
	var files [6]*os.File // child stdin, parent stdin; parent stdout, child stdout; parent stderr, child stderr
	var err error
	closeAll := func() {
		for _, f := range files {
			if f != nil {
				f.Close()
			}
		}
	}
	for i := 0; i < 3 && err == nil; i++ {
		files[2*i], files[2*i+1], err = os.Pipe()
	}
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("start model client %s: %w", path, err)
	}
	attr := &os.ProcAttr{Files: []*os.File{files[0], files[3], files[5]}, Sys: sysProcAttr()}
	if early {
		attr.Env = append(os.Environ(), EarlyEnv)
	}
	proc, err := os.StartProcess(path, []string{path, HelperArg}, attr)
	files[0].Close()
	files[3].Close()
	files[5].Close()
	if err != nil {
		files[1].Close()
		files[2].Close()
		files[4].Close()
		return nil, fmt.Errorf("start model client %s: %w", path, err)
	}
	return &Process{Path: path, Proc: proc, Stdin: files[1], Stdout: files[2], Stderr: files[4]}, nil
}
