//go:build linux

package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

type statInfo struct {
	mode fs.FileMode
	st   syscall.Stat_t
}

func (s statInfo) Name() string       { return "f" }
func (s statInfo) Size() int64        { return 0 }
func (s statInfo) Mode() fs.FileMode  { return s.mode }
func (s statInfo) ModTime() time.Time { return time.Time{} }
func (s statInfo) IsDir() bool        { return s.mode.IsDir() }
func (s statInfo) Sys() any           { return &s.st }

// TestUnreadableByCommand: a system secret is left unmasked only when the
// command's credentials cannot read it by its mode bits, and never as
// root, with an ACL, or for anything but a regular file.
func TestUnreadableByCommand(t *testing.T) {
	oldC, oldA := sysCreds, sysHasACL
	t.Cleanup(func() { sysCreds, sysHasACL = oldC, oldA })
	const shadowGID = 42
	file := func(perm fs.FileMode, uid, gid uint32) statInfo {
		return statInfo{mode: perm, st: syscall.Stat_t{Uid: uid, Gid: gid}}
	}
	for _, tc := range []struct {
		name       string
		fi         fs.FileInfo
		uid, gid   uint32
		groups     []uint32
		acl        bool
		unreadable bool
	}{
		{"shadow, user outside the group", file(0o640, 0, shadowGID), 1000, 1000, []uint32{1000, 27}, false, true},
		{"shadow, user in the group", file(0o640, 0, shadowGID), 1000, 1000, []uint32{1000, shadowGID}, false, false},
		{"shadow, primary group", file(0o640, 0, shadowGID), 1000, shadowGID, nil, false, false},
		{"shadow as root", file(0o640, 0, shadowGID), 0, 0, nil, false, false},
		{"mode 0000 as root", file(0o000, 0, 0), 0, 0, nil, false, false},
		{"host key 0600", file(0o600, 0, 0), 65534, 65534, nil, false, true},
		{"world-readable", file(0o644, 0, 0), 65534, 65534, nil, false, false},
		{"own file", file(0o600, 1000, 1000), 1000, 1000, nil, false, false},
		{"own file without read", file(0o200, 1000, 1000), 1000, 1000, nil, false, true},
		{"with an ACL", file(0o600, 0, 0), 65534, 65534, nil, true, false},
		{"symlink", statInfo{mode: fs.ModeSymlink | 0o777}, 65534, 65534, nil, false, false},
		{"not the kernel's metadata", fakeFileInfo{name: "shadow"}, 65534, 65534, nil, false, false},
	} {
		sysCreds = func() (uint32, uint32, []uint32) { return tc.uid, tc.gid, tc.groups }
		sysHasACL = func(string) bool { return tc.acl }
		if got := unreadableByCommand("/etc/x", tc.fi); got != tc.unreadable {
			t.Errorf("%s: unreadable = %v, want %v", tc.name, got, tc.unreadable)
		}
	}
}

// TestSystemSecretMasks: as root every existing system secret is masked;
// for credentials that cannot read /etc/shadow it is not (a mask would
// change nothing). TestAsNobody checks that it stays unreadable in the
// real sandbox.
func TestSystemSecretMasks(t *testing.T) {
	fi, err := os.Lstat("/etc/shadow")
	if err != nil || fi.Mode().Perm()&0o004 != 0 {
		t.Skip("no /etc/shadow unreadable to others here")
	}
	oldC := sysCreds
	t.Cleanup(func() { sysCreds = oldC })
	ws := t.TempDir()
	plan := func() string {
		pl, err := buildPlan(Policy{Mode: ModeWorkspaceWrite, Workspace: ws}, Env{Helper: "/usr/bin/true", Home: filepath.Join(ws, "home")})
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(pl.args, " ")
	}
	sysCreds = func() (uint32, uint32, []uint32) { return 0, 0, nil }
	if a := plan(); !strings.Contains(a, "--ro-bind /dev/null /etc/shadow") {
		t.Errorf("as root /etc/shadow is not masked: %s", a)
	}
	sysCreds = func() (uint32, uint32, []uint32) { return 65534, 65534, nil }
	if a := plan(); strings.Contains(a, "/etc/shadow") {
		t.Errorf("as uid 65534 /etc/shadow is masked although it cannot be read: %s", a)
	}
}
