package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/oceancode/oceancode/internal/jsontext"
	"github.com/oceancode/oceancode/layers"
)

// JSON renders the report as indented JSON with a trailing newline: what
// json.Encoder with SetEscapeHTML(false) and SetIndent("", "  ") writes for
// r, byte for byte (TestJSONMatchesEncoder holds the two together).
//
// The report's structs are written by hand rather than by encoding/json:
// the reflection encoding/json does the first time it meets each struct
// type cost a twentieth of a cold `inspect --json` process, more than
// writing the whole report. Values of other types inside a value (the `any`
// fields hold decoded JSON) still go through encoding/json.
func (r *Report) JSON() ([]byte, error) {
	w := jsonWriter{b: make([]byte, 0, 4096)}
	w.report(r)
	if w.err != nil {
		return nil, w.err
	}
	var out bytes.Buffer
	out.Grow(2 * len(w.b))
	if err := json.Indent(&out, w.b, "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// jsonWriter appends compact JSON; the first error sticks.
type jsonWriter struct {
	b     []byte
	err   error
	comma bool // a member or element was written at this level
}

// elem starts an array element: the comma before all but the first.
func (w *jsonWriter) elem() {
	if w.comma {
		w.b = append(w.b, ',')
	}
	w.comma = true
}

// field starts an object member: the comma and the key.
func (w *jsonWriter) field(key string) {
	w.elem()
	w.b = jsontext.AppendString(w.b, key)
	w.b = append(w.b, ':')
}

func (w *jsonWriter) open(c byte) bool {
	w.b = append(w.b, c)
	prev := w.comma
	w.comma = false
	return prev
}

func (w *jsonWriter) close(c byte, prev bool) {
	w.b = append(w.b, c)
	w.comma = prev
}

func (w *jsonWriter) str(key, s string) {
	w.field(key)
	w.b = jsontext.AppendString(w.b, s)
}

func (w *jsonWriter) strOmit(key, s string) {
	if s != "" {
		w.str(key, s)
	}
}

func (w *jsonWriter) int(key string, n int64) {
	w.field(key)
	w.b = strconv.AppendInt(w.b, n, 10)
}

func (w *jsonWriter) intOmit(key string, n int64) {
	if n != 0 {
		w.int(key, n)
	}
}

func (w *jsonWriter) bool(key string, v bool) {
	w.field(key)
	w.b = strconv.AppendBool(w.b, v)
}

func (w *jsonWriter) boolOmit(key string, v bool) {
	if v {
		w.bool(key, v)
	}
}

// strings writes a []string (nil is null).
func (w *jsonWriter) strings(key string, ss []string) {
	w.field(key)
	if ss == nil {
		w.b = append(w.b, "null"...)
		return
	}
	prev := w.open('[')
	for _, s := range ss {
		w.elem()
		w.b = jsontext.AppendString(w.b, s)
	}
	w.close(']', prev)
}

func (w *jsonWriter) stringsOmit(key string, ss []string) {
	if len(ss) > 0 {
		w.strings(key, ss)
	}
}

// stringMapOmit writes a map[string]string with sorted keys, unless empty.
func (w *jsonWriter) stringMapOmit(key string, m map[string]string) {
	if len(m) == 0 {
		return
	}
	w.field(key)
	prev := w.open('{')
	for _, k := range sortedKeys(m) {
		w.str(k, m[k])
	}
	w.close('}', prev)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func (w *jsonWriter) report(r *Report) {
	if r == nil {
		w.b = append(w.b, "null"...)
		return
	}
	prev := w.open('{')
	w.int("version", int64(r.Version))
	w.field("requirements")
	w.requirements(&r.Requirements)
	w.field("attestation")
	w.attestation(&r.Attestation)
	w.field("layers")
	if r.Layers == nil {
		w.b = append(w.b, "null"...)
	} else {
		p := w.open('[')
		for i := range r.Layers {
			w.elem()
			w.layerInfo(&r.Layers[i])
		}
		w.close(']', p)
	}
	w.field("keys")
	if r.Keys == nil {
		w.b = append(w.b, "null"...)
	} else {
		p := w.open('{')
		for _, k := range sortedKeys(r.Keys) {
			w.field(k)
			key := r.Keys[k]
			w.key(&key)
		}
		w.close('}', p)
	}
	if r.Locks != nil {
		w.field("locks")
		p := w.open('{')
		w.stringMapOmit("disallowed_modes", r.Locks.DisallowedModes)
		w.stringsOmit("pinned", r.Locks.Pinned)
		w.stringMapOmit("mcp_refused", r.Locks.MCPRefused)
		w.strOmit("min_sandbox_mode", r.Locks.MinSandboxMode)
		w.strOmit("min_version", r.Locks.MinVersion)
		w.strOmit("refused", r.Locks.Refused)
		w.stringsOmit("allowed_models", r.Locks.AllowedModels)
		w.stringsOmit("allowed_providers", r.Locks.AllowedProviders)
		w.strOmit("instructions", r.Locks.Instructions)
		w.strOmit("shell_posture", r.Locks.ShellPosture)
		w.stringsOmit("scopes", r.Locks.Scopes)
		w.strOmit("hooks", r.Locks.Hooks)
		w.stringsOmit("dropped_hooks", r.Locks.DroppedHooks)
		w.strOmit("commands", r.Locks.Commands)
		w.strOmit("skills", r.Locks.Skills)
		w.stringsOmit("dropped_custom", r.Locks.DroppedCustom)
		w.close('}', p)
	}
	if len(r.Diagnostics) > 0 {
		w.field("diagnostics")
		p := w.open('[')
		for i := range r.Diagnostics {
			w.elem()
			w.diagnostic(&r.Diagnostics[i])
		}
		w.close(']', p)
	}
	w.strOmit("blocking", r.Blocking)
	if s := r.Sandbox; s != nil {
		w.field("sandbox")
		p := w.open('{')
		w.str("configured", s.Configured)
		w.bool("available", s.Available)
		w.strOmit("problem", s.Problem)
		w.stringsOmit("warnings", s.Warnings)
		w.close('}', p)
	}
	if ws := r.Workspace; ws != nil {
		w.field("workspace")
		w.workspace(ws)
	}
	if u := r.Usage; u != nil {
		w.field("usage")
		p := w.open('{')
		w.int("sessions", int64(u.Sessions))
		w.int("input_tokens", u.InputTokens)
		w.int("output_tokens", u.OutputTokens)
		w.int("cache_read_tokens", u.CacheReadTokens)
		w.int("cache_write_tokens", u.CacheWriteTokens)
		w.value("cost_usd", u.CostUSD)
		w.intOmit("unpriced", int64(u.Unpriced))
		w.close('}', p)
	}
	if r.Instructions != nil {
		w.value("instructions", r.Instructions)
	}
	w.close('}', prev)
}

func (w *jsonWriter) workspace(ws *Workspace) {
	p := w.open('{')
	w.str("root", ws.Root)
	w.str("state", ws.State)
	w.str("reason", ws.Reason)
	w.str("project_config", ws.ProjectConfig)
	w.strOmit("digest", ws.Digest)
	w.field("loosening")
	lp := w.open('[')
	for _, k := range ws.Loosening {
		w.elem()
		kp := w.open('{')
		w.str("key", k.Key)
		w.str("source", k.Source)
		w.int("line", int64(k.Line))
		w.int("column", int64(k.Column))
		w.value("value", k.Value)
		w.str("why", k.Why)
		w.bool("ignored", k.Ignored)
		w.close('}', kp)
	}
	w.close(']', lp)
	w.close('}', p)
}

func (w *jsonWriter) requirements(q *Requirements) {
	prev := w.open('{')
	w.str("status", q.Status)
	w.strOmit("reason", q.Reason)
	w.strOmit("path", q.Path)
	w.intOmit("serial", q.Serial)
	w.strOmit("payload_sha256", q.PayloadSHA256)
	w.stringsOmit("signers", q.Signers)
	w.strOmit("expires_at", q.ExpiresAt)
	w.strOmit("org", q.Org)
	w.stringsOmit("trusted_keys", q.TrustedKeys)
	w.strOmit("trust_source", q.TrustSource)
	w.boolOmit("enforced_by_admin_anchor", q.Enforced)
	w.stringsOmit("warnings", q.Warnings)
	w.close('}', prev)
}

func (w *jsonWriter) attestation(a *Attestation) {
	prev := w.open('{')
	w.str("status", a.Status)
	w.int("serial", a.Serial)
	w.str("payload_sha256", a.PayloadSHA256)
	w.strings("signers", a.Signers)
	w.strings("trusted_keys", a.TrustedKeys)
	w.str("trust_source", a.TrustSource)
	w.str("policy_source", a.PolicySource)
	w.str("os_managed", a.OSManaged)
	w.field("last_known_good")
	if l := a.LastKnownGood; l == nil {
		w.b = append(w.b, "null"...)
	} else {
		p := w.open('{')
		w.bool("in_use", l.InUse)
		w.int("serial", l.Serial)
		w.str("payload_sha256", l.PayloadSHA256)
		w.close('}', p)
	}
	w.close('}', prev)
}

func (w *jsonWriter) layerInfo(l *layers.LayerInfo) {
	prev := w.open('{')
	w.str("layer", l.Layer.String()) // provenance.Layer marshals as its text
	w.str("source", l.Source)
	w.str("status", l.Status)
	w.strOmit("reason", l.Reason)
	w.close('}', prev)
}

func (w *jsonWriter) diagnostic(d *layers.Diagnostic) {
	prev := w.open('{')
	w.str("severity", string(d.Severity))
	w.str("layer", d.Layer.String())
	w.str("source", d.Source)
	w.intOmit("line", int64(d.Line))
	w.intOmit("column", int64(d.Column))
	w.strOmit("pointer", d.Pointer)
	w.str("message", d.Message)
	w.close('}', prev)
}

func (w *jsonWriter) key(k *Key) {
	prev := w.open('{')
	w.value("value", k.Value)
	w.str("layer", k.Layer)
	w.str("source", k.Source)
	w.int("line", int64(k.Line))
	w.intOmit("column", int64(k.Column))
	w.boolOmit("pinned", k.Pinned)
	w.strOmit("merge", k.Merge)
	w.stepsOmit("overrides", k.Overrides)
	w.stepsOmit("merged_from", k.Merged)
	if len(k.Refused) > 0 {
		w.field("refused")
		p := w.open('[')
		for _, rf := range k.Refused {
			w.elem()
			q := w.open('{')
			w.value("value", rf.Value)
			w.str("layer", rf.Layer)
			w.str("source", rf.Source)
			w.int("line", int64(rf.Line))
			w.str("reason", rf.Reason)
			w.close('}', q)
		}
		w.close(']', p)
	}
	w.close('}', prev)
}

func (w *jsonWriter) stepsOmit(key string, steps []Step) {
	if len(steps) == 0 {
		return
	}
	w.field(key)
	prev := w.open('[')
	for _, s := range steps {
		w.elem()
		p := w.open('{')
		w.value("value", s.Value)
		w.str("layer", s.Layer)
		w.str("source", s.Source)
		w.int("line", int64(s.Line))
		w.close('}', p)
	}
	w.close(']', prev)
}

// value writes a value of an `any` field: the shapes decoded JSON takes
// directly, anything else through encoding/json.
func (w *jsonWriter) value(key string, v any) {
	w.field(key)
	w.any(v)
}

func (w *jsonWriter) any(v any) {
	switch x := v.(type) {
	case nil:
		w.b = append(w.b, "null"...)
	case string:
		w.b = jsontext.AppendString(w.b, x)
	case bool:
		w.b = strconv.AppendBool(w.b, x)
	case json.Number:
		s := string(x)
		if s == "" {
			s = "0"
		}
		if !isValidNumber(s) {
			w.fail(fmt.Errorf("json: invalid number literal %q", s))
			return
		}
		w.b = append(w.b, s...)
	case []any:
		if x == nil {
			w.b = append(w.b, "null"...)
			return
		}
		prev := w.open('[')
		for _, e := range x {
			w.elem()
			w.any(e)
		}
		w.close(']', prev)
	case map[string]any:
		if x == nil {
			w.b = append(w.b, "null"...)
			return
		}
		prev := w.open('{')
		for _, k := range sortedKeys(x) {
			w.field(k)
			w.any(x[k])
		}
		w.close('}', prev)
	default:
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			w.fail(err)
			return
		}
		w.b = append(w.b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
	}
}

func (w *jsonWriter) fail(err error) {
	if w.err == nil {
		w.err = err
	}
	w.b = append(w.b, "null"...) // keeps the text well formed; it is discarded
}

// isValidNumber reports whether s is a JSON number.
func isValidNumber(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == '-' {
		s = s[1:]
		if s == "" {
			return false
		}
	}
	switch {
	case s[0] == '0':
		s = s[1:]
	case '1' <= s[0] && s[0] <= '9':
		s = s[1:]
		for len(s) > 0 && '0' <= s[0] && s[0] <= '9' {
			s = s[1:]
		}
	default:
		return false
	}
	if len(s) >= 2 && s[0] == '.' && '0' <= s[1] && s[1] <= '9' {
		s = s[2:]
		for len(s) > 0 && '0' <= s[0] && s[0] <= '9' {
			s = s[1:]
		}
	}
	if len(s) >= 2 && (s[0] == 'e' || s[0] == 'E') {
		s = s[1:]
		if s[0] == '+' || s[0] == '-' {
			s = s[1:]
			if s == "" {
				return false
			}
		}
		for len(s) > 0 && '0' <= s[0] && s[0] <= '9' {
			s = s[1:]
		}
	}
	return s == ""
}
