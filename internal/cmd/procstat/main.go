// Command procstat runs a command several times and prints, as JSON, each
// run's start time, wall time and peak resident set size. The process
// benchmarks (cmd/clitest) use it instead of starting the measured binary
// themselves: Go starts children with vfork, and Linux carries the parent's
// peak RSS into a vforked child's ru_maxrss at exec, so a child started by
// a large test binary reports the test binary's RSS. procstat is small
// (about 2 MiB), so what it reports is the command's own peak (that of its
// largest process, descendants included) whenever that is above procstat's.
//
//	procstat -n 60 [-dir DIR] -- oceancode --version
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"time"
)

// Run is one run of the command.
type Run struct {
	StartUnixNano int64 `json:"start_unix_nano"`
	WallNano      int64 `json:"wall_nano"`
	MaxRSSKiB     int64 `json:"max_rss_kib"`
}

func main() {
	n := flag.Int("n", 1, "number of runs")
	dir := flag.String("dir", "", "working directory of the command")
	flag.Parse()
	argv := flag.Args()
	if len(argv) == 0 {
		fmt.Fprintln(os.Stderr, "procstat: usage: procstat -n N [-dir DIR] -- CMD [ARGS...]")
		os.Exit(2)
	}
	runs := make([]Run, 0, *n)
	for i := 0; i < *n; i++ {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = *dir
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		err := cmd.Run()
		wall := time.Since(start)
		if err != nil {
			fmt.Fprintf(os.Stderr, "procstat: run %d of %s: %v\n%s", i+1, argv[0], err, out.Bytes())
			os.Exit(1)
		}
		r := Run{StartUnixNano: start.UnixNano(), WallNano: wall.Nanoseconds()}
		r.MaxRSSKiB = maxRSS(cmd.ProcessState)
		runs = append(runs, r)
	}
	if err := json.NewEncoder(os.Stdout).Encode(runs); err != nil {
		fmt.Fprintf(os.Stderr, "procstat: %v\n", err)
		os.Exit(1)
	}
}
