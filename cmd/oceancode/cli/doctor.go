package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/oceancode/oceancode/agent/sandbox"
	"github.com/oceancode/oceancode/internal/exitcode"
	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/layers/report"
	"github.com/oceancode/oceancode/policyproof"
	"github.com/oceancode/oceancode/sessionconfig"
)

type doctorOptions struct {
	json   bool
	policy bool
}

// doctorReport is the --json shape of doctor (docs/cli.md); version 1.
type doctorReport struct {
	Version      int                 `json:"version"`
	Requirements report.Requirements `json:"requirements"`
	Config       doctorConfig        `json:"config"`
	Sandbox      doctorSandbox       `json:"sandbox"`
	Sessions     *doctorSessions     `json:"sessions,omitempty"`
	Policy       []proofRow          `json:"policy,omitempty"`
	Problems     []string            `json:"problems"`
}

// proofRow is one result of package policyproof as doctor renders it.
type proofRow struct {
	What   string `json:"what"`   // the lock: "mode bypassPermissions", "pin sandbox.mode", "deny Bash(curl:*)", …
	Path   string `json:"path"`   // how it was tried: "flag --permission-mode", "user config", …
	Result string `json:"result"` // "pass", "fail" or "skip"
	Detail string `json:"detail"` // what came of it
}

// outcomeWord is the result word of doctor --policy for o (docs/runtime.md).
func outcomeWord(o policyproof.Outcome) string {
	switch o {
	case policyproof.Held:
		return "pass"
	case policyproof.Broken:
		return "fail"
	}
	return "skip" // NotRun, NotApplicable: counted as "could not run"
}

type doctorConfig struct {
	Valid       bool                `json:"valid"`
	Blocking    string              `json:"blocking,omitempty"`
	Diagnostics []layers.Diagnostic `json:"diagnostics,omitempty"`
}

type doctorSandbox struct {
	Configured string          `json:"configured"`
	Support    sandbox.Support `json:"support"`
	Helpers    doctorHelpers   `json:"helpers"`
}

// doctorHelpers are the programs the sandbox runs inside bubblewrap: the
// exec helper (C, the plain path; "" when not installed beside oceancode)
// and the Go helper (network allowlist, and the plain path without the
// exec helper).
type doctorHelpers struct {
	Exec string `json:"exec,omitempty"`
	Go   string `json:"go,omitempty"`
}

func newDoctorCmd(app *App) *cobra.Command {
	var o doctorOptions
	cmd := &cobra.Command{
		Use:   "doctor [--json] [--policy]",
		Short: "Check this machine: requirements, configuration, sandbox, sessions and crashes",
		Long: `Reports the requirements status, whether the configuration is valid, what
the kernel sandbox can do here (bubblewrap, user namespaces, Landlock ABI,
seccomp), orphaned sessions and crash reports, with what to do about each.

--policy proves the requirements in effect: it tries every path by which a
locked-out mode, a pinned key, a denied command or a weaker sandbox could be
reached (flags, environment, project, user and managed config, agent
definitions, "always" approvals) through the code a session runs, and prints
pass or fail for each — a check that could not run says why — and checks
that the dangerous floor holds under bypassPermissions with an allow-all
rule.

doctor always runs, even when sessions are refused. Exit status: 0 healthy,
3 or 4 when sessions are refused (as a session would get), 1 when a
--policy check failed.`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return runDoctor(app, o) },
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print the report as JSON")
	cmd.Flags().BoolVar(&o.policy, "policy", false, "prove each lock of the requirements holds")
	return cmd
}

func runDoctor(app *App, o doctorOptions) error {
	res, err := loadConfig(app, nil)
	if err != nil {
		return err
	}
	rep := doctorReport{Version: 1, Problems: []string{}}
	full := report.Build(res, report.Options{Abbrev: homeAbbrev(app)})
	rep.Requirements = full.Requirements
	valid := true
	for _, d := range res.Diagnostics {
		if d.Severity == layers.Error {
			valid = false
		}
	}
	rep.Config = doctorConfig{Valid: valid, Blocking: full.Blocking, Diagnostics: full.Diagnostics}
	if err := res.Err(); err != nil {
		rep.Problems = append(rep.Problems, refusedProblem(err))
	}
	for _, d := range res.Diagnostics {
		if d.Severity == layers.Warning {
			rep.Problems = append(rep.Problems, d.String())
		}
	}
	switch res.Requirements.Status {
	case "expired_warn", "last_known_good":
		rep.Problems = append(rep.Problems, "requirements "+string(res.Requirements.Status)+": "+res.Requirements.Reason)
	}

	pol, _, _ := sessionconfig.Sandbox.Decode(res)
	rep.Sandbox = doctorSandbox{Configured: pol.Describe(), Support: sandbox.Detect()}
	rep.Sandbox.Helpers.Exec, rep.Sandbox.Helpers.Go, _ = sandbox.Helpers()
	if pol.Confined() {
		if err := rep.Sandbox.Support.Usable(); err != nil {
			rep.Problems = append(rep.Problems, "the sandbox is on but cannot run here, so bash commands are refused: "+err.Error())
		}
	}
	rep.Problems = append(rep.Problems, rep.Sandbox.Support.Warnings...)
	rep.Sessions = doctorSessionsOf(app)
	if rep.Sessions != nil {
		rep.Problems = append(rep.Problems, rep.Sessions.problems()...)
	}
	rep.Problems = append(rep.Problems, leftoverProblems()...)    // doctor_procs.go
	rep.Problems = append(rep.Problems, mcpProblems(app, res)...) // mcp.go

	failed := 0
	if o.policy {
		dir, err := app.WorkDir()
		if err != nil {
			return err
		}
		results := policyproof.Prove(res, policyproof.Config{Layers: layerOptions(app, dir), Home: app.Getenv("HOME")})
		for _, r := range results {
			rep.Policy = append(rep.Policy, proofRow{What: r.Lock.String(), Path: r.Path, Result: outcomeWord(r.Outcome), Detail: r.Detail})
			if r.Outcome == policyproof.Broken {
				failed++
			}
		}
	}
	if o.json {
		if err := writeJSON(app, rep); err != nil {
			return err
		}
	} else {
		printDoctor(app.Stdout, rep, o.policy, res)
	}
	// A machine where no session can start is not healthy: the same exit
	// status a session would get (3 invalid configuration, 4 requirements
	// refused).
	if err := sessionGate(res); err != nil {
		return &exitcode.Err{Code: exitcode.Code(err, exitcode.Error), Silent: o.json,
			Err: errors.New("doctor: sessions are refused on this machine; see 'To look at' above")}
	}
	if failed > 0 {
		return &exitcode.Err{Code: exitcode.Error, Silent: o.json, Err: fmt.Errorf("doctor --policy: %d check(s) failed: a lock does not hold on the path(s) marked FAIL", failed)}
	}
	return nil
}

