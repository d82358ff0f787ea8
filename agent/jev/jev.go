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
	"errors"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/oceancode/oceancode/agent/engineapi"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/provider"
	"github.com/oceancode/oceancode/agent/shellguard"
)

// Mode is jev.permissions (engineapi.AdviceMode).
type Mode = engineapi.AdviceMode

// Modes.
const (
	// Shadow: the advice runs in the background and is only recorded; the
	// user is asked as before, without waiting.
	Shadow = engineapi.AdviceShadow
	// Act: a command inside the safe class runs without the prompt; the
	// prompt waits at most the deadline for the advice.
	Act = engineapi.AdviceAct
)

// DefaultDeadline is jev.deadline_ms's default.
const DefaultDeadline = 1500 * time.Millisecond

// Blast radius values (Scores.Blast).
const (
	BlastFile       = engineapi.BlastFile
	BlastProject    = engineapi.BlastProject
	BlastSystem     = engineapi.BlastSystem
	BlastThirdParty = engineapi.BlastThirdParty
)

// The advice's values are the engine's boundary vocabulary (a front end
// shows them without linking the advisor): Scores, Status and Advice are
// engineapi's AdviceScores, AdviceStatus and Advice.
type (
	// Scores are the model's answers to the four bounded questions.
	Scores = engineapi.AdviceScores
	// Status is the kind of an Advice.
	Status = engineapi.AdviceStatus
	// Advice is one advised decision, as the advice event and the session
	// store carry it; Advice.Safe reports the bounded safe class.
	Advice = engineapi.Advice
)

// Statuses. Unavailable and timeout are not unsafe: they say the advisor
// could not answer, and the call is asked as without Jev.
const (
	StatusSafe        = engineapi.AdviceSafe
	StatusUnsafe      = engineapi.AdviceUnsafe
	StatusUnavailable = engineapi.AdviceUnavailable
	StatusTimeout     = engineapi.AdviceTimeout
)

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
// file (CI workflows, .git/hooks, .mcp.json, shell rc files, ...), and
// never anything in the code-side bound, whatever an advice would say:
// inline or unreadable code (interpreters, shells, awk with system/pipes/
// redirection, sed e/w, database clients, make), destructive version
// control (reset --hard, clean, checkout/restore over the work tree,
// branch -D, stash drop/clear, push, history rewrites), in-place overwrite
// and truncation (truncate, shred, dd of=, a redirect, tee, cp or mv onto
// an existing file), find -delete/-exec, xargs, programs that act outside
// the project, and rm of anything git's last commit does not hold
// unchanged (git is asked at decision time; no answer is a refusal). nil
// means eligible; otherwise the error wraps ErrIneligible and says why.
func Eligible(req Request, d permission.Decision, mode permission.Mode) error {
	return eligible(req, d, mode)
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
	cfg Config

	mu     sync.Mutex
	cache  map[string]Advice // safe and unsafe verdicts by Key
	flight singleflight.Group
}

// New returns an Advisor for c.
func New(c Config) (*Advisor, error) {
	if c.Deadline <= 0 {
		c.Deadline = DefaultDeadline
	}
	switch c.Mode {
	case Shadow, Act:
	case "":
		c.Mode = Shadow
	default:
		return nil, fmt.Errorf("jev: new advisor: mode %q: want shadow or act", c.Mode)
	}
	return &Advisor{cfg: c, cache: map[string]Advice{}}, nil
}

// Mode returns the advisor's mode.
func (a *Advisor) Mode() Mode { return a.cfg.Mode }

// Deadline returns how long act mode waits for advice.
func (a *Advisor) Deadline() time.Duration { return a.cfg.Deadline }

// Advise answers the four questions for req. It never fails: see Advice.
// ctx bounds the request (the caller applies the deadline in act mode).
//
// In order: the injection guard (tripped: unsafe, no request), the verdict
// cache (a safe or unsafe verdict for the same Key: Cached, no request),
// then one model request shared by identical concurrent asks. A context
// that ends first is a timeout; a provider error or an answer that does
// not parse is unavailable. Acted is set for a safe advice in act mode.
func (a *Advisor) Advise(ctx context.Context, req Request) Advice {
	start := time.Now()
	facts := ComputeFacts(req)
	key := cacheKey(req, facts)
	adv := a.advise(ctx, req, facts, key)
	adv.Mode, adv.Key = a.cfg.Mode, key
	adv.Acted = a.cfg.Mode == Act && adv.Safe()
	if adv.Cached || adv.Injection {
		adv.Tokens = 0
	}
	adv.LatencyMS = time.Since(start).Milliseconds()
	return adv
}

func (a *Advisor) advise(ctx context.Context, req Request, facts Facts, key string) Advice {
	if hit, why := injected(req); hit {
		return Advice{Status: StatusUnsafe, Injection: true, Reasons: []string{why}}
	}
	if adv, ok := a.cached(key); ok {
		// A copy: the caller may keep or change its advice.
		adv.Cached = true
		adv.Reasons = append([]string(nil), adv.Reasons...)
		if adv.Scores != nil {
			s := *adv.Scores
			adv.Scores = &s
		}
		return adv
	}
	if err := ctx.Err(); err != nil {
		return timeout(err)
	}
	// A shared request runs under the context of the caller that started
	// it: when that caller gives up, a waiter whose own context is still
	// live asks again rather than inherit the timeout.
	for attempt := 0; ; attempt++ {
		ch := a.flight.DoChan(key, func() (any, error) {
			adv := a.ask(ctx, req, facts)
			if adv.Status == StatusSafe || adv.Status == StatusUnsafe {
				a.mu.Lock()
				a.cache[key] = adv
				a.mu.Unlock()
			}
			return adv, nil
		})
		select {
		case r := <-ch:
			adv := r.Val.(Advice)
			if r.Shared && adv.Status == StatusTimeout && ctx.Err() == nil && attempt < 2 {
				continue
			}
			return adv
		case <-ctx.Done():
			return timeout(ctx.Err())
		}
	}
}

func (a *Advisor) cached(key string) (Advice, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	adv, ok := a.cache[key]
	return adv, ok
}

// ask makes the model request.
func (a *Advisor) ask(ctx context.Context, req Request, facts Facts) Advice {
	if a.cfg.Provider == nil {
		return Advice{Status: StatusUnavailable, Reasons: []string{"model: no provider configured"}}
	}
	preq := buildRequest(a.cfg.Model, req, facts)
	resp, err := a.cfg.Provider.Stream(ctx, preq, nil)
	tokens := int(resp.Usage.InputTokens + resp.Usage.OutputTokens)
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
			adv := timeout(err)
			adv.Tokens = tokens
			return adv
		}
		return Advice{Status: StatusUnavailable, Tokens: tokens, Reasons: []string{"model: " + clip(err.Error(), 200)}}
	}
	scores, err := ParseAnswer(resp.Message.TextOf())
	if err != nil {
		return Advice{Status: StatusUnavailable, Tokens: tokens, Reasons: []string{err.Error()}}
	}
	adv := Advice{Status: StatusSafe, Scores: &scores, Tokens: tokens}
	if r := SafeClass(scores); len(r) > 0 {
		adv.Status, adv.Reasons = StatusUnsafe, r
	}
	return adv
}

func timeout(err error) Advice {
	return Advice{Status: StatusTimeout, Reasons: []string{"timeout: no answer before the deadline (" + err.Error() + ")"}}
}
