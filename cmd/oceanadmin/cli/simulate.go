package cli

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/oceancode/oceancode/internal/exitcode"
	"github.com/oceancode/oceancode/internal/version"
	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/layers/report"
	"github.com/oceancode/oceancode/requirements"
)

type simulateOptions struct {
	managed      []string
	requirements string
	pubkeys      []string
	user         []string
	project      []string
	json         bool
	showSecrets  bool
	at           string
	agentVersion string
	hostname     string
	groups       []string
}

func newSimulateCmd(app *App) *cobra.Command {
	var o simulateOptions
	cmd := &cobra.Command{
		Use:   "simulate --managed M --requirements R --pubkey P [--user U] [--project P] [KEY...]",
		Short: "Show a machine's effective configuration, offline",
		Long: `Builds the effective configuration a machine would have from the given files
— exactly as oceancode does, with the --pubkey keys standing in for the admin
trust anchor — and renders it exactly like 'oceancode inspect'. Nothing on this
machine is read besides the named files: no environment, no state, not its
hostname or groups (--hostname and --group describe the simulated machine for
the policy's scopes; --agent-version its oceancode for min_version).

Exit status: 0 when the simulated machine could start sessions, 3 when a file
is invalid, 4 when its requirements would be refused.`,
		Example: `  oceanadmin simulate --managed managed.json --requirements requirements.json \
      --pubkey admin.pub --user ~/.config/oceancode/oceancode.json sandbox permission_mode`,
		RunE: func(cmd *cobra.Command, keys []string) error {
			return runSimulate(app, o, keys)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&o.managed, "managed", nil, "managed config file (repeatable: managed.json, then drop-ins)")
	f.StringVar(&o.requirements, "requirements", "", "signed requirements.json")
	f.StringArrayVar(&o.pubkeys, "pubkey", nil, "trusted public key: file or key string (repeatable)")
	f.StringArrayVar(&o.user, "user", nil, "user config file")
	f.StringArrayVar(&o.project, "project", nil, "project config file (repeatable: oceancode.json, then oceancode.local.json)")
	f.BoolVar(&o.json, "json", false, "print the JSON report (same shape as oceancode inspect --json)")
	f.BoolVar(&o.showSecrets, "show-secrets", false, "do not redact secret-looking values")
	f.StringVar(&o.at, "at", "", "simulate at this RFC 3339 time (expiry checks) instead of now")
	f.StringVar(&o.agentVersion, "agent-version", "", "the simulated machine's oceancode version, checked against min_version (default: this oceanadmin's version)")
	f.StringVar(&o.hostname, "hostname", "", "the simulated machine's hostname, for scopes matching on hosts (default: none matches)")
	f.StringArrayVar(&o.groups, "group", nil, "an OS group of the simulated user, for scopes matching on groups (repeatable)")
	return cmd
}

func runSimulate(app *App, o simulateOptions, keys []string) error {
	now := time.Now()
	if o.at != "" {
		t, err := time.Parse(time.RFC3339, o.at)
		if err != nil {
			return exitcode.With(exitcode.Usage, fmt.Errorf("parse --at %q: want an RFC 3339 time", o.at))
		}
		now = t
	}
	if o.agentVersion == "" {
		o.agentVersion = version.Version
	}
	if o.requirements != "" && len(o.pubkeys) == 0 {
		return exitcode.With(exitcode.Usage, errors.New("simulate: --requirements needs --pubkey: without a trusted key a machine does not enforce requirements"))
	}
	if err := checkPublicKeyArgs(o.pubkeys); err != nil {
		return err
	}
	for _, group := range []struct {
		flag  string
		files []string
	}{{"--managed", o.managed}, {"--user", o.user}, {"--project", o.project}, {"--requirements", []string{o.requirements}}} {
		for _, f := range group.files {
			if f == "" {
				continue
			}
			data, err := readInput(f, "file")
			if err != nil {
				return err
			}
			if err := flagFits(group.flag, f, data); err != nil {
				return err
			}
		}
	}
	var anchors requirements.Anchors
	if len(o.pubkeys) > 0 {
		anchors = requirements.KeysFromFlag(o.pubkeys)
		if anchors.Err != nil {
			return exitcode.With(exitcode.Usage, fmt.Errorf("simulate: --pubkey: %w", anchors.Err))
		}
	}
	res := layers.Resolve(layers.Options{
		Getenv:       func(string) string { return "" },
		NoState:      true,
		Now:          now,
		AgentVersion: o.agentVersion,
		Machine:      &requirements.Machine{Hostname: o.hostname, Groups: o.groups},
		Explicit: &layers.Explicit{Project: o.project, User: o.user, Managed: o.managed,
			Requirements: o.requirements, Anchors: anchors},
	})
	rep := report.Build(res, report.Options{Prefixes: keys, ShowSecrets: o.showSecrets})
	if o.json {
		b, err := rep.JSON()
		if err != nil {
			return err
		}
		if _, err := app.Stdout.Write(b); err != nil {
			return err
		}
	} else if err := rep.Text(app.Stdout, len(keys) > 0); err != nil {
		return err
	}
	if err := res.Err(); err != nil {
		code := exitcode.Invalid
		if errors.Is(err, layers.ErrRequirementsRefused) {
			code = exitcode.Refused
		}
		return &exitcode.Err{Code: code, Err: err, Silent: true}
	}
	return nil
}

// flagFits refuses a file given to the wrong flag, judged by its content: a
// requirements envelope or policy as a config layer, a config file as the
// requirements.
func flagFits(flag, file string, data []byte) error {
	content, _ := contentKind(data)
	switch {
	case flag != "--requirements" && content == contentEnvelope:
		return exitcode.With(exitcode.Usage, fmt.Errorf("simulate: %s %s: the content is a signed requirements envelope, not a config file: pass it with --requirements (and --pubkey)", flag, file))
	case flag != "--requirements" && content == contentPayload:
		return exitcode.With(exitcode.Usage, fmt.Errorf("simulate: %s %s: the content is a requirements policy, not a config file: sign it with 'oceanadmin sign' and pass the envelope with --requirements", flag, file))
	case flag == "--requirements" && content == contentConfig:
		return exitcode.With(exitcode.Usage, fmt.Errorf("simulate: --requirements %s: the content is a config file, not a signed requirements envelope: pass it with --managed, --user or --project", file))
	}
	return nil
}
