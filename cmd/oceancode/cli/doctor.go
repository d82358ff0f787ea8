package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/oceancode/oceancode/agent/sandbox"
	"github.com/oceancode/oceancode/internal/exitcode"
	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/layers/report"
)

func init() { extraCommands = append(extraCommands, newDoctorCmd) }

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
	Policy       []proof             `json:"policy,omitempty"`
	Problems     []string            `json:"problems"`
}

type doctorConfig struct {
	Valid       bool                `json:"valid"`
	Blocking    string              `json:"blocking,omitempty"`
	Diagnostics []layers.Diagnostic `json:"diagnostics,omitempty"`
}

type doctorSandbox struct {
	Configured string          `json:"configured"`
	Support    sandbox.Support `json:"support"`
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
definitions, live mode switches, "always" approvals) and prints pass or fail
for each — and checks that the dangerous floor holds under bypassPermissions
with an allow-all rule. Exit status 1 when any check fails.

doctor always runs, even when sessions are refused.`,
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
	if res.Err() != nil {
		rep.Problems = append(rep.Problems, "sessions are refused: "+strings.SplitN(full.Blocking, "\n", 2)[0])
	}
	switch res.Requirements.Status {
	case "absent", "expired_warn", "last_known_good":
		rep.Problems = append(rep.Problems, "requirements "+string(res.Requirements.Status)+": "+res.Requirements.Reason)
	}

	var pol sandbox.Policy
	_ = decodeKey(res, "sandbox", &pol)
	rep.Sandbox = doctorSandbox{Configured: pol.Describe(), Support: sandbox.Detect()}
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
	rep.Problems = append(rep.Problems, leftoverProblems()...) // doctor_procs.go

	failed := 0
	if o.policy {
		p := &prover{app: app, home: app.Getenv("HOME")}
		p.run(res)
		rep.Policy = p.proofs
		for _, pr := range p.proofs {
			if pr.Result == "fail" {
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
	if failed > 0 {
		return &exitcode.Err{Code: exitcode.Error, Silent: o.json, Err: fmt.Errorf("doctor --policy: %d check(s) failed: a lock does not hold on the path(s) marked FAIL", failed)}
	}
	return nil
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
	if rep.Config.Valid {
		fmt.Fprintf(w, "Configuration  valid\n")
	} else {
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
	fmt.Fprintf(w, "%d checks: %d held, %d broken, %d skipped\n", len(rep.Policy), pass, fail, skip)
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
