package layers

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"

	"github.com/oceancode/oceancode/provenance"
	"github.com/oceancode/oceancode/requirements"
)

// systemRegistry: Resolve reads HKLM\SOFTWARE\Policies\OceanCode as the
// OS-native managed source (Windows).
const systemRegistry = runtime.GOOS == "windows"

// SystemManagedPreferences is the forced managed-preferences plist of
// dev.oceancode (macOS; "" on other systems) that Resolve reads as the
// OS-native managed source. Nothing changes it: tests name a plist with
// Options.ManagedPreferences (test builds with EnvTestManagedPreferences,
// testbuild.go).
func SystemManagedPreferences() string { return defaultManagedPreferences() }

// EnvTestManagedPreferences names the managed-preferences plist in binaries
// built with TestBuildTag (with EnvTestManagedDir set; unset: none). A
// production build ignores it.
const EnvTestManagedPreferences = "OC_TEST_MANAGED_PREFERENCES"

func defaultManagedPreferences() string {
	if runtime.GOOS == "darwin" {
		return ManagedPreferencesFile
	}
	return ""
}

// readOSSource reads the OS-native managed source Resolve consults: the
// plist Options.ManagedPreferences names (tests), none when a test moved
// the managed dir (Options.ManagedDir) without naming one, else the
// system's. No source is (nil, "", nil); a source that exists but cannot
// be trusted or parsed is an error (sessions are then refused). name is
// the source's path or key, for inspect.
func readOSSource(o Options) (m *OSManaged, name string, err error) {
	switch {
	case o.ManagedPreferences != "":
		name = o.ManagedPreferences
		m, err = readPreferencesFile(name, o.AnchorCheck)
	case o.ManagedDir != "":
		return nil, "", nil
	case SystemManagedPreferences() != "":
		name = SystemManagedPreferences()
		m, err = readPreferencesFile(name, o.AnchorCheck)
	case systemRegistry:
		name = `HKLM\` + PolicyRegistryKey
		m, err = ReadOSManaged()
	default:
		return nil, "", nil
	}
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrNoOSManaged) {
		return nil, "", nil
	}
	return m, name, err
}

// osSourceName names one value of an OS-native source in inspect, e.g.
// "/Library/Managed Preferences/dev.oceancode.plist#Requirements".
func osSourceName(m *OSManaged, value string) string { return m.Source + "#" + value }

// osPrecedence applies the rule between an OS-native source and the managed
// dir (docs/configuration.md): each of the three inputs comes from the OS
// source when it sets it, and the dir's counterpart is listed as ignored.
// (Resolve takes the anchors from it before.) It returns the managed files
// still to read from the dir and the requirements path and data.
func (r *Resolved) osPrecedence(osm *OSManaged, dir string, managedFiles []string, reqPath string) ([]string, string, []byte) {
	ignored := func(l provenance.Layer, path, value string) {
		if _, err := os.Lstat(path); err == nil {
			r.Layers = append(r.Layers, LayerInfo{Layer: l, Source: path, Status: StatusIgnored,
				Reason: fmt.Sprintf("ignored: the OS-managed source %s sets %s, which wins over the managed dir", osm.Source, value)})
		}
	}
	if osm.TrustedKeys != nil {
		ignored(provenance.Requirements, filepath.Join(dir, requirements.AnchorFile), OSValueTrustedKeys)
	}
	if osm.Managed != nil {
		for _, f := range managedFiles {
			ignored(provenance.Managed, f, OSValueManaged)
		}
		managedFiles = nil
	}
	var reqData []byte
	if osm.Requirements != nil {
		ignored(provenance.Requirements, reqPath, OSValueRequirements)
		reqPath, reqData = osSourceName(osm, OSValueRequirements), osm.Requirements
	}
	return managedFiles, reqPath, reqData
}
