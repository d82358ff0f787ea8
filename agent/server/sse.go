package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/oceancode/oceancode/agent/runner"
)

// Stream events the server itself sends (not engine events, never stored).
const (
	// EventResync: the replay asked for cannot be filled; the client
	// re-fetches the state (GET /api/session/{id}); the stream continues
	// live after last_seq (the event's id).
	EventResync = "resync"
	// EventLagged: this subscriber fell too far behind and was dropped;
	// reconnect with Last-Event-ID set to last_seq (the id of the last
	// event received) to get the rest. It has no id.
	EventLagged = "lagged"
)

// streamNotice is the data of a resync or lagged event.
type streamNotice struct {
	Type    string `json:"type"`
	LastSeq int64  `json:"last_seq"`
	After   int64  `json:"after,omitempty"`
	Text    string `json:"text"`
}

// after is the Seq a stream starts after: Last-Event-ID, else ?after=N,
// else 0 (from the start).
func after(r *http.Request) (int64, error) {
	v := strings.TrimSpace(r.Header.Get("Last-Event-ID"))
	what := "Last-Event-ID"
	if v == "" {
		v, what = r.URL.Query().Get("after"), "after"
	}
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s %q: want the id (a number) of the last event received", what, v)
	}
	return n, nil
}

func (s *Server) openStream() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.streams >= s.cfg.MaxStreams {
		return false
	}
	s.streams++
	return true
}

func (s *Server) closeStream() {
	s.mu.Lock()
	s.streams--
	s.mu.Unlock()
}

// events is GET …/events: SSE, one `id: SEQ` + `data: JSON` per event.
func (s *Server) events(w http.ResponseWriter, r *http.Request, id string, sess *runner.Session) {
	from, err := after(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, "bad_cursor", err.Error())
		return
	}
	if !s.openStream() {
		overloaded(w, http.StatusServiceUnavailable, "too_many_streams", fmt.Sprintf("too many event streams open (%d): retry later", s.cfg.MaxStreams))
		return
	}
	defer s.closeStream()
	var notice *streamNotice
	resync := func(why string) {
		last := sess.LastSeq()
		notice = &streamNotice{Type: EventResync, LastSeq: last, After: from,
			Text: fmt.Sprintf("%s: fetch the state (GET /api/session/%s); the stream goes on after %d", why, id, last)}
	}
	var sub *runner.Subscription
	if last := sess.LastSeq(); from > last {
		// A cursor from elsewhere (another session, a wiped store): what
		// it names never happened here.
		resync(fmt.Sprintf("event %d is past this session's last event %d", from, last))
		err = runner.ErrGap
	} else {
		sub, err = sess.Subscribe(from)
		if errors.Is(err, runner.ErrGap) {
			resync(fmt.Sprintf("the events after %d cannot be replayed", from))
		}
	}
	if errors.Is(err, runner.ErrGap) {
		sub, err = sess.Subscribe(notice.LastSeq)
	}
	if err != nil {
		if errors.Is(err, runner.ErrClosed) {
			writeError(w, http.StatusConflict, "session_closed", "the session is closed")
			return
		}
		writeError(w, http.StatusInternalServerError, "subscribe_failed", "subscribe: "+err.Error())
		return
	}
	defer sub.Close()
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	var buf bytes.Buffer
	flush := func() bool {
		// A client that does not read for a minute is gone.
		_ = rc.SetWriteDeadline(time.Now().Add(time.Minute))
		if _, err := w.Write(buf.Bytes()); err != nil {
			return false
		}
		buf.Reset()
		return rc.Flush() == nil
	}
	if notice != nil {
		writeNotice(&buf, notice, true)
	} else {
		buf.WriteString(": stream\n\n")
	}
	if !flush() {
		return
	}
	beat := time.NewTicker(s.cfg.Heartbeat)
	defer beat.Stop()
	last := from
	if notice != nil {
		last = notice.LastSeq
	}
	for {
		select {
		case <-r.Context().Done():
			return
		case <-beat.C:
			buf.WriteString(": heartbeat\n\n")
			if !flush() {
				return
			}
		case ev, ok := <-sub.C():
			if !ok {
				if errors.Is(sub.Err(), runner.ErrLagged) {
					writeNotice(&buf, &streamNotice{Type: EventLagged, LastSeq: last,
						Text: fmt.Sprintf("this stream fell behind and was dropped: reconnect with Last-Event-ID: %d", last)}, false)
					flush()
				}
				return
			}
			writeEvent(&buf, ev.Seq, ev.Data)
			last = ev.Seq
			// Write what is queued already in one go.
			for more := true; more; {
				select {
				case ev, ok := <-sub.C():
					if !ok {
						more = false
						break
					}
					writeEvent(&buf, ev.Seq, ev.Data)
					last = ev.Seq
				default:
					more = false
				}
			}
			if !flush() {
				return
			}
		}
	}
}

// writeEvent writes one SSE event; data that holds newlines (never, for
// compact JSON) is split over data: lines, which SSE joins back.
func writeEvent(buf *bytes.Buffer, seq int64, data []byte) {
	buf.WriteString("id: ")
	buf.WriteString(strconv.FormatInt(seq, 10))
	buf.WriteByte('\n')
	for {
		line, rest, more := bytes.Cut(data, []byte{'\n'})
		buf.WriteString("data: ")
		buf.Write(line)
		buf.WriteByte('\n')
		if !more {
			break
		}
		data = rest
	}
	buf.WriteByte('\n')
}

func writeNotice(buf *bytes.Buffer, n *streamNotice, withID bool) {
	data, _ := json.Marshal(n)
	if withID {
		writeEvent(buf, n.LastSeq, data)
		return
	}
	buf.WriteString("data: ")
	buf.Write(data)
	buf.WriteString("\n\n")
}
