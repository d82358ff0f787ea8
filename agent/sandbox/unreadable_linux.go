//go:build linux

package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"slices"
	"syscall"

	"golang.org/x/sys/unix"
)

func init() { sysUnreadable = unreadableByCommand }

// sysCreds are the effective uid, gid and supplementary groups the command
// runs with: the agent's own (bubblewrap maps them unchanged; the command
// has no capabilities and no_new_privs, so nothing raises them).
var sysCreds = func() (uid, gid uint32, groups []uint32) {
	gs, _ := os.Getgroups()
	for _, g := range gs {
		groups = append(groups, uint32(g))
	}
	return uint32(os.Geteuid()), uint32(os.Getegid()), groups
}

// sysHasACL reports an access ACL on p (which may grant what the mode
// bits do not show); on any doubt it says yes.
var sysHasACL = func(p string) bool {
	_, err := unix.Lgetxattr(p, "system.posix_acl_access", nil)
	return !errors.Is(err, unix.ENODATA) && !errors.Is(err, unix.EOPNOTSUPP)
}

// unreadableByCommand reports a regular file that the command's
// credentials cannot read by its mode bits: /etc/shadow (0640 root:shadow)
// for a user outside the shadow group, the SSH host keys (0600 root). It
// decides from the file's metadata alone, never opening it, and keeps the
// mask on any doubt: as root (the owner of these files reads them even
// without capabilities), for a file with an ACL, or when the metadata is
// not the kernel's.
func unreadableByCommand(p string, fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || !fi.Mode().IsRegular() {
		return false
	}
	uid, gid, groups := sysCreds()
	if uid == 0 || sysHasACL(p) {
		return false
	}
	perm := fi.Mode().Perm()
	switch {
	case uid == st.Uid:
		return perm&0o400 == 0
	case gid == st.Gid || slices.Contains(groups, st.Gid):
		return perm&0o040 == 0
	}
	return perm&0o004 == 0
}
