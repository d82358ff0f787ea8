//go:build unix

package layers

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/oceancode/oceancode/signing"
)

// TestManagedPreferencesTrust: the managed-preferences file is read only
// when it passes the admin anchor's checks, as macOS leaves it (root-owned,
// 0644): a file another user owns, a writable one or a symlink is refused.
func TestManagedPreferencesTrust(t *testing.T) {
	t.Parallel()
	if os.Getuid() != 0 {
		t.Skip("needs root to give files away")
	}
	plist := []byte(`<?xml version="1.0"?><plist version="1.0"><dict><key>Managed</key><string>{}</string></dict></plist>`)
	dir := filepath.Join(t.TempDir(), "Managed Preferences")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "dev.oceancode.plist")
	if err := os.WriteFile(path, plist, 0o644); err != nil {
		t.Fatal(err)
	}
	c := signing.AnchorCheck{WantUID: 0}
	m, err := readManagedPreferences(path, c)
	if err != nil || string(m.Managed) != "{}" || m.Source != path {
		t.Fatalf("a root-owned 0644 file: %+v, %v", m, err)
	}
	if _, err := readManagedPreferences(filepath.Join(dir, "missing.plist"), c); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v, want fs.ErrNotExist", err)
	}
	refused := func(what string) {
		t.Helper()
		if _, err := readManagedPreferences(path, c); !errors.Is(err, signing.ErrAnchor) {
			t.Errorf("%s: %v, want ErrAnchor", what, err)
		}
	}
	if err := os.Chmod(path, 0o666); err != nil {
		t.Fatal(err)
	}
	refused("a world-writable file")
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(path, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	refused("a file owned by nobody")
	if err := os.Chown(path, 0, 0); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	refused("a world-writable directory")
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.plist")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	if _, err := readManagedPreferences(link, c); !errors.Is(err, signing.ErrAnchor) {
		t.Errorf("a symlink: %v, want ErrAnchor", err)
	}
	if err := os.WriteFile(path, []byte("<plist><array/></plist>"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readManagedPreferences(path, c); err == nil {
		t.Error("a plist that is not a dictionary was accepted")
	}
}
