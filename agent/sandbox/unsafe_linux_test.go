//go:build linux && (amd64 || arm64)

package sandbox

import "unsafe"

func unsafePointer(b []byte) unsafe.Pointer { return unsafe.Pointer(&b[0]) }
