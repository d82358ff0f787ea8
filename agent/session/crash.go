package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/oceancode/oceancode/internal/atomicfile"
	"github.com/oceancode/oceancode/internal/secretenv"
)

// CrashFormat names the crash report format.
const CrashFormat = "oceancode.crash/1"

// CrashReport is what a panic leaves behind. Callers must not put secrets in
// it; WriteCrashReport scrubs anything that looks like a credential anyway.
type CrashReport struct {
	Format    string    `json:"format"` // set by WriteCrashReport
	Time      time.Time `json:"time"`
	Version   string    `json:"version"` // oceancode's version
	SessionID string    `json:"session_id,omitempty"`
	PID       int       `json:"pid"`
	GoVersion string    `json:"go_version"`
	OS        string    `json:"os"`
	Arch      string    `json:"arch"`
	Panic     string    `json:"panic"` // the panic value as text
	Stack     string    `json:"stack"` // every goroutine's stack
}

// CrashReportInfo summarises one crash report file for listing.
type CrashReportInfo struct {
	Path      string    `json:"path"`
	Time      time.Time `json:"time"`
	Version   string    `json:"version,omitempty"`
	SessionID string    `json:"session_id,omitempty"`
	Panic     string    `json:"panic,omitempty"` // its first line, shortened
	// Problem is set when the file could not be read as a crash report; it
	// is listed anyway so doctor can offer to remove it.
	Problem string `json:"problem,omitempty"`
}

const crashPattern = "crash-*.json"

// WriteCrashReport writes r to a new file in dir (created 0700 if missing)
// and returns its path. The file is written atomically with mode 0600.
// Empty Time, PID, GoVersion, OS and Arch are filled in; every text field is
// scrubbed of anything that looks like an API key or token.
func WriteCrashReport(dir string, r CrashReport) (string, error) {
	r.Format = CrashFormat
	if r.Time.IsZero() {
		r.Time = time.Now()
	}
	r.Time = r.Time.UTC()
	if r.PID == 0 {
		r.PID = os.Getpid()
	}
	if r.GoVersion == "" {
		r.GoVersion = runtime.Version()
	}
	if r.OS == "" {
		r.OS, r.Arch = runtime.GOOS, runtime.GOARCH
	}
	r.Version, r.SessionID = Scrub(r.Version), Scrub(r.SessionID)
	r.Panic, r.Stack = Scrub(r.Panic), Scrub(r.Stack)
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return "", opErr("write crash report", dir, err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", opErr("write crash report", dir, err)
	}
	name := "crash-" + r.Time.Format("20060102T150405.000000000Z") + "-" + strconv.Itoa(r.PID) + ".json"
	path := filepath.Join(dir, name)
	if err := atomicfile.Write(path, append(data, '\n'), 0o600); err != nil {
		return "", opErr("write crash report", path, err)
	}
	return path, nil
}

// CrashReports lists the crash reports in dir, newest first. A missing dir
// has none.
func CrashReports(dir string) ([]CrashReportInfo, error) {
	paths, err := filepath.Glob(filepath.Join(globEscape(dir), crashPattern))
	if err != nil {
		return nil, opErr("list crash reports", dir, err)
	}
	out := make([]CrashReportInfo, 0, len(paths))
	for _, p := range paths {
		info := CrashReportInfo{Path: p}
		var r CrashReport
		if b, err := os.ReadFile(p); err != nil {
			info.Problem = err.Error()
		} else if err := json.Unmarshal(b, &r); err != nil {
			info.Problem = "not a crash report: " + err.Error()
		} else {
			info.Time, info.Version, info.SessionID = r.Time, r.Version, r.SessionID
			info.Panic, _, _ = strings.Cut(r.Panic, "\n")
			if len(info.Panic) > 200 {
				info.Panic = info.Panic[:200] + "…"
			}
		}
		if info.Time.IsZero() {
			if fi, err := os.Stat(p); err == nil {
				info.Time = fi.ModTime().UTC()
			}
		}
		out = append(out, info)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Time.Equal(out[j].Time) {
			return out[i].Time.After(out[j].Time)
		}
		return out[i].Path > out[j].Path
	})
	return out, nil
}

// globEscape quotes the glob metacharacters of a literal path.
func globEscape(p string) string {
	if runtime.GOOS == "windows" {
		return p // no escaping there; \ is the separator
	}
	return strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`).Replace(p)
}

// RemoveCrashReport deletes one crash report. Only a file named like a crash
// report (crash-*.json) is removed, so a mistaken path deletes nothing else.
func RemoveCrashReport(path string) error {
	if ok, _ := filepath.Match(crashPattern, filepath.Base(path)); !ok {
		return opErr("remove crash report", path, errors.New("not a crash report file name"))
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return opErr("remove crash report", path, err)
	}
	return nil
}

// reported is set once this process has written its crash report, so nested
// Recover calls (main's and a command's) write one report, not two.
var reported atomic.Bool

// Recover is meant to be deferred directly (defer session.Recover(dir,
// version, id)); recover only works there, not inside another deferred
// func. On a panic it writes a crash report to dir with every goroutine's
// stack, says where on stderr, and panics again with the same value, so the
// process still dies of it and only main decides the exit. sessionID (nil:
// none) is asked at the time of the panic and must not block: a session may
// be created while the run is under way. A process writes one report, from
// the innermost Recover. It does nothing without a panic. A goroutine's
// panic is caught only by a Recover deferred in that goroutine.
func Recover(dir, version string, sessionID func() string) {
	v := recover()
	if v == nil {
		return
	}
	if reported.CompareAndSwap(false, true) {
		id := ""
		if sessionID != nil {
			id = sessionID()
		}
		r := CrashReport{Version: version, SessionID: id, Panic: panicText(v), Stack: allStacks()}
		if path, err := WriteCrashReport(dir, r); err != nil {
			fmt.Fprintf(os.Stderr, "oceancode: panic; crash report not written: %v\n", err)
		} else {
			fmt.Fprintf(os.Stderr, "oceancode: panic; crash report written to %s\n", path)
		}
	}
	panic(v)
}

func panicText(v any) string {
	switch x := v.(type) {
	case error:
		return x.Error()
	case fmt.Stringer:
		return x.String()
	case string:
		return x
	}
	return fmt.Sprintf("%v (%T)", v, v)
}

// allStacks returns every goroutine's stack, up to 8 MiB.
func allStacks() string {
	buf := make([]byte, 64<<10)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) || len(buf) >= 8<<20 {
			return string(buf[:n])
		}
		buf = make([]byte, 2*len(buf))
	}
}

// Scrub replaces anything in s that looks like an API key, token or private
// key, the value of anything assigned to a secret-looking name, and the
// value of every secret oceancode took out of its environment with
// [REDACTED] (internal/secret's Scrub with internal/secretenv's values). It
// is defence in depth for crash reports, not a licence to put secrets in
// them.
func Scrub(s string) string { return secretenv.Scrub(s) }
