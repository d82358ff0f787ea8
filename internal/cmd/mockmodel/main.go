// Command mockmodel is the scripted loopback model server the demo and the
// process benchmarks run against: it speaks the Anthropic Messages and the
// OpenAI Chat Completions wire formats (agent/provider/providertest) on
// 127.0.0.1 and plays the turns of a JSON script. It prints its base URL on
// the first line of stdout and serves until stdin closes or it is signalled.
//
//	mockmodel -script turns.json [-addr 127.0.0.1:0]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/oceancode/oceancode/agent/provider/providertest"
)

func main() {
	script := flag.String("script", "", "the JSON script of turns (docs/providers.md)")
	addr := flag.String("addr", "127.0.0.1:0", "loopback address to listen on")
	flag.Parse()
	if err := run(*script, *addr); err != nil {
		fmt.Fprintf(os.Stderr, "mockmodel: %v\n", err)
		os.Exit(1)
	}
}

func run(script, addr string) error {
	if script == "" {
		return fmt.Errorf("-script FILE is required")
	}
	s, err := providertest.LoadScript(script)
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen %s: %w", addr, err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() { // a parent that goes away closes our stdin: stop with it
		io.Copy(io.Discard, os.Stdin)
		stop()
	}()
	fmt.Printf("http://%s\n", l.Addr())
	return providertest.Serve(ctx, l, s)
}
