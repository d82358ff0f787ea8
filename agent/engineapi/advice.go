package engineapi

// AdviceMode is jev.permissions: what the Jev advisor's advice may do.
type AdviceMode string

// Advice modes.
const (
	// AdviceShadow: the advice runs in the background and is only
	// recorded; the user is asked as before, without waiting.
	AdviceShadow AdviceMode = "shadow"
	// AdviceAct: a command inside the safe class runs without the prompt;
	// the prompt waits at most the deadline for the advice.
	AdviceAct AdviceMode = "act"
)

// Blast radius values (AdviceScores.Blast).
const (
	BlastFile       = "single_file"
	BlastProject    = "project"
	BlastSystem     = "system"
	BlastThirdParty = "third_party"
)

// AdviceScores are the model's answers to the advisor's four bounded
// questions, each a likelihood in percent (0..100) except the blast radius.
type AdviceScores struct {
	Destructive int    `json:"destructive"`    // does it destroy or overwrite data?
	Egress      int    `json:"network_egress"` // does it send data over the network?
	Undoable    int    `json:"easily_undone"`  // can its effect be easily undone?
	Blast       string `json:"blast_radius"`   // single_file | project | system | third_party
}

// AdviceStatus is the kind of an Advice.
type AdviceStatus string

// Advice statuses. Unavailable and timeout are not unsafe: they say the
// advisor could not answer, and the call is asked as without Jev.
const (
	AdviceSafe        AdviceStatus = "safe"        // inside the bounded safe class
	AdviceUnsafe      AdviceStatus = "unsafe"      // outside it (Reasons say which answer)
	AdviceUnavailable AdviceStatus = "unavailable" // the model failed or its answer did not parse
	AdviceTimeout     AdviceStatus = "timeout"     // no answer within the deadline
)

// Advice is one advised decision of the Jev advisor (agent/jev), as the
// advice event, an ask and the session store carry it.
type Advice struct {
	Status AdviceStatus  `json:"status"`
	Mode   AdviceMode    `json:"mode"`
	Scores *AdviceScores `json:"scores,omitempty"`
	// Reasons say why the advice is outside the safe class ("destructive
	// 80 >= 20", "injection: the command addresses the advisor") or why it
	// is unavailable ("model: 503 ...", "answer: not JSON").
	Reasons []string `json:"reasons,omitempty"`
	// Injection is true when the injection guard tripped (the command
	// carries text addressed to the advisor); such advice is unsafe.
	Injection bool `json:"injection,omitempty"`
	// Cached is true when an identical command earlier in the session
	// answered (no model request was made).
	Cached bool `json:"cached,omitempty"`
	// Key is the verdict cache key: a digest of the normalised command and
	// the facts computed in code.
	Key       string `json:"key"`
	LatencyMS int64  `json:"latency_ms"`
	Tokens    int    `json:"tokens,omitempty"` // input + output tokens of the request
	// Acted is true when the advice approved the call (act mode, safe).
	Acted bool `json:"acted,omitempty"`
}

// Safe reports whether the advice puts the command inside the safe class.
func (a Advice) Safe() bool { return a.Status == AdviceSafe }
