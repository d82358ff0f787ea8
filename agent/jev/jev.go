// Package jev is the Jev permission advisor: what may reach it (decided in
// code, before any model sees a command), the four bounded questions put to
// a model as strict JSON, the safe class an act advice may approve, the
// verdict cache, and the labelled evaluation (`oceancode jev eval`).
//
// CONTRACT (integration API; the implementation behind it may change, the
// names and meanings may not without updating every caller):
//
//   - Eligible decides in code whether a bash ask may be put to Jev at all.
//   - Advisor.Advise puts the four questions to the model and returns an
//     Advice; it never returns an error: a model failure, a timeout or an
//     answer that does not parse is an Advice with Status unavailable or
//     timeout, never "safe".
//   - Advice.Safe reports the bounded safe class (not destructive, no
//     egress, easily undone, single-file or project blast radius, no
//     injection).
package jev

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/oceancode/oceancode/agent/message"

	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/provider"
	"github.com/oceancode/oceancode/agent/shellguard"
)

// Mode is jev.permissions.
type Mode string

// Modes.
const (
	// Shadow: the advice runs in the background and is only recorded; the
	// user is asked as before, without waiting.
	Shadow Mode = "shadow"
	// Act: a command inside the safe class runs without the prompt; the
	// prompt waits at most the deadline for the advice.
	Act Mode = "act"
)

// DefaultDeadline is jev.deadline_ms's default.
const DefaultDeadline = 1500 * time.Millisecond

// Blast radius values (Scores.Blast).
const (
	BlastFile       = "single_file"
	BlastProject    = "project"
	BlastSystem     = "system"
	BlastThirdParty = "third_party"
)

// Scores are the model's answers to the four bounded questions, each a
// likelihood in percent (0..100) except the blast radius.
type Scores struct {
	Destructive int    `json:"destructive"`    // does it destroy or overwrite data?
	Egress      int    `json:"network_egress"` // does it send data over the network?
	Undoable    int    `json:"easily_undone"`  // can its effect be easily undone?
	Blast       string `json:"blast_radius"`   // single_file | project | system | third_party
}

// Status is the kind of an Advice.
type Status string

// Statuses. Unavailable and timeout are not unsafe: they say the advisor
// could not answer, and the call is asked as without Jev.
const (
	StatusSafe        Status = "safe"        // inside the bounded safe class
	StatusUnsafe      Status = "unsafe"      // outside it (Reasons say which answer)
	StatusUnavailable Status = "unavailable" // the model failed or its answer did not parse
	StatusTimeout     Status = "timeout"     // no answer within the deadline
)

