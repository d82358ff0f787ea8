// Package secretenv keeps the secrets of oceancode's own environment out of
// reach of the processes it starts. Every binary links it — oceancode
// through internal/prestart (so its init runs before the model client is
// started), oceancode-model with a blank import, both CLIs through
// internal/cliapp — and its init
//
//   - takes every secret-named variable (internal/secret's Name: KEY,
//     SECRET, TOKEN, PASSWORD, …) out of the process's environment and keeps
//     it in memory: os.Getenv and os.Environ no longer return it;
//   - on Linux, clears the environment block the kernel shows in
//     /proc/<pid>/environ (Go has its own copy, which os.Getenv reads), so
//     no child — root included — reads a key there, nor a DATABASE_URL with
//     a password in it, nor the variable api_key_env names;
//   - makes the process non-dumpable (Linux PR_SET_DUMPABLE 0), so a child
//     running as the same non-root user cannot open /proc/<pid>/environ,
//     /proc/<pid>/mem or /proc/<pid>/fd, attach with ptrace or
//     process_vm_readv, and no core file is written.
//
// The program reads a captured variable with Getenv (the API key the
// provider config names), hands the whole original environment to
// agent/childenv with Environ (child_env.keep may keep a secret-named
// variable for children on purpose), hides variables the config names
// later with Hide (api_key_env need not be secret-named), and redacts the
// values of all of them with Redactor. What this does not cover — root
// children reading memory, the user's shell's own environment — is in
// SECURITY.md.
package secretenv

import (
	"maps"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/oceancode/oceancode/internal/secret"
)

var (
	mu       sync.Mutex
	captured = map[string]string{} // secret-named variables of the start environment
	hidden   = map[string]string{} // variables hidden later (Hide): never passed to children
	extra    []string              // values remembered (Remember)
	problem  error                 // why the environment block could not be rewritten
	redactor *secret.Redactor      // nil until asked for, reset by Hide
	version  uint64                // counts the changes to what Known returns
)

func init() { protect() }

// SandboxHelperArg is agent/sandbox.HelperArg: oceancode re-executed as
// the sandbox's helper, whose environment is already the composed child
// environment and is handed on to the command whole (child_env.keep may
// have kept a secret-named variable for it). A test in cmd/oceancode/cli
// holds the two equal.
const SandboxHelperArg = "__sandbox-exec"

// protect captures the secret-named variables, takes them out of the
// environment and makes the process non-dumpable.
func protect() {
	if len(os.Args) > 1 && os.Args[1] == SandboxHelperArg {
		problem = clearBlock()
		if err := nonDumpable(); err != nil && problem == nil {
			problem = err
		}
		return
	}
	var names []string
	for _, kv := range os.Environ() {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || !secret.Name(k) {
			continue
		}
		captured[k] = v
		names = append(names, k)
	}
	for _, k := range names {
		os.Unsetenv(k)
	}
	problem = clearBlock()
	if err := nonDumpable(); err != nil && problem == nil {
		problem = err
	}
}

// Err reports why the secrets could not be fully hidden (the environment
// block could not be cleared, the process could not be made
// non-dumpable), or nil. A run warns about it; it never stops one.
func Err() error {
	mu.Lock()
	defer mu.Unlock()
	return problem
}

// Getenv returns the variable's value: a captured or hidden secret, else
// os.Getenv's.
func Getenv(name string) string {
	mu.Lock()
	v, ok := captured[name]
	if !ok {
		v, ok = hidden[name]
	}
	mu.Unlock()
	if ok {
		return v
	}
	return os.Getenv(name)
}

// Environ returns the environment oceancode started with, less what Hide
// took out: os.Environ plus the captured secret-named variables. It is the
// parent environment agent/childenv composes children's from (and strips
// those variables again, unless child_env keeps them).
func Environ() []string {
	env := os.Environ()
	mu.Lock()
	defer mu.Unlock()
	for _, k := range slices.Sorted(maps.Keys(captured)) {
		if _, gone := hidden[k]; !gone {
			env = append(env, k+"="+captured[k])
		}
	}
	return env
}

// Hide takes the named variables out of the environment too (the variable
// the provider config's api_key_env names need not look secret): Getenv
// still returns them, Environ and os.Environ no longer do, so children do
// not inherit them. Unset names are ignored.
func Hide(names ...string) {
	mu.Lock()
	defer mu.Unlock()
	for _, k := range names {
		if v, ok := captured[k]; ok {
			hidden[k] = v
			continue
		}
		if _, ok := hidden[k]; ok || k == "" {
			continue
		}
		v, ok := os.LookupEnv(k)
		if !ok {
			continue
		}
		hidden[k] = v
		os.Unsetenv(k)
	}
	redactor = nil
	version++
}

// Remember adds values to those Redactor redacts (a key read from
// somewhere other than the environment).
func Remember(values ...string) {
	mu.Lock()
	defer mu.Unlock()
	extra = append(extra, values...)
	redactor = nil
	version++
}

// Redactor redacts the values of every captured and hidden variable, and
// credential shapes (see internal/secret): each value is replaced with
// "[redacted: NAME from environment]".
func Redactor() *secret.Redactor {
	mu.Lock()
	defer mu.Unlock()
	if redactor == nil {
		redactor = secret.NewKnownRedactor(knownLocked()...)
	}
	return redactor
}

// Known returns the values Redactor redacts, named: every captured and
// hidden variable by its name from "environment", then each remembered
// value as "provider key" from "config". version changes whenever the
// list does (Hide, Remember), so a caller can cache what it builds from
// it.
func Known() (known []secret.Known, version uint64) {
	mu.Lock()
	defer mu.Unlock()
	return knownLocked(), version
}

func knownLocked() []secret.Known {
	var out []secret.Known
	for _, vars := range []map[string]string{captured, hidden} {
		for _, k := range slices.Sorted(maps.Keys(vars)) {
			out = append(out, secret.Known{Name: k, Source: "environment", Value: vars[k]})
		}
	}
	for _, v := range extra {
		out = append(out, secret.Known{Name: "provider key", Source: "config", Value: v})
	}
	return out
}

// Redact is Redactor().Redact(s).
func Redact(s string) string { return Redactor().Redact(s) }

// Scrub is Redactor().Scrub(s): for crash reports and error messages.
func Scrub(s string) string { return Redactor().Scrub(s) }
