package engineapi

import (
	"errors"
	"fmt"
	"time"
)

// The engine's errors a front end branches on. Their texts keep the
// runner's prefix: they are the session engine's errors, only named here.
var (
	// ErrClosed: the session is closed.
	ErrClosed = errors.New("runner: session closed")
	// ErrLagged: a subscriber fell further behind than its buffer.
	ErrLagged = errors.New("runner: subscriber fell behind and was dropped")
	// ErrGap: events a Subscribe asked for are no longer held (not recorded).
	ErrGap = errors.New("runner: events before the replay window are not recorded")
	// ErrNoAsk: no ask has that id.
	ErrNoAsk = errors.New("runner: no such ask")
	// ErrDigest: a reply's digest is not the ask's input digest.
	ErrDigest = errors.New("runner: the input digest does not match the ask")
	// ErrAnswer: a reply's answer is not one of the ask's choices.
	ErrAnswer = errors.New("runner: not one of the ask's choices")
	// ErrUnsupported is returned by a switch the session was not given the
	// means for (runner.Options without the hook it needs).
	ErrUnsupported = errors.New("not supported by this session")
)

// AnsweredError: the ask was answered already; First is that answer.
type AnsweredError struct {
	First Reply
	At    time.Time
}

func (e *AnsweredError) Error() string {
	return fmt.Sprintf("runner: the ask was answered already (%s by %s at %s)", e.First.Answer, e.First.By, e.At.Format(time.RFC3339))
}
