package layers

import (
	"os"
	"path/filepath"
	"runtime"
)

// SystemManagedDir is the OS managed dir (docs/configuration.md). Nothing
// changes it: tests name their own with Options.ManagedDir, and binaries
// built by tests with the build tag TestBuildTag take theirs from
// EnvTestManagedDir (testbuild.go). No environment variable or flag of a
// production build reaches it: a user cannot point the agent away from the
// administrator's policy.
func SystemManagedDir() string { return defaultManagedDir() }

// TestBuildTag is the build tag of test builds of the binaries; only they
// honour EnvTestManagedDir (SECURITY.md, docs/testing.md).
const TestBuildTag = "oceancodetest"

// EnvTestManagedDir names the managed dir in binaries built with
// TestBuildTag and in the test binaries that run the CLIs in-process. A
// production build ignores it.
const EnvTestManagedDir = "OC_TEST_MANAGED_DIR"

func defaultManagedDir() string {
	switch runtime.GOOS {
	case "darwin":
		return "/Library/Application Support/OceanCode"
	case "windows":
		pd := os.Getenv("ProgramData")
		if pd == "" {
			pd = `C:\ProgramData`
		}
		return filepath.Join(pd, "OceanCode")
	}
	return "/etc/oceancode"
}

// Environment variables the loader reads.
const (
	EnvManagedConfig = "OC_MANAGED_CONFIG"
	EnvRequirements  = "OC_REQUIREMENTS"
)

// The user's paths are read from the environment getenv gives, never
// from the process's own (os.UserHomeDir, os.UserConfigDir): a caller that
// injects an environment (every test) gets exactly the paths it named, and
// an environment without a home yields "" (no user config, no state), not
// the real user's files.

// homeDir is os.UserHomeDir over getenv.
func homeDir(getenv func(string) string) string {
	switch runtime.GOOS {
	case "windows":
		return getenv("USERPROFILE")
	case "plan9":
		return getenv("home")
	}
	return getenv("HOME")
}

// UserConfigDir returns the user's config dir for oceancode
// ($XDG_CONFIG_HOME/oceancode, ~/.config/oceancode, or the OS's
// equivalent); "" when the environment names no home.
func UserConfigDir(getenv func(string) string) string { return userConfigDir(getenv) }

func userConfigDir(getenv func(string) string) string {
	switch runtime.GOOS {
	case "windows":
		if d := getenv("AppData"); d != "" {
			return filepath.Join(d, "oceancode")
		}
		return ""
	case "darwin", "ios":
		if h := homeDir(getenv); h != "" {
			return filepath.Join(h, "Library", "Application Support", "oceancode")
		}
		return ""
	}
	if x := getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "oceancode")
	}
	if h := homeDir(getenv); h != "" {
		return filepath.Join(h, ".config", "oceancode")
	}
	return ""
}

// StateDir returns the user's state dir for oceancode:
// $XDG_STATE_HOME/oceancode, else ~/.local/state/oceancode; "" when the
// environment names no home.
func StateDir(getenv func(string) string) string {
	if x := getenv("XDG_STATE_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "oceancode")
	}
	if h := homeDir(getenv); h != "" {
		return filepath.Join(h, ".local", "state", "oceancode")
	}
	return ""
}

// ProjectRoot is the nearest ancestor of dir (dir included) holding
// .oceancode/ or .git; "" when there is none.
func ProjectRoot(dir string) string {
	dir, _ = filepath.Abs(dir)
	for {
		if fi, err := os.Stat(filepath.Join(dir, ".oceancode")); err == nil && fi.IsDir() {
			return dir
		}
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}
