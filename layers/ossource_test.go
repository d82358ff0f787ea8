//go:build unix

package layers_test

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/packaging"
	"github.com/oceancode/oceancode/requirements"
)

// writePlist writes prefs as the XML plist macOS keeps managed
// preferences in, root-owned 0644 in a directory of its own.
func writePlist(t *testing.T, prefs map[string]any) string {
	t.Helper()
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<plist version="1.0">`)
	var value func(v any)
	value = func(v any) {
		switch v := v.(type) {
		case string:
			b.WriteString("<string>")
			xml.EscapeText(&b, []byte(v))
			b.WriteString("</string>")
		case []byte:
			b.WriteString("<data>" + base64.StdEncoding.EncodeToString(v) + "</data>")
		case int64:
			fmt.Fprintf(&b, "<integer>%d</integer>", v)
		case bool:
			fmt.Fprintf(&b, "<%t/>", v)
		case []any:
			b.WriteString("<array>")
			for _, e := range v {
				value(e)
			}
			b.WriteString("</array>")
		case map[string]any:
			b.WriteString("<dict>")
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				b.WriteString("<key>")
				xml.EscapeText(&b, []byte(k))
				b.WriteString("</key>")
				value(v[k])
			}
			b.WriteString("</dict>")
		default:
			t.Fatalf("plist: %T", v)
		}
	}
	value(prefs)
	b.WriteString("</plist>\n")
	dir := filepath.Join(t.TempDir(), "Managed Preferences")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, packaging.Domain+".plist")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// writeManagedDir lays out a managed dir holding files (name → content).
func writeManagedDir(t *testing.T, files map[string][]byte) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "oceancode")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// effective is what a session runs with: every value with the layer it
// came from, the permission rules, the policy and its locks.
type effective struct {
	Values map[string]any
	Layers map[string]string
	Rules  []string
	Status requirements.Status
	Serial int64
	SHA    string
	Signer []string
	Locks  layers.Locks
}

func effectiveOf(t *testing.T, r *layers.Resolved) effective {
	t.Helper()
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	e := effective{Values: r.K.All(), Layers: map[string]string{}, Status: r.Requirements.Status,
		SHA: r.Requirements.PayloadSHA256, Signer: r.Requirements.Signers, Locks: r.Locks}
	e.Locks.Policy = nil
	if p := r.Requirements.Policy; p != nil {
		e.Serial = p.Serial
	}
	for k, en := range r.Entries {
		e.Layers[k] = en.Origin.Layer.String()
	}
	for _, rule := range r.Rules {
		e.Rules = append(e.Rules, strings.Join(rule.Path, " ")+" "+rule.Action+" "+rule.Origin.Layer.String())
	}
	return e
}

// TestOSManagedSameAsDir: package (oceanadmin package --format
// mobileconfig) → the managed preferences macOS makes of the profiles → the
// plist reader → the same effective configuration as the managed dir
// holding the same three files.
func TestOSManagedSameAsDir(t *testing.T) {
	t.Parallel()
	in := packagedInputs(t)
	home := t.TempDir()
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	resolve := func(dir, plist string) *layers.Resolved {
		env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config")}
		return layers.Resolve(layers.Options{Dir: t.TempDir(), Getenv: func(k string) string { return env[k] },
			ManagedDir: dir, ManagedPreferences: plist, StateDir: t.TempDir(), Now: now})
	}
	fromDir := resolve(writeManagedDir(t, map[string][]byte{"managed.json": in.Managed, "requirements.json": in.Requirements, "trusted_keys": in.TrustedKeys}), "")
	plist := writePlist(t, packagedPreferences(t, in))
	fromOS := resolve(writeManagedDir(t, nil), plist)
	want, got := effectiveOf(t, fromDir), effectiveOf(t, fromOS)
	if want.Status != requirements.Verified || want.Serial == 0 || len(want.Rules) == 0 {
		t.Fatalf("the dir layout's policy is not in effect: %+v", want)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("effective configuration (-managed dir +managed preferences):\n%s", diff)
	}
	if fromOS.OSManaged != plist || fromDir.OSManaged != "" {
		t.Errorf("OSManaged: %q from the plist, %q from the dir", fromOS.OSManaged, fromDir.OSManaged)
	}
	// inspect names the plist's values as the sources.
	for _, s := range []string{fromOS.Requirements.Path, fromOS.Requirements.TrustSource} {
		if !strings.HasPrefix(s, plist+"#") {
			t.Errorf("source %q does not name the plist", s)
		}
	}
	if en := fromOS.Entries["sandbox.mode"]; en.Origin.Source != plist+"#Managed" {
		t.Errorf("sandbox.mode from %q, want %s#Managed", en.Origin.Source, plist)
	}
}

// TestOSManagedWinsPerInput: with both a managed dir and an OS-native
// source, each input the OS source sets wins and the dir's counterpart is
// listed as ignored; an input it leaves unset still comes from the dir.
func TestOSManagedWinsPerInput(t *testing.T) {
	t.Parallel()
	in := packagedInputs(t)
	home := t.TempDir()
	env := map[string]string{"HOME": home, "OC_MANAGED_CONFIG": filepath.Join(home, "mine.json")}
	dir := writeManagedDir(t, map[string][]byte{"managed.json": []byte(`{"sandbox":{"mode":"read-only"}}`), "trusted_keys": in.TrustedKeys})
	prefs := packagedPreferences(t, in)
	delete(prefs, layers.OSValueTrustedKeys)
	plist := writePlist(t, prefs)
	r := layers.Resolve(layers.Options{Dir: t.TempDir(), Getenv: func(k string) string { return env[k] },
		ManagedDir: dir, ManagedPreferences: plist, StateDir: t.TempDir(), Now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)})
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if got := r.K.String("sandbox" + layers.Delim + "mode"); got != "workspace-write" {
		t.Errorf("sandbox.mode %q: the dir's managed.json won over the OS source", got)
	}
	if r.Requirements.Status != requirements.Verified || r.Requirements.TrustSource != filepath.Join(dir, "trusted_keys") {
		t.Errorf("requirements %s, trusted by %s: want verified by the dir's anchor", r.Requirements.Status, r.Requirements.TrustSource)
	}
	ignored := map[string]bool{}
	for _, l := range r.Layers {
		if l.Status == layers.StatusIgnored {
			ignored[l.Source] = true
		}
	}
	for _, s := range []string{filepath.Join(dir, "managed.json"), "env:OC_MANAGED_CONFIG=" + env["OC_MANAGED_CONFIG"]} {
		if !ignored[s] {
			t.Errorf("%s is not listed as ignored: %+v", s, r.Layers)
		}
	}
}

// TestOSManagedFailsClosed: an OS-native source that cannot be trusted or
// parsed refuses sessions instead of falling back to weaker policy.
func TestOSManagedFailsClosed(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	for name, mutate := range map[string]func(path string){
		"world-writable": func(p string) { os.Chmod(p, 0o666) },
		"not a plist":    func(p string) { os.WriteFile(p, []byte("{}"), 0o644) },
		"bad keys": func(p string) {
			os.WriteFile(p, []byte(`<plist><dict><key>TrustedKeys</key><string>nope</string></dict></plist>`), 0o644)
		},
	} {
		plist := writePlist(t, map[string]any{"Managed": "{}"})
		mutate(plist)
		r := layers.Resolve(layers.Options{Dir: t.TempDir(), Getenv: func(k string) string { return map[string]string{"HOME": home}[k] },
			ManagedDir: writeManagedDir(t, nil), ManagedPreferences: plist, StateDir: t.TempDir()})
		if r.Err() == nil {
			t.Errorf("%s: a session may start", name)
		}
	}
}