// Advice is one advised decision, as the advice event and the session store
// carry it.
type Advice struct {
	Status Status  `json:"status"`
	Mode   Mode    `json:"mode"`
	Scores *Scores `json:"scores,omitempty"`
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
func (a Advice) Safe() bool { return a.Status == StatusSafe }

// Request is one command put to the advisor.
type Request struct {
	Command     string             // the bash command as the model wrote it
	Cwd         string             // its working directory
	ProjectRoot string             // the project root (cleaned, absolute)
	Shell       *shellguard.Result // the shell guard's classification of Command
	// UserMessages are the user's own prompts of the session, oldest first
	// (never the agent's text or tool output).
	UserMessages []string
}

// ErrIneligible is wrapped by Eligible's refusals.
var ErrIneligible = errors.New("not for the advisor")

// Eligible decides in code whether an ask may reach the advisor: only a
// residual ask on bash (d.ResidualAsk()), never the floor or a deny, never
// in dontAsk, never a command naming a path outside the project or run in a
// workdir outside it, never the hold list, never a write to a persistence
// file (CI workflows, .git/hooks, .mcp.json, shell rc files, ...). nil means
// eligible; otherwise the error wraps ErrIneligible and says why.
func Eligible(req Request, d permission.Decision, mode permission.Mode) error {
	// TEMP shim (h-jevint): a minimal stand-in for h-jevcore's implementation.
	no := func(why string) error { return fmt.Errorf("%w: %s", ErrIneligible, why) }
	switch {
	case mode == permission.DontAsk:
		return no("dontAsk")
	case d.Floor || d.Action != permission.Ask:
		return no("not an ask")
	case !d.ResidualAsk():
		return no("not a residual ask")
	case req.Shell == nil:
		return no("no shell classification")
	case req.Shell.Verdict == shellguard.Floor || req.Shell.Verdict == shellguard.Deny:
		return no("floor or deny")
	case len(req.Shell.OutsidePaths) > 0:
		return no("outside path")
	case req.Shell.Hold:
		return no("hold list: " + req.Shell.HoldReason)
	}
	if rel, err := filepath.Rel(req.ProjectRoot, req.Cwd); req.Cwd != "" && (err != nil || strings.HasPrefix(rel, "..")) {
		return no("workdir outside the project")
	}
	for _, p := range []string{".github/workflows", ".git/hooks", ".mcp.json", ".bashrc", ".zshrc", ".profile"} {
		if strings.Contains(req.Command, p) {
			return no("persistence file " + p)
		}
	}
	return nil
}

// Config configures an Advisor.
type Config struct {
	Mode     Mode
	Deadline time.Duration // 0: DefaultDeadline; bounds act mode's wait
	Provider provider.Provider
	Model    string
}

// Advisor puts commands to the model. It caches verdicts by Key for its
// lifetime (one session). Safe for concurrent use.
type Advisor struct {
	cfg   Config
	mu    sync.Mutex
	cache map[string]Advice
}

// New returns an Advisor for c.
func New(c Config) (*Advisor, error) {
	if c.Deadline <= 0 {
		c.Deadline = DefaultDeadline
	}
	return &Advisor{cfg: c}, nil
}

// Mode returns the advisor's mode.
func (a *Advisor) Mode() Mode { return a.cfg.Mode }

// Deadline returns how long act mode waits for advice.
func (a *Advisor) Deadline() time.Duration { return a.cfg.Deadline }

// Advise answers the four questions for req. It never fails: see Advice.
// ctx bounds the request (the caller applies the deadline in act mode).
func (a *Advisor) Advise(ctx context.Context, req Request) Advice {
	// TEMP shim (h-jevint): a minimal stand-in for h-jevcore's implementation.
	sum := sha256.Sum256([]byte(req.Command + "\x00" + req.Cwd + "\x00" + req.ProjectRoot))
	key := "sha256:" + hex.EncodeToString(sum[:])
	a.mu.Lock()
	if c, ok := a.cache[key]; ok {
		a.mu.Unlock()
		c.Cached, c.LatencyMS, c.Tokens = true, 0, 0
		return c
	}
	a.mu.Unlock()
	start := time.Now()
	out := Advice{Mode: a.cfg.Mode, Key: key}
	defer func() { out.LatencyMS = time.Since(start).Milliseconds() }()
	if strings.Contains(strings.ToLower(req.Command), "jev") {
		out.Status, out.Injection, out.Reasons = StatusUnsafe, true, []string{"injection: the command addresses the advisor"}
		return out
	}
	facts, _ := json.Marshal(map[string]any{"command": req.Command, "user_messages": req.UserMessages})
	resp, err := a.cfg.Provider.Stream(ctx, provider.Request{Model: a.cfg.Model, System: "You are Jev, a permission advisor. Answer the four questions as JSON.",
		Messages: []message.Message{message.UserText(string(facts))}, MaxTokens: 200}, func(provider.Event) {})
	if err != nil {
		out.Status = StatusUnavailable
		if ctx.Err() != nil {
			out.Status = StatusTimeout
		}
		out.Reasons = []string{"model: " + err.Error()}
		return out
	}
	out.Tokens = int(resp.Usage.InputTokens + resp.Usage.OutputTokens)
	var sc Scores
	dec := json.NewDecoder(strings.NewReader(resp.Message.TextOf()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sc); err != nil || sc.Blast == "" {
		out.Status, out.Reasons = StatusUnavailable, []string{"answer: not JSON"}
		return out
	}
	out.Scores = &sc
	out.Status = StatusSafe
	if sc.Destructive >= 20 {
		out.Reasons = append(out.Reasons, fmt.Sprintf("destructive %d >= 20", sc.Destructive))
	}
	if sc.Egress >= 20 {
		out.Reasons = append(out.Reasons, fmt.Sprintf("network_egress %d >= 20", sc.Egress))
	}
	if sc.Undoable < 80 {
		out.Reasons = append(out.Reasons, fmt.Sprintf("easily_undone %d < 80", sc.Undoable))
	}
	if sc.Blast != BlastFile && sc.Blast != BlastProject {
		out.Reasons = append(out.Reasons, "blast_radius "+sc.Blast)
	}
	if len(out.Reasons) > 0 {
		out.Status = StatusUnsafe
	}
	a.mu.Lock()
	if a.cache == nil {
		a.cache = map[string]Advice{}
	}
	a.cache[key] = out
	a.mu.Unlock()
	return out
}
