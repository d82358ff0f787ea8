package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/oceancode/oceancode/signing"
)

// Text writes the report for people. With detail, every key's whole
// override chain is printed (inspect KEY…).
func (r *Report) Text(w io.Writer, detail bool) error {
	var b bytes.Buffer
	q := r.Requirements
	fmt.Fprintf(&b, "Requirements: %s\n", q.Status)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	if q.Path != "" {
		fmt.Fprintf(tw, "  file\t%s\n", q.Path)
	}
	if q.Reason != "" {
		fmt.Fprintf(tw, "  why\t%s\n", oneLine(q.Reason))
	}
	if q.Serial != 0 {
		fmt.Fprintf(tw, "  serial\t%d\n", q.Serial)
		fmt.Fprintf(tw, "  expires\t%s\n", q.ExpiresAt)
		fmt.Fprintf(tw, "  payload sha256\t%s\n", q.PayloadSHA256)
		fmt.Fprintf(tw, "  signed by\t%s\n", strings.Join(short(q.Signers), ", "))
	}
	if len(q.TrustedKeys) > 0 {
		how := "trusted keys"
		if q.Enforced {
			how = "trusted keys (admin anchor)"
		}
		fmt.Fprintf(tw, "  %s\t%s", how, strings.Join(short(q.TrustedKeys), ", "))
		if q.TrustSource != "" {
			fmt.Fprintf(tw, " (from %s)", q.TrustSource)
		}
		fmt.Fprintln(tw)
	}
	if a := r.Attestation; a.OSManaged != "" {
		fmt.Fprintf(tw, "  OS-managed source\t%s (wins over the managed dir for each value it sets)\n", a.OSManaged)
	}
	if l := r.Attestation.LastKnownGood; l != nil {
		use := "on record"
		if l.InUse {
			use = "in use: it stands in for the refused file"
		}
		fmt.Fprintf(tw, "  last known good\tserial %d, payload sha256 %s (%s)\n", l.Serial, l.PayloadSHA256, use)
	}
	for _, wn := range q.Warnings {
		fmt.Fprintf(tw, "  warning\t%s\n", oneLine(wn))
	}
	tw.Flush()
	if r.Blocking != "" {
		fmt.Fprintf(&b, "\nSessions are refused:\n  %s\n", strings.ReplaceAll(r.Blocking, "\n", "\n  "))
	}

	workspaceText(&b, r.Workspace)

	if sb := r.Sandbox; sb != nil {
		fmt.Fprintf(&b, "\nSandbox: %s\n", sb.Configured)
		if sb.Problem != "" {
			fmt.Fprintf(&b, "  not available here: %s\n", sb.Problem)
		}
		for _, w := range sb.Warnings {
			fmt.Fprintf(&b, "  warning: %s\n", w)
		}
	}

	b.WriteString("\nLayers (lowest first):\n")
	tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, l := range r.Layers {
		fmt.Fprintf(tw, "  %s\t%s\t%s", l.Layer, l.Source, l.Status)
		if l.Reason != "" {
			fmt.Fprintf(tw, "\t%s", oneLine(l.Reason))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()

	if len(r.Diagnostics) > 0 {
		b.WriteString("\nDiagnostics:\n")
		for _, d := range r.Diagnostics {
			fmt.Fprintf(&b, "  %s\n", oneLine(d.String()))
		}
	}

	if l := r.Locks; l != nil && (len(l.DisallowedModes) > 0 || len(l.MCPRefused) > 0 || l.MinSandboxMode != "" || newKindsSet(l)) {
		b.WriteString("\nLocks (from requirements):\n")
		for _, m := range slices.Sorted(maps.Keys(l.DisallowedModes)) {
			fmt.Fprintf(&b, "  mode %s locked out: %s\n", m, l.DisallowedModes[m])
		}
		if l.MinSandboxMode != "" {
			fmt.Fprintf(&b, "  sandbox at least %s\n", l.MinSandboxMode)
		}
		for _, s := range slices.Sorted(maps.Keys(l.MCPRefused)) {
			fmt.Fprintf(&b, "  MCP server %s will not start: %s\n", s, l.MCPRefused[s])
		}
		newKindsText(&b, l)
	}

	if len(r.KeysInOrder()) > 0 {
		b.WriteString("\nKeys:\n")
	}
	if detail {
		for _, k := range r.KeysInOrder() {
			e := r.Keys[k]
			fmt.Fprintf(&b, "  %s = %s\n", k, render(e.Value))
			fmt.Fprintf(&b, "    set by   %s %s%s\n", e.Layer, loc(e.Source, e.Line), flags(e))
			for _, m := range e.Merged {
				fmt.Fprintf(&b, "    merged   %s %s  %s\n", m.Layer, loc(m.Source, m.Line), render(m.Value))
			}
			for _, ov := range e.Overrides {
				fmt.Fprintf(&b, "    overrides %s %s  %s\n", ov.Layer, loc(ov.Source, ov.Line), render(ov.Value))
			}
			for _, rf := range e.Refused {
				fmt.Fprintf(&b, "    refused  %s from %s %s: %s\n", render(rf.Value), rf.Layer, loc(rf.Source, rf.Line), rf.Reason)
			}
		}
	} else {
		tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		for _, k := range r.KeysInOrder() {
			e := r.Keys[k]
			note := strings.TrimSpace(flags(e))
			if n := len(e.Overrides); n > 0 {
				ov := e.Overrides[0]
				note = strings.TrimSpace(note + fmt.Sprintf(" (overrides %s %s", ov.Layer, render(ov.Value)))
				if n > 1 {
					note += fmt.Sprintf(" and %d more", n-1)
				}
				note += ")"
			}
			if len(e.Refused) > 0 {
				note = strings.TrimSpace(note + fmt.Sprintf(" (refused %s: %s)", render(e.Refused[0].Value), e.Refused[0].Reason))
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", k, render(e.Value), e.Layer, loc(e.Source, e.Line), note)
		}
		tw.Flush()
	}
	_, err := w.Write(trimLines(b.Bytes()))
	return err
}

func flags(k Key) string {
	s := ""
	if k.Pinned {
		s += " (pinned)"
	}
	if k.Merge == "append" || k.Merge == "union" {
		if len(k.Merged) > 1 {
			s += " (" + k.Merge + " of " + fmt.Sprint(len(k.Merged)) + " layers)"
		}
	}
	return s
}

func loc(src string, line int) string {
	if line > 0 {
		return fmt.Sprintf("%s:%d", src, line)
	}
	return src
}

func render(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// trimLines drops the trailing blanks tabwriter leaves after an empty last cell.
func trimLines(b []byte) []byte {
	lines := bytes.Split(b, []byte("\n"))
	for i, l := range lines {
		lines[i] = bytes.TrimRight(l, " ")
	}
	return bytes.Join(lines, []byte("\n"))
}

func oneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }

func short(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = signing.ShortID(id)
	}
	return out
}

func newKindsSet(l *Locks) bool {
	return l.MinVersion != "" || len(l.AllowedModels) > 0 || len(l.AllowedProviders) > 0 || l.Instructions != "" || l.ShellPosture != "" || len(l.Scopes) > 0 || l.Hooks != "" ||
		l.Commands != "" || l.Skills != ""
}

// newKindsText shows the newer requirement kinds.
func newKindsText(b *bytes.Buffer, l *Locks) {
	if l.MinVersion != "" {
		fmt.Fprintf(b, "  version at least %s\n", l.MinVersion)
	}
	if l.Refused != "" {
		fmt.Fprintf(b, "  sessions refused: %s\n", l.Refused)
	}
	for _, s := range l.AllowedModels {
		fmt.Fprintf(b, "  models: %s\n", s)
	}
	for _, s := range l.AllowedProviders {
		fmt.Fprintf(b, "  providers: %s\n", s)
	}
	if l.ShellPosture != "" {
		fmt.Fprintf(b, "  shell posture %s: every bash command asks; no lower layer loosens it\n", l.ShellPosture)
	}
	for _, s := range l.Scopes {
		fmt.Fprintf(b, "  scope %s\n", s)
	}
	if l.Hooks != "" {
		b.WriteString("  hooks: only the managed layer's and the requirements' run (allow_managed_hooks_only)\n")
	}
	for _, s := range l.DroppedHooks {
		fmt.Fprintf(b, "  hook dropped: %s\n", s)
	}
	customText(b, l)
	if l.Instructions != "" {
		b.WriteString("  organisation instructions (appended to every agent's system prompt):\n")
		for _, line := range strings.Split(l.Instructions, "\n") {
			fmt.Fprintf(b, "    | %s\n", line)
		}
	}
}

// workspaceText is the workspace trust block: the state, why, and each key
// the project's config loosens, marked when it was ignored.
func workspaceText(b *bytes.Buffer, ws *Workspace) {
	if ws == nil || (ws.Root == "" && len(ws.Loosening) == 0) {
		return
	}
	fmt.Fprintf(b, "\nWorkspace: %s (%s; project_config %s)\n  why  %s\n", ws.Root, ws.State, ws.ProjectConfig, oneLine(ws.Reason))
	for _, k := range ws.Loosening {
		mark := "applied"
		if k.Ignored {
			mark = "ignored"
		}
		fmt.Fprintf(b, "  %s  %s at %s = %s (%s)\n", mark, k.Key, loc(k.Source, k.Line), oneLine(render(k.Value)), k.Why)
	}
}
