// Command oceanadmin is the administrators' toolchain: keys, signing and
// verifying requirements.json, validating and simulating configuration. All
// behaviour lives in package cli; main only wires the process to it.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/oceancode/oceancode/cmd/oceanadmin/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args[1:], cli.StdIO())
	stop()
	os.Exit(code)
}
