// Package session is OceanCode's session store and crash record.
//
// A [Store] keeps sessions in one embedded SQLite file (by convention
// $XDG_STATE_HOME/oceancode/sessions.db; the caller passes the path): each
// session's metadata, its conversation ([message.Message] values, in order),
// its event stream, the approvals given "always" and its accumulated token
// usage. Several oceancode processes may use the same file at once, each with
// its own *Store: the database runs in WAL mode with a busy timeout, and every
// write is a single short transaction.
//
// Every append is its own committed transaction: once AppendMessage,
// AppendEvent, AddApproval or AddUsage has returned, what it recorded survives
// the process being killed (kill -9 included). Resuming a session returns
// exactly what was recorded, byte for byte.
//
// A running session is held by one process through a [Lease] ([Store.Claim]):
// the holder's process id, the start time of that process (so a reused pid is
// not mistaken for the holder) and a heartbeat. [Store.Orphans] lists the
// sessions still marked running whose holder is gone; `oceancode doctor`
// offers to resume or close them.
//
// A panic in the agent is captured by [Recover], written as a crash report
// ([WriteCrashReport]) and re-raised. Crash reports are JSON files holding the
// stack, the version and the session id; anything that looks like a
// credential is scrubbed before writing, as a second line of defence behind
// callers that never put secrets there.
//
// Nothing in this package stores API keys or credentials: the store records
// what the conversation and the runtime hand it, and the runtime never hands
// it the provider's key.
package session
