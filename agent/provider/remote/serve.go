package remote

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http/httptrace"
	"os"
	"os/signal"
	"sync"

	"github.com/oceancode/oceancode/agent/provider"
)

// Opener builds the provider a configuration asks for (the companion binary
// passes one that knows the vendors' SDK clients).
type Opener func(provider.Config) (provider.Provider, error)

// HelperMain is the companion's whole program: args are its arguments
// after the program name. It serves on stdin and stdout until stdin closes
// and returns the exit status.
func HelperMain(args []string, open Opener) int {
	if len(args) < 1 || args[0] != HelperArg {
		fmt.Fprintf(os.Stderr, "%s: internal model client of oceancode, started by 'oceancode run'; it is not meant to be run by hand\n", Binary)
		return 2
	}
	// Ctrl-C reaches the whole foreground process group; the parent decides
	// what an interrupt means and cancels calls over the pipe.
	signal.Ignore(os.Interrupt)
	if err := Serve(context.Background(), os.Stdin, os.Stdout, open); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", Binary, err)
		return 1
	}
	return 0
}

// Serve reads ops from in and writes answers to out until in ends (nil) or
// cannot be read. The first op must be "config". Calls run concurrently;
// each answer line is written whole.
func Serve(ctx context.Context, in io.Reader, out io.Writer, open Opener) error {
	var wg sync.WaitGroup
	defer wg.Wait() // after cancelAll: in-flight calls end when the parent has gone
	ctx, cancelAll := context.WithCancel(ctx)
	defer cancelAll()
	bw := bufio.NewWriter(out)
	w := &lineWriter{buf: bw, enc: json.NewEncoder(bw)}
	// Tool-call inputs pass through as they came: no \u003e for ">" in what
	// the parent shows, records and sends back.
	w.enc.SetEscapeHTML(false)
	if err := w.send(fromChild{Ready: &readyAnnounce{Version: protocolVersion}}); err != nil {
		return fmt.Errorf("serve: announce: %w", err)
	}
	dec := json.NewDecoder(bufio.NewReaderSize(in, 64<<10))
	var (
		p       provider.Provider
		openErr error
		mu      sync.Mutex
		cancels = map[uint64]context.CancelFunc{}
	)
	for {
		var op toChild
		if err := dec.Decode(&op); err == io.EOF {
			return nil
		} else if err != nil {
			return fmt.Errorf("serve: read op: %w", err)
		}
		switch op.Op {
		case opConfig:
			if op.Config == nil {
				return errors.New("serve: config op without a config")
			}
			if p != nil || openErr != nil {
				return errors.New("serve: config sent twice")
			}
			p, openErr = open(op.Config.config())
			if openErr == nil && p == nil {
				openErr = errors.New("no provider")
			}
		case opStream:
			if op.ID == 0 || op.Request == nil {
				return fmt.Errorf("serve: stream op without an id or a request")
			}
			if p == nil && openErr == nil {
				return errors.New("serve: stream op before the config op")
			}
			if openErr != nil {
				if err := w.send(fromChild{ID: op.ID, Error: errorToWire(fmt.Errorf("open provider: %w", openErr))}); err != nil {
					return err
				}
				continue
			}
			cctx, cancel := context.WithCancel(ctx)
			mu.Lock()
			cancels[op.ID] = cancel
			mu.Unlock()
			wg.Add(1)
			go func(id uint64, req provider.Request) {
				defer wg.Done()
				defer func() {
					mu.Lock()
					delete(cancels, id)
					mu.Unlock()
					cancel()
				}()
				var sent sync.Once
				// Tell the parent when the request is on the wire: it holds
				// back its own work until then.
				tctx := httptrace.WithClientTrace(cctx, &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) {
					sent.Do(func() { _ = w.send(fromChild{ID: id, Sent: true}) })
				}})
				resp, err := p.Stream(tctx, req, func(e provider.Event) {
					_ = w.send(fromChild{ID: id, Event: eventToWire(e)})
				})
				if err != nil {
					_ = w.send(fromChild{ID: id, Error: errorToWire(err)})
					return
				}
				_ = w.send(fromChild{ID: id, Response: &wireResponse{Message: resp.Message, Usage: resp.Usage, StopReason: resp.StopReason}})
			}(op.ID, op.Request.request())
		case opCancel:
			mu.Lock()
			if c := cancels[op.ID]; c != nil {
				c()
			}
			mu.Unlock()
		default:
			return fmt.Errorf("serve: unknown op %q", op.Op)
		}
	}
}

// lineWriter writes one JSON value per line, whole, from any goroutine.
type lineWriter struct {
	mu  sync.Mutex
	buf *bufio.Writer
	enc *json.Encoder
}

func (w *lineWriter) send(m fromChild) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.enc.Encode(m); err != nil {
		return fmt.Errorf("serve: write: %w", err)
	}
	if err := w.buf.Flush(); err != nil {
		return fmt.Errorf("serve: write: %w", err)
	}
	return nil
}

func errorToWire(err error) *wireError {
	if err == nil {
		return nil
	}
	w := &wireError{Message: err.Error()}
	var ae *provider.APIError
	if errors.As(err, &ae) {
		w.Status, w.APIMessage, w.RetryAfter, w.HasRetryAfter, w.Code = ae.StatusCode, ae.Message, ae.RetryAfter, ae.HasRetryAfter, ae.Code
	}
	return w
}
