package layers

import (
	"os"
	"path/filepath"
	"runtime"
)

// SystemManagedDir is the OS managed dir (spec/config.md). It is a variable
// only so the package's own tests and the CLI's test binary can point it at a
// temporary directory; production code never changes it, and no environment
// variable or flag can.
var SystemManagedDir = defaultManagedDir()

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

func userConfigDir(getenv func(string) string) string {
	if runtime.GOOS == "linux" || runtime.GOOS == "freebsd" || runtime.GOOS == "openbsd" {
		if x := getenv("XDG_CONFIG_HOME"); x != "" {
			return filepath.Join(x, "oceancode")
		}
		if h := getenv("HOME"); h != "" {
			return filepath.Join(h, ".config", "oceancode")
		}
	}
	d, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "oceancode")
}

// StateDir returns the user's state dir for oceancode:
// $XDG_STATE_HOME/oceancode, else ~/.local/state/oceancode.
func StateDir(getenv func(string) string) string {
	if x := getenv("XDG_STATE_HOME"); x != "" {
		return filepath.Join(x, "oceancode")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".local", "state", "oceancode")
	}
	if h, err := os.UserHomeDir(); err == nil {
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
