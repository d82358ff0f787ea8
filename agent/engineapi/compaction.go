package engineapi

// EventCompaction: the conversation sent to the model was compacted (old
// tool outputs pruned, older turns summarised): Compaction says what was
// removed and the tokens before and after. The session store keeps the
// whole history; the event's State is what a resumed session re-applies.
const EventCompaction EventType = "compaction"

// Reasons a compaction ran (Compaction.Reason).
const (
	CompactAuto    = "auto"             // the next request would pass the threshold
	CompactManual  = "manual"           // /compact, POST /api/session/{id}/compact
	CompactTooLong = "context_too_long" // the provider refused the request as too long
)

// Compaction is what one compaction did.
type Compaction struct {
	Reason string `json:"reason"`
	Focus  string `json:"focus,omitempty"` // what a manual compaction was asked to keep
	// Pruned tool outputs (stubbed; their calls stay) and their bytes.
	Pruned      int `json:"pruned"`
	PrunedBytes int `json:"pruned_bytes"`
	// Summarised is how many messages the summary replaced (0: none).
	Summarised int `json:"summarised"`
	// TokensBefore and TokensAfter are the estimated tokens of the request
	// before and after; Window is the model's context window (0: unknown).
	TokensBefore int64 `json:"tokens_before"`
	TokensAfter  int64 `json:"tokens_after"`
	Window       int64 `json:"window,omitempty"`
	// State is the compaction in effect after this one.
	State CompactionState `json:"state"`
}

// CompactionState is what the sent conversation is derived with from the
// stored history: the summary that replaces History[:SummaryUpto], and the
// tool outputs of History[:PrunedUpto] larger than StubOver bytes replaced
// by a one-line stub. The zero value sends the history as it is.
type CompactionState struct {
	SummaryUpto int    `json:"summary_upto,omitempty"`
	Summary     string `json:"summary,omitempty"`
	PrunedUpto  int    `json:"pruned_upto,omitempty"`
	StubOver    int    `json:"stub_over,omitempty"`
}

// ContextUse is how full the model's context was at the last request (a
// usage event's): Tokens the prompt's (input + cache reads and writes),
// Window the model's context window (0: unknown).
type ContextUse struct {
	Tokens int64 `json:"tokens"`
	Window int64 `json:"window,omitempty"`
}
