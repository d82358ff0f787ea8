package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
)

// Subscription is one client's view of a session's events: those it asked
// to replay, then every new one, in Seq order, through its own bounded
// buffer.
type Subscription struct {
	s      *Session
	c      chan Event
	max    int
	notify chan struct{}
	done   chan struct{} // closed to stop at once (Close, lagged)
	once   sync.Once

	mu     sync.Mutex
	q      []Event
	ending bool  // the session closed: deliver what is queued, then close
	endErr error // the reason given with ending
	err    error
}

// C is the subscription's events; it is closed on Close, when the session
// closes (after the events emitted before) or when the subscriber is
// dropped for falling behind.
func (u *Subscription) C() <-chan Event { return u.c }

// Err says why C closed: nil (Close), ErrLagged or ErrClosed.
func (u *Subscription) Err() error {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.err
}

// Close ends the subscription.
func (u *Subscription) Close() {
	u.stop(nil)
	u.s.mu.Lock()
	delete(u.s.subs, u)
	u.s.mu.Unlock()
}

func (u *Subscription) stop(err error) {
	u.once.Do(func() {
		u.mu.Lock()
		u.err = err
		u.mu.Unlock()
		close(u.done)
	})
}

// push queues a live event; false drops the subscriber (it fell behind, or
// it is gone). Called with the session's mu held: it never blocks.
func (u *Subscription) push(ev Event) bool {
	select {
	case <-u.done:
		return false
	default:
	}
	u.mu.Lock()
	if len(u.q) >= u.max {
		u.mu.Unlock()
		u.stop(ErrLagged)
		return false
	}
	u.q = append(u.q, ev)
	u.mu.Unlock()
	select {
	case u.notify <- struct{}{}:
	default:
	}
	return true
}

// end closes the subscription after what is queued (the session closed).
func (u *Subscription) end(err error) {
	u.mu.Lock()
	u.ending, u.endErr = true, err
	u.mu.Unlock()
	select {
	case u.notify <- struct{}{}:
	default:
	}
}

// pump moves the queue to C, one event at a time.
func (u *Subscription) pump() {
	defer close(u.c)
	for {
		u.mu.Lock()
		for len(u.q) == 0 {
			if u.ending {
				u.mu.Unlock()
				u.stop(u.endErr)
				return
			}
			u.mu.Unlock()
			select {
			case <-u.notify:
			case <-u.done:
				return
			}
			u.mu.Lock()
		}
		ev := u.q[0]
		u.q[0] = Event{}
		u.q = u.q[1:]
		u.mu.Unlock()
		select {
		case u.c <- ev:
		case <-u.done:
			return
		}
	}
}

// Subscribe returns the events with Seq > after, then every new event as
// it happens. after 0: from the start. Events older than the runner holds
// in memory are read from the store; if some cannot be (not recorded),
// Subscribe returns ErrGap and the client re-fetches the state. ErrClosed
// once the session is closed.
func (s *Session) Subscribe(after int64) (*Subscription, error) {
	if after < 0 {
		after = 0
	}
	for attempt := 0; ; attempt++ {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return nil, ErrClosed
		}
		if after+1 >= s.ringFirst {
			u := s.subscribeLocked(nil, after)
			s.mu.Unlock()
			return u, nil
		}
		if s.rec == nil || !s.rec.isReady() || s.rec.err != nil || attempt >= 3 {
			s.mu.Unlock()
			return nil, fmt.Errorf("%w (events %d–%d)", ErrGap, after+1, s.ringFirst-1)
		}
		s.mu.Unlock()
		stored, err := s.rec.store.Events(context.Background(), s.rec.id, after)
		if err != nil {
			return nil, err
		}
		var old []Event
		for i, se := range stored {
			if se.Seq != after+1+int64(i) {
				return nil, fmt.Errorf("%w (event %d is not recorded)", ErrGap, after+1+int64(i))
			}
			ev := Event{Seq: se.Seq, Data: se.Data}
			if err := json.Unmarshal(se.Data, &ev.Event); err != nil {
				return nil, fmt.Errorf("runner: replay event %d: %w", se.Seq, err)
			}
			old = append(old, ev)
		}
		s.mu.Lock()
		if n := int64(len(old)); !s.closed && after+n+1 >= s.ringFirst {
			u := s.subscribeLocked(old[:s.ringFirst-after-1], s.ringFirst-1)
			s.mu.Unlock()
			return u, nil
		}
		s.mu.Unlock() // the ring moved on meanwhile: read again
	}
}

// subscribeLocked registers a subscriber that gets old, then the ring's
// events after after, then the live ones. mu held.
func (s *Session) subscribeLocked(old []Event, after int64) *Subscription {
	u := &Subscription{s: s, c: make(chan Event), max: s.o.Buffer, notify: make(chan struct{}, 1), done: make(chan struct{})}
	u.q = append(u.q, old...)
	if i := after + 1 - s.ringFirst; i < int64(len(s.ring)) {
		u.q = append(u.q, s.ring[i:]...)
	}
	s.subs[u] = struct{}{}
	go u.pump()
	return u
}
