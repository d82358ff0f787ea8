package remote

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/oceancode/oceancode/agent/provider"
	"github.com/oceancode/oceancode/internal/prestart"
	"github.com/oceancode/oceancode/internal/sibling"
)

// HelperPath, when set, is the companion to start instead of looking for
// one (tests and embedders whose binary serves HelperArg itself).
var HelperPath string

// osExecutable is os.Executable (a variable for the lookup test).
var osExecutable = os.Executable

// ErrNotFound is returned (wrapped) when no companion is installed.
var ErrNotFound = errors.New("model client not installed")

// Locate finds the companion: HelperPath; else Binary beside this
// executable (where `make build` and the packages install it); else Binary
// on PATH (as `go install ./cmd/...` leaves it).
func Locate() (string, error) {
	if HelperPath != "" {
		return HelperPath, nil
	}
	self, err := osExecutable()
	if err == nil {
		if p, ok := sibling.Find(self, Binary); ok {
			return p, nil
		}
	}
	if p, err := exec.LookPath(Binary); err == nil {
		return p, nil
	}
	where := "on PATH"
	if self != "" {
		where = "beside " + self + " or on PATH"
	}
	return "", fmt.Errorf("locate %s: %w: no %s %s; install it with oceancode (make build puts both in bin/)", Binary, ErrNotFound, Binary, where)
}

// Client is a provider.Provider served by the companion process. It is safe
// for concurrent use; each Stream is one call on the shared pipe.
type Client struct {
	proc   *os.Process
	state  *os.ProcessState // once done is closed
	path   string
	stdin  io.WriteCloser
	stderr *tail

	wmu sync.Mutex
	enc *json.Encoder

	mu         sync.Mutex
	calls      map[uint64]*call
	nextID     uint64
	configured bool
	closing    bool

	done chan struct{} // closed when the companion's output has ended
	err  error         // why it ended; set before done is closed

	sent     chan struct{} // closed when a request is on the wire or the companion ended
	sentOnce sync.Once
}

var _ provider.Provider = (*Client)(nil)

type call struct {
	msgs chan fromChild
	gone chan struct{} // closed when Stream has returned
}

// Start launches the companion and returns at once; its start-up runs while
// the caller goes on. A companion already started while the program was
// initialising (internal/prestart) is taken over instead. A failure to find
// or start it is returned by Configure (and every Stream).
func Start() *Client {
	c := &Client{calls: map[uint64]*call{}, done: make(chan struct{}), sent: make(chan struct{})}
	p := prestart.Take()
	if p == nil {
		path, err := Locate()
		if err != nil {
			c.end(err)
			return c
		}
		if p, err = prestart.Spawn(path); err != nil {
			c.end(err)
			return c
		}
	}
	c.proc, c.path, c.stdin, c.enc = p.Proc, p.Path, p.Stdin, json.NewEncoder(p.Stdin)
	c.enc.SetEscapeHTML(false)
	c.stderr = &tail{max: 8 << 10}
	stderrDone := make(chan struct{})
	go func() {
		defer close(stderrDone)
		_, _ = io.Copy(c.stderr, p.Stderr)
		p.Stderr.Close()
	}()
	go c.read(p.Stdout, stderrDone)
	return c
}

// Sent is closed once the companion has written a model request to the
// network (or has ended): a caller can hold back work that would compete
// with the companion for the CPU on the way to its first request.
func (c *Client) Sent() <-chan struct{} { return c.sent }

func (c *Client) markSent() { c.sentOnce.Do(func() { close(c.sent) }) }

// Configure sends the provider configuration; it must come before the first
// Stream and is sent once. It returns the error that stopped the companion
// if it could not be found or started.
func (c *Client) Configure(cfg provider.Config) error {
	select {
	case <-c.done:
		return c.err
	default:
	}
	c.mu.Lock()
	if c.configured {
		c.mu.Unlock()
		return errors.New("configure model client: already configured")
	}
	c.configured = true
	c.mu.Unlock()
	if err := c.send(toChild{Op: opConfig, Config: configToWire(cfg)}); err != nil {
		return c.deathOr(err)
	}
	return nil
}

