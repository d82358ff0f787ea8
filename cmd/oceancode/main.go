// Command oceancode is the OceanCode coding agent. All behaviour lives in
// package cli; main only wires the process to it and exits.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/oceancode/oceancode/cmd/oceancode/cli"
	// Starts the model client during initialisation for `oceancode run`.
	"github.com/oceancode/oceancode/internal/prestart"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args[1:], cli.StdIO(), cli.Options{})
	stop()
	prestart.Release()
	os.Exit(code)
}
