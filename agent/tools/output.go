package tools

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Defaults and bounds of the Env knobs.
const (
	DefaultBashTimeout = 2 * time.Minute
	MaxBashTimeout     = 10 * time.Minute
	DefaultOutputLimit = 30000
	webfetchTimeout    = 30 * time.Second
)

func (e *Env) outputLimit() int {
	if e.OutputLimit <= 0 {
		return DefaultOutputLimit
	}
	return e.OutputLimit
}

func (e *Env) bashTimeout() time.Duration {
	d := e.BashTimeout
	if d <= 0 {
		d = DefaultBashTimeout
	}
	return min(d, MaxBashTimeout)
}

func (e *Env) httpClient() *http.Client {
	if e.HTTPClient != nil {
		return e.HTTPClient
	}
	return &http.Client{Timeout: webfetchTimeout}
}

// cwd is the session's working directory, the project root when unset.
func (e *Env) cwd() string {
	if e.Cwd != "" {
		return e.Cwd
	}
	return e.Boundary.ProjectRoot
}

// display is how a resolved path is shown to the model: relative to the
// working directory when inside it, else absolute.
func (e *Env) display(abs string) string {
	if cwd := e.cwd(); cwd != "" {
		if rel, err := filepath.Rel(cwd, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return filepath.ToSlash(rel)
		}
	}
	return abs
}

// CapOutput cuts s to env's output limit (nil env: the default), keeping
// its head and tail with a note saying how much was left out.
func CapOutput(env *Env, s string) string {
	if env == nil {
		env = &Env{}
	}
	out, _ := truncate(s, env.outputLimit())
	return out
}

// omitted is the note put where output was cut.
func omitted(n int) string { return fmt.Sprintf("\n[… %d bytes omitted …]\n", n) }

// truncate keeps the head and the tail of s within limit bytes (cut on
// UTF-8 boundaries) with a note in between saying how much was left out.
// It returns the number of bytes left out.
func truncate(s string, limit int) (string, int) {
	if len(s) <= limit {
		return s, 0
	}
	head := runeFloor(s, limit/2)
	tail := runeCeil(s, len(s)-(limit-head))
	n := tail - head
	return s[:head] + omitted(n) + s[tail:], n
}

// runeFloor is the largest rune boundary ≤ i.
func runeFloor(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// runeCeil is the smallest rune boundary ≥ i.
func runeCeil(s string, i int) int {
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return i
}

// headTail is an io.Writer that keeps the first and the last bytes of what
// it is given within a fixed budget, counting what falls in between, so a
// command printing gigabytes costs no more memory than the limit.
type headTail struct {
	mu    sync.Mutex
	limit int
	head  []byte
	tail  []byte // ring buffer of up to limit-limit/2 bytes
	pos   int    // next write position in tail once it is full
	total int64
}

func newHeadTail(limit int) *headTail { return &headTail{limit: limit} }

func (h *headTail) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := len(p)
	h.total += int64(n)
	if room := h.limit/2 - len(h.head); room > 0 {
		k := min(room, len(p))
		h.head = append(h.head, p[:k]...)
		p = p[k:]
	}
	tmax := h.limit - h.limit/2
	for len(p) > 0 && tmax > 0 {
		if len(h.tail) < tmax {
			k := min(tmax-len(h.tail), len(p))
			h.tail = append(h.tail, p[:k]...)
			p = p[k:]
			continue
		}
		if len(p) >= tmax {
			copy(h.tail, p[len(p)-tmax:])
			h.pos = 0
			break
		}
		k := copy(h.tail[h.pos:], p)
		p = p[k:]
		h.pos = (h.pos + k) % tmax
	}
	return n, nil
}

// String returns what was kept, with the omission note when anything was
// left out, and how many bytes were left out.
func (h *headTail) String() (string, int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	tail := append(append([]byte(nil), h.tail[h.pos:]...), h.tail[:h.pos]...)
	kept := int64(len(h.head) + len(tail))
	if kept == h.total {
		return string(h.head) + string(tail), 0
	}
	head, t := string(h.head), string(tail)
	// Cut on rune boundaries so the note never splits a character.
	hb := completeRunes(head)
	tb := runeCeil(t, 0)
	n := int(h.total-kept) + (len(head) - hb) + tb
	return head[:hb] + omitted(n) + t[tb:], n
}

// completeRunes is the length of s without a partial UTF-8 sequence at its
// end.
func completeRunes(s string) int {
	for i := len(s) - 1; i >= 0 && i >= len(s)-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			if utf8.FullRuneInString(s[i:]) {
				return len(s)
			}
			return i
		}
	}
	return len(s)
}
