//go:build linux && (amd64 || arm64)

package helper

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// seccompDenied are the system calls refused with EPERM in every confined
// command: io_uring (its operations bypass seccomp and have been a steady
// source of kernel escapes) and the kernel keyrings (not namespaced).
var seccompDenied = []uint32{
	unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER,
	unix.SYS_KEYCTL, unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY,
}

// seccompArch is the audit architecture of the running binary; a system
// call made through another ABI (int 0x80 on amd64) kills the process.
func seccompArch() uint32 {
	if runtime.GOARCH == "arm64" {
		return unix.AUDIT_ARCH_AARCH64
	}
	return unix.AUDIT_ARCH_X86_64
}

const (
	offNr   = 0
	offArch = 4
	offArg0 = 16 // low 32 bits of args[0] on little-endian
)

// seccompProgram builds the filter: foreign architectures are killed, x32
// system calls, io_uring and keyrings get EPERM, socket(AF_VSOCK) gets EPERM
// and, with denyUnix, socket(AF_UNIX) too (socketpair stays allowed). New
// user namespaces are refused: unshare and clone with CLONE_NEWUSER get
// EPERM, and clone3, whose flags a filter cannot read, ENOSYS (the C
// library and Go then fall back to clone), as container runtimes' default
// profiles do. This is the second lock: bubblewrap's --disable-userns,
// on every path, leaves the sandbox's user namespace no room for another
// (user.max_user_namespaces 0: ENOSPC where the filter does not run first).
func seccompProgram(denyUnix bool) []unix.SockFilter {
	type ins struct {
		f      unix.SockFilter
		jt, jf string // labels, "" = next
	}
	var prog []ins
	stmt := func(code uint16, k uint32) { prog = append(prog, ins{f: unix.SockFilter{Code: code, K: k}}) }
	jeq := func(k uint32, jt, jf string) {
		prog = append(prog, ins{f: unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: k}, jt: jt, jf: jf})
	}
	labels := map[string]int{}
	label := func(name string) { labels[name] = len(prog) }

	stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offArch)
	jeq(seccompArch(), "", "kill")
	stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offNr)
	if runtime.GOARCH == "amd64" {
		prog = append(prog, ins{f: unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K, K: 0x40000000}, jt: "eperm"})
	}
	for _, nr := range seccompDenied {
		jeq(nr, "eperm", "")
	}
	jeq(unix.SYS_CLONE3, "enosys", "")
	jeq(unix.SYS_UNSHARE, "nsflags", "")
	jeq(unix.SYS_CLONE, "nsflags", "")
	jeq(unix.SYS_SOCKET, "socket", "allow")
	label("nsflags")
	stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offArg0)
	prog = append(prog, ins{f: unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K, K: unix.CLONE_NEWUSER}, jt: "eperm", jf: "allow"})
	label("socket")
	stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offArg0)
	jeq(unix.AF_VSOCK, "eperm", "")
	if denyUnix {
		jeq(unix.AF_UNIX, "eperm", "")
	}
	label("allow")
	stmt(unix.BPF_RET|unix.BPF_K, unix.SECCOMP_RET_ALLOW)
	label("eperm")
	stmt(unix.BPF_RET|unix.BPF_K, unix.SECCOMP_RET_ERRNO|uint32(unix.EPERM))
	label("enosys")
	stmt(unix.BPF_RET|unix.BPF_K, unix.SECCOMP_RET_ERRNO|uint32(unix.ENOSYS))
	label("kill")
	stmt(unix.BPF_RET|unix.BPF_K, unix.SECCOMP_RET_KILL_PROCESS)

	out := make([]unix.SockFilter, len(prog))
	for i, in := range prog {
		f := in.f
		rel := func(l string) uint8 {
			if l == "" {
				return 0
			}
			d := labels[l] - i - 1
			if d < 0 || d > 255 {
				panic(fmt.Sprintf("seccomp: bad jump to %s", l))
			}
			return uint8(d)
		}
		if f.Code&0x07 == unix.BPF_JMP {
			f.Jt, f.Jf = rel(in.jt), rel(in.jf)
		}
		out[i] = f
	}
	return out
}

// installSeccomp loads the filter on the calling thread (the helper execs
// right after, so only that thread matters). no_new_privs must be set.
func installSeccomp(denyUnix bool) error {
	prog := seccompProgram(denyUnix)
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(prog)
	if errno != 0 {
		return fmt.Errorf("sandbox: install seccomp filter: %w", errno)
	}
	return nil
}

// SeccompFilter is the filter as bubblewrap's --seccomp reads it: the
// program's struct sock_filter array in the machine's byte order. denyUnix
// as for the helper's own (Spec.DenyUnix).
func SeccompFilter(denyUnix bool) []byte {
	prog := seccompProgram(denyUnix)
	out := make([]byte, 0, len(prog)*int(unsafe.Sizeof(prog[0])))
	for _, f := range prog {
		out = append(out, unsafe.Slice((*byte)(unsafe.Pointer(&f)), unsafe.Sizeof(f))...)
	}
	return out
}

// SeccompAvailable reports whether the kernel supports seccomp filters.
func SeccompAvailable() bool {
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_GET_ACTION_AVAIL, 0, uintptr(unsafe.Pointer(&[]uint32{unix.SECCOMP_RET_ERRNO}[0])))
	return errno == 0
}
