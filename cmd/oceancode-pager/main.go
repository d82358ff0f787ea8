// Command oceancode-pager is the Ocean pager's companion, installed beside
// oceancode: the whole oceancode command with the pager linked in.
// `oceancode` with no command on a terminal (and `oceancode attach`)
// execs it, so the pager's libraries — about 16 ms of package
// initialisation — are paid only by the pager, never by `--version`,
// `inspect` or a sandboxed command.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/oceancode/oceancode/cmd/oceancode/cli"
	"github.com/oceancode/oceancode/cmd/oceancode/cli/pagerui"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args[1:], cli.StdIO(), cli.Options{RunPager: pagerui.Run})
	stop()
	os.Exit(code)
}
