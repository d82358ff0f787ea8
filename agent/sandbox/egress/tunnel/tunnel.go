// Package tunnel joins two connections, and is the sandbox helper's
// egress forwarder (inside a sandbox with network allowlist: 127.0.0.1 to
// the egress proxy's unix socket). It imports nothing above package net,
// so the helper that links it stays small.
package tunnel

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
)

// ProxyURL is the URL the sandboxed command's proxy variables point at for
// a forwarder on 127.0.0.1:port.
func ProxyURL(port int) string { return "http://127.0.0.1:" + strconv.Itoa(port) }

// Forward accepts connections on ln (the forwarder's 127.0.0.1 listener
// inside a sandbox) and joins each to a new connection to the proxy's unix
// socket at socket. It returns when ln is closed or fails.
func Forward(ln net.Listener, socket string) error {
	for {
		c, err := Accept(ln)
		if err != nil {
			return err
		}
		go func() {
			defer c.Close()
			up, err := net.Dial("unix", socket)
			if err != nil {
				body := "oceancode sandbox egress forwarder: the egress proxy is not reachable: " + err.Error() + "\n"
				fmt.Fprintf(c, "HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
				return
			}
			defer up.Close()
			Pipe(c, up)
		}()
	}
}

// Accept is ln.Accept, retried past temporary (timeout) errors.
func Accept(ln net.Listener) (net.Conn, error) {
	for {
		c, err := ln.Accept()
		var ne net.Error
		if err != nil && errors.As(err, &ne) && ne.Timeout() {
			continue
		}
		return c, err
	}
}

type closeWriter interface{ CloseWrite() error }

// Pipe copies both ways until both directions are done, passing half
// closes on.
func Pipe(a, b net.Conn) {
	done := make(chan struct{}, 2)
	cp := func(dst, src net.Conn) {
		_, err := io.Copy(dst, src)
		if cw, ok := dst.(closeWriter); ok && err == nil {
			cw.CloseWrite()
		} else {
			// An error (a reset, a closed peer) ends both directions.
			a.Close()
			b.Close()
		}
		done <- struct{}{}
	}
	go cp(a, b)
	go cp(b, a)
	<-done
	<-done
}
