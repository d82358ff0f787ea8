package client

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/oceancode/oceancode/agent/engineapi"
)

// EventResync is the type of the event a Stream delivers when the server
// cannot replay what was asked for (its resync notice): Seq is the event
// the stream goes on after, Text says why. Fetch the state again
// (Client.State): the events in between are not coming.
const EventResync engineapi.EventType = "resync"

// Stream is a session's events read off GET …/events, in Seq order. A
// dropped connection is resumed with Last-Event-ID (the replay is the
// server's: nothing is lost or repeated) for up to Client.Retry.
type Stream struct {
	ch     chan engineapi.SessionEvent
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	err    error
	resume int // reconnections made
}

// Events delivers the events; it closes when the stream ends (Err says why).
func (s *Stream) Events() <-chan engineapi.SessionEvent { return s.ch }

// Err is why Events closed: nil when ctx ended or the session closed;
// engineapi.ErrLagged when the server dropped this stream for falling behind
// (subscribe again after the last Seq received); otherwise the error that
// ended it (the connection could not be resumed, the session is gone).
func (s *Stream) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Resumed is how many times a dropped connection was resumed.
func (s *Stream) Resumed() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.resume
}

// Close ends the stream and waits for its reader.
func (s *Stream) Close() {
	s.cancel()
	<-s.done
}

// Events streams session id's events after seq `after` (0: from the
// start). The first connection is made before it returns: a refused token,
// an unknown session or a bad cursor is its error.
func (c *Client) Events(ctx context.Context, id string, after int64) (*Stream, error) {
	ctx, cancel := context.WithCancel(ctx)
	body, err := c.openEvents(ctx, id, after)
	if err != nil {
		cancel()
		return nil, err
	}
	s := &Stream{ch: make(chan engineapi.SessionEvent, 256), cancel: cancel, done: make(chan struct{})}
	go s.run(ctx, c, id, after, body)
	return s, nil
}

func (c *Client) openEvents(ctx context.Context, id string, after int64) (io.ReadCloser, error) {
	path := sessionPath(id, "/events")
	req, err := c.request(ctx, "GET", path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	if after > 0 {
		req.Header.Set("Last-Event-ID", strconv.FormatInt(after, 10))
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		return nil, errorOf("GET "+path, resp)
	}
	return resp.Body, nil
}

func (s *Stream) run(ctx context.Context, c *Client, id string, last int64, body io.ReadCloser) {
	defer close(s.done)
	defer close(s.ch)
	retry := c.Retry
	if retry <= 0 {
		retry = 30 * time.Second
	}
	for {
		var err error
		last, err = s.read(ctx, body, last)
		body.Close()
		switch {
		case ctx.Err() != nil:
			return
		case errors.Is(err, engineapi.ErrLagged):
			s.fail(engineapi.ErrLagged)
			return
		}
		// The connection ended: resume after the last event received.
		body, err = s.reconnect(ctx, c, id, last, retry)
		if err != nil {
			if !errors.Is(err, engineapi.ErrClosed) && ctx.Err() == nil {
				s.fail(fmt.Errorf("events of session %s: %w", id, err))
			}
			return
		}
	}
}

func (s *Stream) fail(err error) {
	s.mu.Lock()
	s.err = err
	s.mu.Unlock()
}

// reconnect opens the stream again, backing off, for up to retry; an
// answer of the server (the session is closed or gone) ends the trying.
func (s *Stream) reconnect(ctx context.Context, c *Client, id string, last int64, retry time.Duration) (io.ReadCloser, error) {
	deadline := time.Now().Add(retry)
	wait := 50 * time.Millisecond
	for {
		body, err := c.openEvents(ctx, id, last)
		if err == nil {
			s.mu.Lock()
			s.resume++
			s.mu.Unlock()
			return body, nil
		}
		// An answer of the server ends the trying, except an overload
		// (503: too many streams, shutting down), which may pass.
		var e *Error
		if (errors.As(err, &e) && e.Status != http.StatusServiceUnavailable) || ctx.Err() != nil {
			return nil, err
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the connection was lost and could not be resumed for %v: %w", retry, err)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
		wait = min(2*wait, time.Second)
	}
}

// notice is a resync or lagged notice's data.
type notice struct {
	Type    string `json:"type"`
	LastSeq int64  `json:"last_seq"`
	Text    string `json:"text"`
}

// read delivers one connection's events; it returns the last Seq
// delivered and why the connection ended (engineapi.ErrLagged for a lagged
// notice).
func (s *Stream) read(ctx context.Context, body io.Reader, last int64) (int64, error) {
	br := bufio.NewReaderSize(body, 64<<10)
	var id, data string
	var hasData bool
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return last, err
		}
		line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
		if line == "" {
			if hasData {
				ev, lagged, ok := decode(id, data)
				switch {
				case lagged:
					return last, engineapi.ErrLagged
				case ok && (ev.Seq > last || ev.Event.Type == EventResync):
					select {
					case s.ch <- ev:
					case <-ctx.Done():
						return last, ctx.Err()
					}
					last = ev.Seq
				}
			}
			id, data, hasData = "", "", false
			continue
		}
		if strings.HasPrefix(line, ":") {
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "id":
			id = value
		case "data":
			if hasData {
				data += "\n"
			}
			data += value
			hasData = true
		}
	}
}

// decode turns one SSE event into an engine event (or a resync event);
// lagged reports the lagged notice.
func decode(id, data string) (ev engineapi.SessionEvent, lagged, ok bool) {
	var n notice
	if err := json.Unmarshal([]byte(data), &n); err != nil {
		return ev, false, false
	}
	switch n.Type {
	case "lagged":
		return ev, true, false
	case "resync":
		return engineapi.SessionEvent{Seq: n.LastSeq, Event: engineapi.Event{Type: EventResync, Text: n.Text}, Data: json.RawMessage(data)}, false, true
	}
	seq, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return ev, false, false
	}
	ev = engineapi.SessionEvent{Seq: seq, Data: json.RawMessage(data)}
	if err := json.Unmarshal([]byte(data), &ev.Event); err != nil {
		return ev, false, false
	}
	return ev, false, true
}
