package packaging_test

import (
	"bytes"
	"encoding/xml"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	rpmutils "github.com/sassoftware/go-rpmutils"

	"github.com/oceancode/oceancode/packaging"
	"github.com/oceancode/oceancode/requirements"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// inputs reads the fixture policy (testdata/inputs: a requirements.json
// signed with a test key, its trusted_keys, a managed.json) and verifies it
// the way oceanadmin package does, at a fixed time.
func inputs(t testing.TB) packaging.Inputs {
	t.Helper()
	read := func(name string) []byte {
		data, err := os.ReadFile(filepath.Join("testdata", "inputs", name))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	in := packaging.Inputs{Requirements: read("requirements.json"), Managed: read("managed.json"), TrustedKeys: read("trusted_keys")}
	anchors := requirements.KeysFromFlag([]string{filepath.Join("testdata", "inputs", "trusted_keys")})
	pol, _, sha, err := requirements.Verify(in.Requirements, "requirements.json", anchors, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	issued, _ := time.Parse(time.RFC3339, pol.IssuedAt)
	in.Policy = packaging.Policy{Serial: pol.Serial, PayloadSHA256: sha, Org: pol.Org, IssuedAt: issued}
	return in
}

func build(t *testing.T, format string, in packaging.Inputs) map[string][]byte {
	t.Helper()
	arts, err := packaging.Build(format, in)
	if err != nil {
		t.Fatalf("Build(%s): %v", format, err)
	}
	out := map[string][]byte{}
	for _, a := range arts {
		if _, dup := out[a.Name]; dup {
			t.Fatalf("Build(%s): %s twice", format, a.Name)
		}
		out[a.Name] = a.Data
	}
	return out
}

// TestGolden compares every artefact of every format with its golden file
// (go test ./packaging -update rewrites them), and checks each names the
// policy serial and payload SHA-256.
func TestGolden(t *testing.T) {
	t.Parallel()
	in := inputs(t)
	for _, format := range packaging.Formats {
		t.Run(format, func(t *testing.T) {
			got := build(t, format, in)
			dir := filepath.Join("testdata", "golden", format)
			if *update {
				os.RemoveAll(dir)
				for name, data := range got {
					p := filepath.Join(dir, filepath.FromSlash(name))
					if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(p, data, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			want := map[string][]byte{}
			err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				data, err := os.ReadFile(p)
				rel, _ := filepath.Rel(dir, p)
				want[filepath.ToSlash(rel)] = data
				return err
			})
			if err != nil {
				t.Fatalf("read goldens (run go test ./packaging -update): %v", err)
			}
			if diff := cmp.Diff(sortedNames(want), sortedNames(got)); diff != "" {
				t.Errorf("artefact names (-golden +got):\n%s", diff)
			}
			for name, data := range got {
				if !bytes.Equal(data, want[name]) {
					t.Errorf("%s differs from its golden file (go test ./packaging -update rewrites it)", name)
				}
			}
			names := 0
			for name, data := range got {
				text := readable(name, data)
				if strings.Contains(text, "serial 42") && strings.Contains(text, in.Policy.PayloadSHA256) {
					names++
				} else if !strings.HasPrefix(name, "etc/") && format != "deb" { // deb: its compressed control file (TestDeb)
					t.Errorf("%s names neither the serial nor the payload sha256", name)
				}
			}
			if names == 0 && format != "deb" {
				t.Error("no artefact names the serial and payload sha256")
			}
		})
	}
}

// readable is an artefact's text: UTF-16 decoded for .reg, the bytes as
// they are otherwise (an rpm carries its description uncompressed in its
// header; a deb's is compressed, TestDeb reads it).
func readable(name string, data []byte) string {
	if strings.HasSuffix(name, ".reg") {
		return decodeUTF16(data)
	}
	return string(data)
}

func sortedNames(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestRebuildIdentical: the same inputs give the same bytes, whatever the
// wall clock, the time zone, the input files' times and modes, or the
// process's umask; SOURCE_DATE_EPOCH (Inputs.Epoch) is the one time that
// changes the archives.
func TestRebuildIdentical(t *testing.T) {
	in := inputs(t)
	first := map[string]map[string][]byte{}
	for _, f := range packaging.Formats {
		first[f] = build(t, f, in)
	}
	// A second build in other surroundings, with copies of the inputs: in
	// a later second of the wall clock (archive times have one-second
	// resolution), another time zone, a SOURCE_DATE_EPOCH in the process
	// environment and another umask.
	for start := time.Now().Unix(); time.Now().Unix() == start; {
		time.Sleep(20 * time.Millisecond)
	}
	t.Setenv("TZ", "Pacific/Kiritimati")
	t.Setenv("SOURCE_DATE_EPOCH", "1") // the packagers' own default must not leak in
	old := syscallUmask(0o077)
	defer syscallUmask(old)
	in2 := in
	in2.Requirements = bytes.Clone(in.Requirements)
	in2.Managed = bytes.Clone(in.Managed)
	in2.TrustedKeys = bytes.Clone(in.TrustedKeys)
	for _, f := range packaging.Formats {
		again := build(t, f, in2)
		for name, data := range first[f] {
			if !bytes.Equal(data, again[name]) {
				t.Errorf("%s/%s: a rebuild from the same inputs differs", f, name)
			}
		}
	}
	// A policy without an issue time still never takes the wall clock.
	noTime := in2
	noTime.Policy.IssuedAt = time.Time{}
	a := build(t, "deb", noTime)
	for start := time.Now().Unix(); time.Now().Unix() == start; {
		time.Sleep(20 * time.Millisecond)
	}
	b := build(t, "deb", noTime)
	for name := range a {
		if !bytes.Equal(a[name], b[name]) {
			t.Errorf("deb without an issue time: two builds a second apart differ")
		}
	}
	// SOURCE_DATE_EPOCH changes only the archives.
	in2.Epoch = time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, f := range packaging.Formats {
		again := build(t, f, in2)
		archive := f == "deb" || f == "rpm"
		for name, data := range first[f] {
			if changed := !bytes.Equal(data, again[name]); changed != archive {
				t.Errorf("%s/%s: another epoch changed it: %v, want %v", f, name, changed, archive)
			}
		}
	}
}

// TestContentUUIDs: profile UUIDs are well formed (version 8), differ per
// profile and change with the content.
func TestContentUUIDs(t *testing.T) {
	t.Parallel()
	in := inputs(t)
	uuids := func(in packaging.Inputs) []string {
		var out []string
		got := build(t, "mobileconfig", in)
		for _, name := range []string{packaging.PolicyProfile, packaging.TrustedKeysProfile} {
			p := parsePlist(t, got[name]).(map[string]any)
			out = append(out, p["PayloadUUID"].(string), p["PayloadContent"].([]any)[0].(map[string]any)["PayloadUUID"].(string))
		}
		return out
	}
	a := uuids(in)
	re := regexp.MustCompile(`^[0-9A-F]{8}-[0-9A-F]{4}-8[0-9A-F]{3}-[89AB][0-9A-F]{3}-[0-9A-F]{12}$`)
	for _, u := range a {
		if !re.MatchString(u) {
			t.Errorf("UUID %s is not a version 8 UUID", u)
		}
	}
	if len(slices.Compact(slices.Sorted(slices.Values(a)))) != 4 {
		t.Errorf("UUIDs repeat: %v", a)
	}
	in.Managed = []byte(`{"sandbox": {"mode": "read-only"}}`)
	b := uuids(in)
	if a[0] == b[0] || a[1] == b[1] {
		t.Error("the policy profile's UUIDs did not change with its content")
	}
	if a[2] != b[2] || a[3] != b[3] {
		t.Error("the trusted-keys profile's UUIDs changed though its content did not")
	}
}

// TestMobileconfigParses: both profiles are well-formed plists whose
// payloads carry the inputs byte for byte.
func TestMobileconfigParses(t *testing.T) {
	t.Parallel()
	in := inputs(t)
	got := build(t, "mobileconfig", in)
	payload := func(name string) map[string]any {
		p := parsePlist(t, got[name]).(map[string]any)
		if p["PayloadType"] != "Configuration" || p["PayloadScope"] != "System" {
			t.Errorf("%s: not a system configuration profile: %v", name, p)
		}
		c := p["PayloadContent"].([]any)
		if len(c) != 1 {
			t.Fatalf("%s: %d payloads", name, len(c))
		}
		pl := c[0].(map[string]any)
		if pl["PayloadType"] != packaging.Domain {
			t.Errorf("%s: payload type %v, want %s", name, pl["PayloadType"], packaging.Domain)
		}
		return pl
	}
	pol := payload(packaging.PolicyProfile)
	if !bytes.Equal(pol[packaging.ValueRequirements].([]byte), in.Requirements) {
		t.Error("the policy profile's Requirements data differ from the signed envelope")
	}
	if pol[packaging.ValueManaged].(string) != string(in.Managed) {
		t.Errorf("Managed = %q, want %q", pol[packaging.ValueManaged], in.Managed)
	}
	if pol["PolicySerial"].(int64) != 42 || pol["PayloadSHA256"] != in.Policy.PayloadSHA256 {
		t.Errorf("serial/hash: %v %v", pol["PolicySerial"], pol["PayloadSHA256"])
	}
	if _, ok := pol[packaging.ValueTrustedKeys]; ok {
		t.Error("the policy profile carries the trusted keys; they belong in their own profile")
	}
	keys := payload(packaging.TrustedKeysProfile)
	if keys[packaging.ValueTrustedKeys].(string) != string(in.TrustedKeys) {
		t.Errorf("TrustedKeys = %q", keys[packaging.ValueTrustedKeys])
	}
	// Without a managed config the policy profile has no Managed key.
	in.Managed = nil
	pol2 := parsePlist(t, build(t, "mobileconfig", in)[packaging.PolicyProfile]).(map[string]any)["PayloadContent"].([]any)[0].(map[string]any)
	if _, ok := pol2[packaging.ValueManaged]; ok {
		t.Error("a profile without --managed has a Managed key")
	}
}

// TestWindowsNamesAgree: the ADMX and ADML are well-formed XML, every
// string and presentation the ADMX refers to is in the ADML, and the
// ADMX's values are exactly those the .reg file and the PowerShell script
// set, below the same key.
func TestWindowsNamesAgree(t *testing.T) {
	t.Parallel()
	in := inputs(t)
	adm := build(t, "admx", in)
	var admxDoc struct {
		Policies []struct {
			Name     string `xml:"name,attr"`
			Class    string `xml:"class,attr"`
			Key      string `xml:"key,attr"`
			Display  string `xml:"displayName,attr"`
			Explain  string `xml:"explainText,attr"`
			Present  string `xml:"presentation,attr"`
			Elements struct {
				Inner []struct {
					XMLName   xml.Name
					ID        string `xml:"id,attr"`
					ValueName string `xml:"valueName,attr"`
				} `xml:",any"`
			} `xml:"elements"`
		} `xml:"policies>policy"`
	}
	wellFormed(t, adm[packaging.ADMXFile])
	wellFormed(t, adm[packaging.ADMLFile])
	if err := xml.Unmarshal(adm[packaging.ADMXFile], &admxDoc); err != nil {
		t.Fatal(err)
	}
	var admlDoc struct {
		Strings []struct {
			ID string `xml:"id,attr"`
		} `xml:"resources>stringTable>string"`
		Presentations []struct {
			ID string `xml:"id,attr"`
		} `xml:"resources>presentationTable>presentation"`
	}
	if err := xml.Unmarshal(adm[packaging.ADMLFile], &admlDoc); err != nil {
		t.Fatal(err)
	}
	strs, pres := map[string]bool{}, map[string]bool{}
	for _, s := range admlDoc.Strings {
		strs[s.ID] = true
	}
	for _, p := range admlDoc.Presentations {
		pres[p.ID] = true
	}
	ref := regexp.MustCompile(`^\$\((string|presentation)\.(\w+)\)$`)
	var values []string
	for _, p := range admxDoc.Policies {
		if p.Class != "Machine" || p.Key != packaging.RegistryKey {
			t.Errorf("policy %s: class %s key %s, want Machine %s", p.Name, p.Class, p.Key, packaging.RegistryKey)
		}
		for _, r := range []string{p.Display, p.Explain, p.Present} {
			m := ref.FindStringSubmatch(r)
			if m == nil || (m[1] == "string" && !strs[m[2]]) || (m[1] == "presentation" && !pres[m[2]]) {
				t.Errorf("policy %s refers to %s, which the ADML does not define", p.Name, r)
			}
		}
		for _, e := range p.Elements.Inner {
			values = append(values, e.ValueName)
		}
	}
	want := []string{packaging.ValueManaged, packaging.ValueRequirements, packaging.ValueTrustedKeys}
	if diff := cmp.Diff(want, values); diff != "" {
		t.Errorf("ADMX value names (-want +got):\n%s", diff)
	}

	regs := build(t, "reg", in)
	vals := parseReg(t, regs[packaging.RegFile])
	if diff := cmp.Diff(want, sortedKeysOf(vals)); diff != "" {
		t.Errorf(".reg value names (-want +got):\n%s", diff)
	}
	ps := string(regs[packaging.PowerShellFile])
	if !strings.HasPrefix(ps, "\ufeff") {
		t.Error("the PowerShell script has no UTF-8 byte-order mark")
	}
	if !strings.Contains(ps, `'HKLM:\`+packaging.RegistryKey+`'`) {
		t.Error("the PowerShell script does not set " + packaging.RegistryKey)
	}
	var psNames []string
	for _, m := range regexp.MustCompile(`-Name '(\w+)'`).FindAllStringSubmatch(ps, -1) {
		psNames = append(psNames, m[1])
	}
	if diff := cmp.Diff(want, psNames); diff != "" {
		t.Errorf("PowerShell value names (-want +got):\n%s", diff)
	}
	// The values carry the inputs: one line of the same JSON, the keys one
	// per string.
	if vals[packaging.ValueManaged] != compact(t, in.Managed) || vals[packaging.ValueRequirements] != compact(t, in.Requirements) {
		t.Errorf(".reg strings differ from the compacted inputs:\n%s\n%s", vals[packaging.ValueManaged], vals[packaging.ValueRequirements])
	}
	if vals[packaging.ValueTrustedKeys] != "# OceanCode fleet signing keys\x00ed25519:amesanbvnfrW50ysVJqlbTPLTZ6feDax3P/b76xR1wE= test admin" {
		t.Errorf("TrustedKeys = %q", vals[packaging.ValueTrustedKeys])
	}
	script, err := parsePS(regs[packaging.PowerShellFile])
	if err != nil {
		t.Fatal(err)
	}
	if script.strings[packaging.ValueRequirements] != compact(t, in.Requirements) || script.strings[packaging.ValueManaged] != compact(t, in.Managed) {
		t.Errorf("the PowerShell script's strings differ from the compacted inputs:\n%s", script.strings)
	}
}

func wellFormed(t *testing.T, data []byte) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(data))
	for {
		_, err := d.Token()
		if err != nil {
			if err.Error() == "EOF" {
				return
			}
			t.Fatalf("not well-formed XML: %v", err)
		}
	}
}

// TestDocsShowSnippets: docs/fleet.md shows each config-management snippet
// exactly as --format dir writes it (with a managed config), apart from
// the first line naming the policy.
func TestDocsShowSnippets(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "docs", "fleet.md"))
	if err != nil {
		t.Fatal(err)
	}
	in := inputs(t)
	for src := range packaging.Snippets {
		data, err := packaging.Snippet(src, in)
		if err != nil {
			t.Fatal(err)
		}
		_, body, _ := strings.Cut(string(data), "\n")
		if !strings.Contains(string(doc), "\n"+body+"```\n") {
			t.Errorf("docs/fleet.md does not show %s as written:\n%s", src, body)
		}
	}
}

// TestWithoutManaged: without --managed no format carries a managed
// config: no managed.json, no Managed value, key or policy default.
func TestWithoutManaged(t *testing.T) {
	t.Parallel()
	in := inputs(t)
	in.Managed = nil
	for _, f := range packaging.Formats {
		got := build(t, f, in)
		for name, data := range got {
			if strings.HasSuffix(name, "managed.json") {
				t.Errorf("%s: %s written without a managed config", f, name)
			}
			if strings.Contains(readable(name, data), "/srv/secrets") { // only the managed config names it
				t.Errorf("%s: %s holds the managed config", f, name)
			}
		}
		switch f {
		case "reg":
			if diff := cmp.Diff([]string{packaging.ValueRequirements, packaging.ValueTrustedKeys}, sortedKeysOf(parseReg(t, got[packaging.RegFile]))); diff != "" {
				t.Errorf(".reg values (-want +got):\n%s", diff)
			}
			if strings.Contains(string(got[packaging.PowerShellFile]), "'Managed'") {
				t.Error("the PowerShell script sets Managed")
			}
		case "rpm":
			for _, data := range got {
				r, err := rpmutils.ReadRpm(bytes.NewReader(data))
				if err != nil {
					t.Fatal(err)
				}
				files, _ := r.Header.GetFiles()
				for _, file := range files {
					if strings.HasSuffix(file.Name(), "managed.json") {
						t.Errorf("the rpm installs %s without a managed config", file.Name())
					}
				}
			}
		case "dir":
			for name, data := range got {
				if strings.Contains(string(data), "managed.json") && name != packaging.ManifestFile {
					t.Errorf("%s mentions managed.json without a managed config", name)
				}
			}
		}
	}
}
