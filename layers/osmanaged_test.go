package layers_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/packaging"
	"github.com/oceancode/oceancode/requirements"
)

// packagedInputs are the files oceanadmin package's tests package.
func packagedInputs(t *testing.T) packaging.Inputs {
	t.Helper()
	dir := filepath.Join("..", "packaging", "testdata", "inputs")
	read := func(name string) []byte {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	in := packaging.Inputs{Requirements: read("requirements.json"), Managed: read("managed.json"), TrustedKeys: read("trusted_keys")}
	anchors := requirements.KeysFromFlag([]string{filepath.Join(dir, "trusted_keys")})
	pol, _, sha, err := requirements.Verify(in.Requirements, "requirements.json", anchors, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	in.Policy = packaging.Policy{Serial: pol.Serial, PayloadSHA256: sha, Org: pol.Org}
	return in
}

// packagedPreferences packages in as mobileconfig profiles and returns the
// managed preferences macOS makes of them: it merges the payloads of every
// installed profile for the domain into one dictionary.
func packagedPreferences(t *testing.T, in packaging.Inputs) map[string]any {
	t.Helper()
	arts, err := packaging.Build("mobileconfig", in)
	if err != nil {
		t.Fatal(err)
	}
	prefs := map[string]any{}
	for _, a := range arts {
		v, err := layers.ParsePlist(a.Data)
		if err != nil {
			t.Fatalf("%s: %v", a.Name, err)
		}
		payload := v.(map[string]any)["PayloadContent"].([]any)[0].(map[string]any)
		if payload["PayloadType"] != "dev.oceancode" {
			t.Fatalf("%s: payload type %v", a.Name, payload["PayloadType"])
		}
		for k, v := range payload {
			prefs[k] = v
		}
	}
	return prefs
}

// TestPackagedProfilesReadBack: package → read → the same policy. The
// profiles oceanadmin package writes hold, once macOS has turned their
// payloads into managed preferences, exactly the managed dir's three files.
func TestPackagedProfilesReadBack(t *testing.T) {
	t.Parallel()
	in := packagedInputs(t)
	prefs := packagedPreferences(t, in)
	got, err := layers.FromPreferences(layers.ManagedPreferencesFile, prefs)
	if err != nil {
		t.Fatal(err)
	}
	want := &layers.OSManaged{Source: layers.ManagedPreferencesFile, Managed: in.Managed, Requirements: in.Requirements, TrustedKeys: in.TrustedKeys}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("read back (-packaged +read):\n%s", diff)
	}
	// The envelope read back verifies against the keys read back.
	keys := filepath.Join(t.TempDir(), "trusted_keys")
	if err := os.WriteFile(keys, got.TrustedKeys, 0o644); err != nil {
		t.Fatal(err)
	}
	anchors := requirements.KeysFromFlag([]string{keys})
	if _, _, _, err := requirements.Verify(got.Requirements, "read back", anchors, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Errorf("the requirements read back do not verify: %v", err)
	}
}

// TestBinaryManagedPreferences: macOS stores managed preferences as binary
// plists; testdata/osmanaged/dev.oceancode.plist was written by Python's
// plistlib (FMT_BINARY) from the packaged profiles' payloads, with a date
// and nested containers of the kind macOS may add.
func TestBinaryManagedPreferences(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("testdata", "osmanaged", "dev.oceancode.plist"))
	if err != nil {
		t.Fatal(err)
	}
	v, err := layers.ParsePlist(data)
	if err != nil {
		t.Fatal(err)
	}
	prefs := v.(map[string]any)
	if diff := cmp.Diff([]any{map[string]any{"a": int64(1), "b": []any{true, false, 1.5, "ünïcode"}}}, prefs["Nested"]); diff != "" {
		t.Errorf("Nested (-want +got):\n%s", diff)
	}
	if prefs["LastUpdated"] != "2026-11-29T12:00:00Z" || prefs["PolicySerial"] != int64(42) {
		t.Errorf("LastUpdated %v, PolicySerial %v", prefs["LastUpdated"], prefs["PolicySerial"])
	}
	got, err := layers.FromPreferences("plist", prefs)
	if err != nil {
		t.Fatal(err)
	}
	in := packagedInputs(t)
	if !bytes.Equal(got.Requirements, in.Requirements) || !bytes.Equal(got.Managed, in.Managed) || !bytes.Equal(got.TrustedKeys, in.TrustedKeys) {
		t.Errorf("binary plist read back differs from the packaged inputs: %+v", got)
	}
}

