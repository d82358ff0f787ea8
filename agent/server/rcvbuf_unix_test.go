//go:build unix

package server_test

import "syscall"

// smallRecvBuf shrinks a socket's receive buffer, so a client that stops
// reading fills it quickly.
func smallRecvBuf(fd uintptr) {
	syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
}