// Stream makes one model call through the companion: events arrive at on in
// order, on the calling goroutine, as they do with an in-process provider.
// A cancelled ctx returns ctx.Err() at once and tells the companion to stop
// the call.
func (c *Client) Stream(ctx context.Context, req provider.Request, on func(provider.Event)) (provider.Response, error) {
	if err := ctx.Err(); err != nil {
		return provider.Response{}, err
	}
	c.mu.Lock()
	if !c.configured {
		c.mu.Unlock()
		return provider.Response{}, errors.New("model call: the model client is not configured")
	}
	c.nextID++
	id := c.nextID
	cl := &call{msgs: make(chan fromChild, 32), gone: make(chan struct{})}
	c.calls[id] = cl
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.calls, id)
		c.mu.Unlock()
		close(cl.gone)
	}()
	if err := c.send(toChild{Op: opStream, ID: id, Request: requestToWire(req)}); err != nil {
		return provider.Response{}, c.deathOr(err)
	}
	for {
		select {
		case <-ctx.Done():
			go func() { _ = c.send(toChild{Op: opCancel, ID: id}) }()
			return provider.Response{}, ctx.Err()
		case m := <-cl.msgs:
			if resp, err, final := deliver(m, on); final {
				return resp, err
			}
		case <-c.done:
			// What the companion wrote before it stopped still counts.
			for {
				select {
				case m := <-cl.msgs:
					if resp, err, final := deliver(m, on); final {
						return resp, err
					}
				default:
					return provider.Response{}, c.err
				}
			}
		}
	}
}

// deliver handles one message of a call; final reports the call's end.
func deliver(m fromChild, on func(provider.Event)) (provider.Response, error, bool) {
	switch {
	case m.Event != nil:
		if on != nil {
			on(m.Event.event())
		}
		return provider.Response{}, nil, false
	case m.Response != nil:
		return provider.Response{Message: m.Response.Message, Usage: m.Response.Usage, StopReason: m.Response.StopReason}, nil, true
	case m.Error != nil:
		return provider.Response{}, m.Error.err(), true
	}
	return provider.Response{}, errors.New("model call: the model client sent an empty answer"), true
}

// Close ends the companion: its input closes, it finishes and exits; one
// that does not within two seconds (or was never configured) is killed.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closing || c.proc == nil {
		c.mu.Unlock()
		return nil
	}
	c.closing = true
	configured := c.configured
	c.mu.Unlock()
	if !configured {
		_ = c.proc.Kill()
	}
	_ = c.stdin.Close()
	select {
	case <-c.done:
	case <-time.After(2 * time.Second):
		_ = c.proc.Kill()
		<-c.done
	}
	return nil
}

func (c *Client) send(m toChild) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.enc.Encode(m)
}

// deathOr returns why the companion stopped when a write failed because it
// had (waiting briefly for its output to end), else the write error.
func (c *Client) deathOr(err error) error {
	select {
	case <-c.done:
		return c.err
	case <-time.After(time.Second):
		return fmt.Errorf("model call: write to model client: %w", err)
	}
}

// read routes the companion's answers to their calls until its output
// ends, then records why (after its stderr has been read to the end).
func (c *Client) read(r io.ReadCloser, stderrDone <-chan struct{}) {
	defer r.Close()
	dec := json.NewDecoder(bufio.NewReaderSize(r, 64<<10))
	first := true
	var protoErr error
	for protoErr == nil {
		var m fromChild
		if err := dec.Decode(&m); err != nil {
			if !errors.Is(err, io.EOF) {
				protoErr = fmt.Errorf("read its answer: %w", err)
			}
			break
		}
		if first {
			first = false
			if m.Ready == nil || m.Ready.Version != protocolVersion {
				v := 0
				if m.Ready != nil {
					v = m.Ready.Version
				}
				protoErr = fmt.Errorf("it speaks protocol %d, this oceancode %d: install both from the same release", v, protocolVersion)
			}
			continue
		}
		if m.Sent {
			c.markSent()
			continue
		}
		if m.ID == 0 {
			if m.Error != nil {
				protoErr = m.Error.err()
			}
			continue
		}
		c.mu.Lock()
		cl := c.calls[m.ID]
		c.mu.Unlock()
		if cl == nil {
			continue // a call its caller gave up on
		}
		select {
		case cl.msgs <- m:
		case <-cl.gone:
		}
	}
	if protoErr != nil {
		_ = c.proc.Kill()
	}
	<-stderrDone
	state, werr := c.proc.Wait()
	c.state = state
	c.mu.Lock()
	closing := c.closing
	c.mu.Unlock()
	switch {
	case protoErr != nil:
		c.end(fmt.Errorf("model client %s: %w", c.path, protoErr))
	case closing:
		c.end(errors.New("model call: the model client is closed"))
	default:
		why := "exited"
		switch {
		case werr != nil:
			why = werr.Error()
		case !state.Success():
			why = state.String()
		}
		msg := fmt.Sprintf("model client %s stopped (%s)", c.path, why)
		if s := c.stderr.String(); s != "" {
			msg += ": " + s
		}
		c.end(errors.New(msg))
	}
}

func (c *Client) end(err error) {
	c.err = err
	close(c.done)
	c.markSent()
}

// tail keeps the last max bytes written to it (the companion's stderr, for
// the error that says why it stopped).
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.b))
}
