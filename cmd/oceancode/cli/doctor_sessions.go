package cli

import "io"

// doctorSessions reports orphaned sessions and crash reports. The session
// store is wired in with the runtime; until then doctor says nothing here.
type doctorSessions struct{}

func doctorSessionsOf(app *App) *doctorSessions { return nil }

func (d *doctorSessions) problems() []string { return nil }

func (d *doctorSessions) print(w io.Writer) {}