// TestParsePlistRefuses: malformed plists are errors, never partial values.
func TestParsePlistRefuses(t *testing.T) {
	t.Parallel()
	xmlDoc := func(body string) []byte {
		return []byte(`<?xml version="1.0"?><plist version="1.0">` + body + `</plist>`)
	}
	good, _ := os.ReadFile(filepath.Join("testdata", "osmanaged", "dev.oceancode.plist"))
	cut := bytes.Clone(good[:len(good)-40])
	// One array (at offset 8) whose one element is itself; offset table at
	// 10; trailer: offset size 1, ref size 1, 1 object, top 0, table at 10.
	cycle := append([]byte("bplist00\xa1\x00\x08"), 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10)
	// Nine objects: eight arrays, each of 14 references to the next, then
	// true: 14^8 visits if shared references were decoded without a bound.
	bomb := []byte("bplist00")
	var table []byte
	for k := 0; k < 8; k++ {
		table = append(table, byte(len(bomb)))
		bomb = append(bomb, 0xAE)
		for i := 0; i < 14; i++ {
			bomb = append(bomb, byte(k+1))
		}
	}
	table = append(table, byte(len(bomb)))
	bomb = append(bomb, 0x09)
	tableAt := len(bomb)
	bomb = append(bomb, table...)
	bomb = append(bomb, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, byte(tableAt))
	for _, c := range []struct {
		name string
		data []byte
	}{
		{"shared-reference bomb", bomb},
		{"duplicate key", xmlDoc(`<dict><key>a</key><string>1</string><key>a</key><string>2</string></dict>`)},
		{"value missing", xmlDoc(`<dict><key>a</key></dict>`)},
		{"not a key in a dict", xmlDoc(`<dict><string>a</string></dict>`)},
		{"unknown element", xmlDoc(`<dict><key>a</key><uid>1</uid></dict>`)},
		{"bad integer", xmlDoc(`<integer>one</integer>`)},
		{"bad data", xmlDoc(`<data>!!!</data>`)},
		{"not a plist", []byte(`<html></html>`)},
		{"truncated binary", cut},
		{"binary without trailer", []byte("bplist00")},
		{"binary reference cycle", cycle},
	} {
		if _, err := layers.ParsePlist(c.data); err == nil {
			t.Errorf("%s: parsed", c.name)
		}
	}
	if _, err := layers.FromPreferences("x", map[string]any{"Other": "1"}); !errors.Is(err, layers.ErrNoOSManaged) {
		t.Errorf("no policy keys: %v, want ErrNoOSManaged", err)
	}
	if _, err := layers.FromPreferences("x", map[string]any{"Managed": int64(1)}); err == nil {
		t.Error("an integer Managed was accepted")
	}
	m, err := layers.FromPreferences("x", map[string]any{"TrustedKeys": []any{"k1", "k2"}})
	if err != nil || string(m.TrustedKeys) != "k1\nk2\n" {
		t.Errorf("TrustedKeys array: %q, %v", m.TrustedKeys, err)
	}
}

// TestRegistryValues: the registry's strings assemble into the same three
// inputs (REG_MULTI_SZ keys one per line).
func TestRegistryValues(t *testing.T) {
	t.Parallel()
	managed, reqs := `{"sandbox":{}}`, `{"payload":""}`
	m := layers.FromRegistryValues(`HKLM\`+layers.PolicyRegistryKey, &managed, &reqs, []string{"# keys", "ed25519:x"})
	if string(m.Managed) != managed || string(m.Requirements) != reqs || string(m.TrustedKeys) != "# keys\ned25519:x\n" {
		t.Errorf("%+v", m)
	}
	if m := layers.FromRegistryValues("k", nil, nil, nil); m.Managed != nil || m.Requirements != nil || m.TrustedKeys != nil {
		t.Errorf("unset values came back set: %+v", m)
	}
}

// TestOSNamesAgree: the reader and oceanadmin package use the same names.
func TestOSNamesAgree(t *testing.T) {
	t.Parallel()
	for _, p := range [][2]string{
		{layers.PolicyRegistryKey, packaging.RegistryKey},
		{layers.OSValueManaged, packaging.ValueManaged},
		{layers.OSValueRequirements, packaging.ValueRequirements},
		{layers.OSValueTrustedKeys, packaging.ValueTrustedKeys},
		{layers.ManagedPreferencesFile, "/Library/Managed Preferences/" + packaging.Domain + ".plist"},
	} {
		if p[0] != p[1] {
			t.Errorf("reader %q, packager %q", p[0], p[1])
		}
	}
}

func FuzzParsePlist(f *testing.F) {
	if data, err := os.ReadFile(filepath.Join("testdata", "osmanaged", "dev.oceancode.plist")); err == nil {
		f.Add(data)
	}
	f.Add([]byte(`<?xml version="1.0"?><plist version="1.0"><dict><key>Managed</key><string>{}</string><key>Requirements</key><data>e30=</data></dict></plist>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := layers.ParsePlist(data)
		if err == nil && v == nil {
			t.Fatal("nil value without an error")
		}
	})
}