// refusedProblem is the whole sentence doctor lists when sessions are
// refused: why, and what to do.
func refusedProblem(err error) string {
	var ce *layers.ConfigError
	var re *layers.RefusedError
	switch {
	case errors.As(err, &ce):
		return "sessions are refused: " + policyproof.RefusedWhy(err) + ", listed under Configuration above; fix the file(s) (a managed file is your administrator's), then check with 'oceancode inspect'"
	case errors.As(err, &re):
		return "sessions are refused: " + policyproof.RefusedWhy(err) + "; ask your administrator for a requirements.json signed by a trusted key, and check it with 'oceanadmin verify'"
	}
	return "sessions are refused: " + policyproof.RefusedWhy(err)
}

func printDoctor(w io.Writer, rep doctorReport, policy bool, res *layers.Resolved) {
	q := rep.Requirements
	fmt.Fprintf(w, "Requirements   %s", q.Status)
	if q.Serial != 0 {
		fmt.Fprintf(w, " (serial %d, expires %s)", q.Serial, q.ExpiresAt)
	}
	fmt.Fprintln(w)
	if q.Reason != "" {
		fmt.Fprintf(w, "               %s\n", oneLine(q.Reason))
	}
	warnings := 0
	for _, d := range rep.Config.Diagnostics {
		if d.Severity == layers.Warning {
			warnings++
		}
	}
	switch {
	case rep.Config.Valid && warnings > 0:
		fmt.Fprintf(w, "Configuration  valid, with %d warning(s) (below, under To look at)\n", warnings)
	case rep.Config.Valid:
		fmt.Fprintf(w, "Configuration  valid\n")
	default:
		fmt.Fprintf(w, "Configuration  INVALID\n")
		for _, d := range rep.Config.Diagnostics {
			if d.Severity == layers.Error {
				fmt.Fprintf(w, "               %s\n", oneLine(d.String()))
			}
		}
	}
	s := rep.Sandbox.Support
	fmt.Fprintf(w, "Sandbox        %s\n", rep.Sandbox.Configured)
	switch {
	case s.Problem != "":
		fmt.Fprintf(w, "               not available here: %s\n", s.Problem)
	default:
		fmt.Fprintf(w, "               %s, user namespaces %v, Landlock ABI %d, seccomp %v\n", orNone(s.BwrapVersion, s.Bwrap), s.UserNS, s.LandlockABI, s.Seccomp)
		if h := rep.Sandbox.Helpers; h.Exec != "" {
			fmt.Fprintf(w, "               helper %s, no capabilities, bubblewrap makes every mount (the Go helper %s for a network allowlist)\n", h.Exec, orNone(h.Go, "none"))
		} else if h.Go != "" {
			fmt.Fprintf(w, "               helper %s: the exec helper (%s) is not installed beside oceancode, so each sandboxed command starts a Go program (about 1.3 ms more)\n", h.Go, sandbox.ExecHelperBinary)
		}
		if s.GitHistory != "" {
			fmt.Fprintf(w, "               git history %s\n", s.GitHistory)
		}
	}
	if rep.Sessions != nil {
		rep.Sessions.print(w)
	}
	if len(rep.Problems) > 0 {
		fmt.Fprintf(w, "\nTo look at:\n")
		for _, p := range rep.Problems {
			fmt.Fprintf(w, "  - %s\n", oneLine(p))
		}
	}
	if !policy {
		return
	}
	fmt.Fprintln(w)
	if res.Locks.Policy == nil {
		fmt.Fprintf(w, "Policy proof: no requirements policy is in effect, so there are no locks to prove; the dangerous floor:\n")
	} else {
		fmt.Fprintf(w, "Policy proof (requirements serial %d, %s):\n", res.Locks.Policy.Serial, q.Path)
	}
	pass, fail, skip := 0, 0, 0
	for _, p := range rep.Policy {
		switch p.Result {
		case "pass":
			pass++
		case "fail":
			fail++
		default:
			skip++
		}
		fmt.Fprintf(w, "  %-4s  %s, via %s: %s\n", strings.ToUpper(p.Result), p.What, p.Path, p.Detail)
	}
	fmt.Fprintf(w, "%d checks: %d held, %d broken, %d could not run\n", len(rep.Policy), pass, fail, skip)
}

func oneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }

func orNone(a, b string) string {
	if a != "" {
		return a
	}
	if b != "" {
		return b
	}
	return "bubblewrap not found"
}
