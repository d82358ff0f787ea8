package secretenv

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// clearBlock overwrites the environment block the kernel shows in
// /proc/self/environ (the bytes between the env_start and env_end fields of
// /proc/self/stat, on the initial stack) with NUL bytes. Go copied the
// block into its own strings at start-up, so nothing in the program reads
// it afterwards. It writes through /proc/self/mem, which a process may do
// to itself (before it is made non-dumpable: afterwards the file belongs
// to root).
func clearBlock() error {
	start, end, err := envBounds()
	if err != nil || end == start {
		return err
	}
	mem, err := os.OpenFile("/proc/self/mem", os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("secretenv: clear the environment block: %w", err)
	}
	defer mem.Close()
	if _, err := mem.WriteAt(make([]byte, end-start), int64(start)); err != nil {
		return fmt.Errorf("secretenv: clear the environment block: %w", err)
	}
	return nil
}

// envBounds reads env_start and env_end (fields 50 and 51) of
// /proc/self/stat.
func envBounds() (start, end uint64, err error) {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, 0, fmt.Errorf("secretenv: find environment block: %w", err)
	}
	// Fields are counted from the last ')': comm may hold anything.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, errors.New("secretenv: find environment block: /proc/self/stat has no comm field")
	}
	f := bytes.Fields(b[i+1:]) // f[0] is field 3
	if len(f) < 49 {
		return 0, 0, errors.New("secretenv: find environment block: /proc/self/stat is too short (kernel older than 3.5?)")
	}
	if start, err = strconv.ParseUint(string(f[47]), 10, 64); err == nil {
		end, err = strconv.ParseUint(string(f[48]), 10, 64)
	}
	if err != nil || start == 0 || end < start || end-start > 1<<30 {
		return 0, 0, fmt.Errorf("secretenv: find environment block: bad env_start/env_end %q %q", f[47], f[48])
	}
	return start, end, nil
}

const (
	prSetDumpable = 4 // PR_SET_DUMPABLE
)

func nonDumpable() error {
	if err := setDumpable(0); err != nil {
		return fmt.Errorf("secretenv: make the process non-dumpable: %w", err)
	}
	return nil
}

func setDumpable(v uintptr) error {
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetDumpable, v, 0); e != 0 {
		return e
	}
	return nil
}
