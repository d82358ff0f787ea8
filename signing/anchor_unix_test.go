//go:build unix

package signing

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestReadAnchorFile(t *testing.T) {
	if os.Geteuid() != 0 {
		// The ownership cases chown files to another user.
		t.Fatal("TestReadAnchorFile needs root (CAP_CHOWN) to test ownership checks; run the tests as root, as CI does")
	}
	a, b := testKey("a").Public(), testKey("b").Public()
	content := "# acme trust anchor\n" + a.Line() + "\n" + b.Line() + "\n"
	me := os.Getuid()
	check := AnchorCheck{WantUID: me}

	// setup makes <tmp>/top/etc/trusted_keys (dirs 0755, file 0644) and
	// returns the file path; mutate may change the tree before reading.
	setup := func(t *testing.T) (top, dir, file string) {
		top = filepath.Join(t.TempDir(), "top")
		dir = filepath.Join(top, "etc")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		must(t, os.Chmod(top, 0o755))
		must(t, os.Chmod(dir, 0o755))
		file = filepath.Join(dir, "trusted_keys")
		must(t, os.WriteFile(file, []byte(content), 0o644))
		must(t, os.Chmod(file, 0o644)) // regardless of umask
		return top, dir, file
	}
	tests := []struct {
		name     string
		mutate   func(t *testing.T, top, dir, file string) string // returns the path to read
		sentinel error
		want     []string
	}{
		{"good", nil, nil, nil},
		{"good read-only", func(t *testing.T, top, dir, file string) string {
			must(t, os.Chmod(file, 0o444))
			return file
		}, nil, nil},
		{"good owner-only", func(t *testing.T, top, dir, file string) string {
			must(t, os.Chmod(file, 0o600))
			must(t, os.Chmod(dir, 0o700))
			return file
		}, nil, nil},
		{"good sticky world-writable ancestor", func(t *testing.T, top, dir, file string) string {
			must(t, os.Chmod(top, 0o777|fs.ModeSticky))
			return file
		}, nil, nil},
		{"group-writable", func(t *testing.T, top, dir, file string) string {
			must(t, os.Chmod(file, 0o664))
			return file
		}, ErrAnchor, []string{"the trust anchor ", "is group-writable", "mode 0664", "fix with: chmod 0644 " + "<file>"}},
		{"world-writable", func(t *testing.T, top, dir, file string) string {
			must(t, os.Chmod(file, 0o646))
			return file
		}, ErrAnchor, []string{"is world-writable", "mode 0646", "chmod 0644"}},
		{"group- and world-writable", func(t *testing.T, top, dir, file string) string {
			must(t, os.Chmod(file, 0o666))
			return file
		}, ErrAnchor, []string{"is group- and world-writable"}},
		{"wrong owner", func(t *testing.T, top, dir, file string) string {
			must(t, os.Chown(file, 12345, 12345))
			return file
		}, ErrAnchor, []string{"<file> is not owned by uid " + fmt.Sprint(me), "owner uid 12345", "fix with: chown " + ownerFix(me) + " <file>"}},
		{"symlink", func(t *testing.T, top, dir, file string) string {
			link := filepath.Join(dir, "link")
			must(t, os.Symlink(file, link))
			return link
		}, ErrAnchor, []string{"is a symlink"}},
		{"symlink to user file", func(t *testing.T, top, dir, file string) string {
			other := filepath.Join(top, "user_keys")
			must(t, os.WriteFile(other, []byte(content), 0o644))
			must(t, os.Chown(other, 12345, 12345))
			must(t, os.Remove(file))
			must(t, os.Symlink(other, file))
			return file
		}, ErrAnchor, []string{"is a symlink"}},
		{"dangling symlink", func(t *testing.T, top, dir, file string) string {
			must(t, os.Remove(file))
			must(t, os.Symlink(filepath.Join(dir, "nowhere"), file))
			return file
		}, ErrAnchor, []string{"is a symlink"}},
		{"dir world-writable", func(t *testing.T, top, dir, file string) string {
			must(t, os.Chmod(dir, 0o777))
			return file
		}, ErrAnchor, []string{"the trust anchor's directory <dir> is group- and world-writable", "chmod 0755 <dir>"}},
		{"dir sticky world-writable", func(t *testing.T, top, dir, file string) string {
			must(t, os.Chmod(dir, 0o777|fs.ModeSticky))
			return file
		}, ErrAnchor, []string{"the trust anchor's directory", "mode 1777"}},
		{"dir group-writable", func(t *testing.T, top, dir, file string) string {
			must(t, os.Chmod(dir, 0o775))
			return file
		}, ErrAnchor, []string{"directory <dir> is group-writable"}},
		{"dir wrong owner", func(t *testing.T, top, dir, file string) string {
			must(t, os.Chown(dir, 12345, 12345))
			return file
		}, ErrAnchor, []string{"directory <dir> is not owned", "owner uid 12345", "chown " + ownerFix(me) + " <dir>"}},
		{"ancestor world-writable", func(t *testing.T, top, dir, file string) string {
			must(t, os.Chmod(top, 0o777))
			return file
		}, ErrAnchor, []string{"a directory above the trust anchor <top> is group- and world-writable"}},
		{"ancestor wrong owner", func(t *testing.T, top, dir, file string) string {
			must(t, os.Chown(top, 12345, 12345))
			return file
		}, ErrAnchor, []string{"a directory above the trust anchor <top> is not owned"}},
		{"dir is a symlink to a safe dir", func(t *testing.T, top, dir, file string) string {
			link := filepath.Join(top, "linkdir")
			must(t, os.Symlink(dir, link))
			return filepath.Join(link, "trusted_keys")
		}, nil, nil},
		{"dir is a symlink into a user dir", func(t *testing.T, top, dir, file string) string {
			user := filepath.Join(top, "home")
			must(t, os.Mkdir(user, 0o755))
			must(t, os.Chown(user, 12345, 12345))
			must(t, os.Mkdir(filepath.Join(user, "etc"), 0o755))
			must(t, os.WriteFile(filepath.Join(user, "etc", "trusted_keys"), []byte(content), 0o644))
			link := filepath.Join(top, "linkdir")
			must(t, os.Symlink(filepath.Join(user, "etc"), link))
			return filepath.Join(link, "trusted_keys")
		}, ErrAnchor, []string{"a directory above the trust anchor", "/home is not owned"}},
		{"missing", func(t *testing.T, top, dir, file string) string {
			must(t, os.Remove(file))
			return file
		}, fs.ErrNotExist, []string{"signing: read trust anchor: open <file>"}},
		{"directory", func(t *testing.T, top, dir, file string) string {
			must(t, os.Remove(file))
			must(t, os.Mkdir(file, 0o755))
			return file
		}, ErrAnchor, []string{"is not a regular file"}},
		{"fifo", func(t *testing.T, top, dir, file string) string {
			must(t, os.Remove(file))
			must(t, syscall.Mkfifo(file, 0o644))
			return file
		}, ErrAnchor, []string{"is not a regular file"}},
		{"empty", func(t *testing.T, top, dir, file string) string {
			must(t, os.WriteFile(file, nil, 0o644))
			return file
		}, ErrAnchor, []string{"<file>: no public key in the key list"}},
		{"bad key", func(t *testing.T, top, dir, file string) string {
			must(t, os.WriteFile(file, []byte(a.Line()+"\nssh-rsa AAAA\n"), 0o644))
			return file
		}, ErrAnchor, []string{"<file>: line 2: ssh key type ssh-rsa"}},
		{"too large", func(t *testing.T, top, dir, file string) string {
			must(t, os.WriteFile(file, make([]byte, maxAnchorSize+1), 0o644))
			return file
		}, ErrAnchor, []string{"larger than"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			top, dir, file := setup(t)
			path := file
			if tc.mutate != nil {
				path = tc.mutate(t, top, dir, file)
			}
			done := make(chan struct{})
			var (
				keys []PublicKey
				err  error
			)
			go func() {
				defer close(done)
				keys, err = ReadAnchorFile(path, check)
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("ReadAnchorFile hangs")
			}
			if tc.sentinel == nil {
				checkErr(t, err, nil, "")
				if diff := cmp.Diff([]PublicKey{a, b}, keys); diff != "" {
					t.Errorf("keys (-want +got):\n%s", diff)
				}
				return
			}
			if keys != nil {
				t.Error("keys returned with an error")
			}
			checkErr(t, err, tc.sentinel, "")
			t.Log(err)
			if tc.sentinel == fs.ErrNotExist && errors.Is(err, ErrAnchor) {
				t.Error("a missing anchor is reported as ErrAnchor")
			}
			r := strings.NewReplacer("<file>", file, "<dir>", dir, "<top>", top).Replace
			for _, w := range tc.want {
				checkErr(t, err, tc.sentinel, r(w))
			}
		})
	}

	t.Run("production owner", func(t *testing.T) {
		// With WantUID 0 a root-owned file passes and the fix says root:root.
		_, _, file := setup(t)
		_, err := ReadAnchorFile(file, AnchorCheck{WantUID: 0})
		checkErr(t, err, nil, "")
		must(t, os.Chown(file, 12345, 0))
		_, err = ReadAnchorFile(file, AnchorCheck{})
		checkErr(t, err, ErrAnchor, "fix with: chown root:root "+file)
	})
	t.Run("other owner wanted", func(t *testing.T) {
		_, dir, file := setup(t)
		must(t, os.Chown(file, 12345, 12345))
		must(t, os.Chown(dir, 12345, 12345))
		keys, err := ReadAnchorFile(file, AnchorCheck{WantUID: 12345})
		checkErr(t, err, nil, "")
		if len(keys) != 2 {
			t.Errorf("%d keys", len(keys))
		}
	})
}

func ownerFix(uid int) string {
	if uid == 0 {
		return "root:root"
	}
	return fmt.Sprint(uid)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
