package packaging_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	rpmutils "github.com/sassoftware/go-rpmutils"
	"go.yaml.in/yaml/v3"

	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/packaging"
	"github.com/oceancode/oceancode/policycheck"
)

// hostileTexts are printable strings every format has syntax for: XML
// comment ends and CDATA ends, markup, quotes of every kind (the curly ones
// PowerShell reads as quotes too), backslashes, command substitution,
// format verbs, template and Jinja delimiters, Ruby interpolation and magic
// comments, YAML indicators, registry key brackets, right-to-left text.
var hostileTexts = []string{
	"Acme -- Inc",
	"a--b---c-->d<!--",
	"]]> <![CDATA[x]]>",
	`<a href="x">&amp; & &#0; &lt;</a>`,
	`single ' double " back \ \\ \" \'`,
	"curly \u2018x\u2019 \u201ay\u201b \u201cz\u201d",
	"$(Remove-Item -Recurse C:\\) `whoami` ${env:PATH} @'",
	"'@ | Out-Null; Remove-Item C:\\",
	"%s %d %n %x %% %{path}",
	"{{ salt['cmd.run']('id') }} {% raw %} {# c #}",
	"#{`id`} -*- coding: binary; frozen_string_literal: true -*-",
	"- key: value &anchor *alias !!tag | > ? : ---",
	"[HKEY_LOCAL_MACHINE\\SOFTWARE\\Evil]",
	"\"=\"x\" ; comment",
	"Société Générale 日本 🌊 \u200fשלום",
	" leading and trailing spaces ",
}

// hostileManaged is a managed config carrying s in free text and in
// opaque values (line breaks are allowed in those).
func hostileManaged(s string) []byte {
	m := map[string]any{
		"agents":    map[string]any{s: map[string]any{"description": s + "\n" + s, "prompt": s}},
		"child_env": map[string]any{"set": map[string]any{"GREETING": s}},
	}
	data, _ := json.MarshalIndent(m, "", "  ")
	return data
}

// checkArtefacts builds every format from in and reads each artefact back
// with its parser: encoding/xml and the agent's plist reader for the
// profiles and templates, the strict .reg, PowerShell and deb control
// readers of parsers_test.go, an rpm reader, encoding/json and a YAML
// parser. Every string the inputs embed must come back exactly, and no
// comment or snippet may hold policy text.
func checkArtefacts(t testing.TB, in packaging.Inputs) {
	t.Helper()
	stamp := fmt.Sprintf("OceanCode policy serial %d, payload sha256 %s", in.Policy.Serial, in.Policy.PayloadSHA256)
	banner := stamp
	if in.Policy.Org != "" {
		banner += ", org " + in.Policy.Org
	}
	arts := map[string][]byte{}
	for _, f := range packaging.Formats {
		got, err := packaging.Build(f, in)
		if err != nil {
			t.Fatalf("Build(%s) refused acceptable inputs: %v", f, err)
		}
		for _, a := range got {
			arts[a.Name] = a.Data
		}
	}
	checkProfiles(t, in, arts, stamp, banner)
	checkADM(t, in, arts, stamp, banner)
	checkRegPS(t, in, arts, stamp)
	checkLinux(t, in, arts, banner)
	checkDir(t, in, arts, stamp, banner)
}

// checkComments: XML comments name the stamp and nothing else.
func checkComments(t testing.TB, name string, data []byte, stamp string) {
	t.Helper()
	comments, err := xmlComments(data)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for _, c := range comments {
		if c != " "+stamp+" " && c != " "+stamp+". Written by oceanadmin package. " {
			t.Errorf("%s: comment %q holds more than the stamp", name, c)
		}
	}
}

func checkProfiles(t testing.TB, in packaging.Inputs, arts map[string][]byte, stamp, banner string) {
	t.Helper()
	for _, name := range []string{packaging.PolicyProfile, packaging.TrustedKeysProfile} {
		checkComments(t, name, arts[name], stamp)
		v, err := layers.ParsePlist(arts[name])
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		top, _ := v.(map[string]any)
		org, hasOrg := top["PayloadOrganization"]
		if hasOrg != (in.Policy.Org != "") || hasOrg && org != in.Policy.Org {
			t.Errorf("%s: PayloadOrganization %q, want %q", name, org, in.Policy.Org)
		}
		if d, _ := top["PayloadDescription"].(string); !strings.HasPrefix(d, banner+". Managed preferences for ") {
			t.Errorf("%s: PayloadDescription %q does not start with the banner %q", name, d, banner)
		}
		content, _ := top["PayloadContent"].([]any)
		if len(content) != 1 {
			t.Fatalf("%s: PayloadContent %v", name, top["PayloadContent"])
		}
		payload, _ := content[0].(map[string]any)
		if name == packaging.TrustedKeysProfile {
			if payload[packaging.ValueTrustedKeys] != string(in.TrustedKeys) {
				t.Errorf("%s: TrustedKeys %q, want %q", name, payload[packaging.ValueTrustedKeys], in.TrustedKeys)
			}
			continue
		}
		if got, _ := payload[packaging.ValueManaged].(string); got != string(in.Managed) {
			t.Errorf("%s: Managed %q, want %q", name, got, in.Managed)
		}
		if got, _ := payload[packaging.ValueRequirements].([]byte); !bytes.Equal(got, in.Requirements) {
			t.Errorf("%s: Requirements differ", name)
		}
		if payload["PolicySerial"] != in.Policy.Serial || payload["PayloadSHA256"] != in.Policy.PayloadSHA256 {
			t.Errorf("%s: serial %v hash %v", name, payload["PolicySerial"], payload["PayloadSHA256"])
		}
	}
}

func checkADM(t testing.TB, in packaging.Inputs, arts map[string][]byte, stamp, banner string) {
	t.Helper()
	checkComments(t, packaging.ADMXFile, arts[packaging.ADMXFile], stamp)
	checkComments(t, packaging.ADMLFile, arts[packaging.ADMLFile], stamp)
	var adml struct {
		Description string `xml:"description"`
		Strings     []struct {
			ID   string `xml:"id,attr"`
			Text string `xml:",chardata"`
		} `xml:"resources>stringTable>string"`
		Boxes []struct {
			ID      string `xml:"id,attr"`
			Default string `xml:"textBox>defaultValue"`
		} `xml:"resources>presentationTable>presentation"`
	}
	if err := xml.Unmarshal(arts[packaging.ADMLFile], &adml); err != nil {
		t.Fatalf("ADML: %v", err)
	}
	if adml.Description != banner {
		t.Errorf("ADML description %q, want %q", adml.Description, banner)
	}
	for _, s := range adml.Strings {
		if strings.HasSuffix(s.ID, "_Explain") && !strings.HasSuffix(s.Text, " Packaged from "+banner+".") {
			t.Errorf("ADML string %s %q does not end with the banner", s.ID, s.Text)
		}
	}
	want := map[string]string{packaging.ValueRequirements: compactOf(in.Requirements), packaging.ValueManaged: compactOf(in.Managed), packaging.ValueTrustedKeys: ""}
	for _, b := range adml.Boxes {
		if b.Default != want[b.ID] {
			t.Errorf("ADML default of %s %q, want %q", b.ID, b.Default, want[b.ID])
		}
	}
}

func checkRegPS(t testing.TB, in packaging.Inputs, arts map[string][]byte, stamp string) {
	t.Helper()
	reg, err := parseRegStrict(arts[packaging.RegFile])
	if err != nil {
		t.Fatal(err)
	}
	ps, err := parsePS(arts[packaging.PowerShellFile])
	if err != nil {
		t.Fatal(err)
	}
	keys := keyLinesOf(in.TrustedKeys)
	want := map[string]string{packaging.ValueRequirements: compactOf(in.Requirements), packaging.ValueTrustedKeys: strings.Join(keys, "\x00")}
	wantPS := map[string]string{packaging.ValueRequirements: compactOf(in.Requirements)}
	if in.Managed != nil {
		want[packaging.ValueManaged], wantPS[packaging.ValueManaged] = compactOf(in.Managed), compactOf(in.Managed)
	}
	if !mapsEqual(reg.values, want) {
		t.Errorf(".reg values\n%q\nwant\n%q", reg.values, want)
	}
	if len(reg.comments) != 2 || reg.comments[0] != "; "+stamp+"." {
		t.Errorf(".reg comments %q hold more than the stamp", reg.comments)
	}
	if !mapsEqual(ps.strings, wantPS) || !slices.Equal(ps.multi, keys) {
		t.Errorf(".ps1 values\n%q %q\nwant\n%q %q", ps.strings, ps.multi, wantPS, keys)
	}
	if len(ps.comments) != 1 || ps.comments[0] != "# "+stamp+"." {
		t.Errorf(".ps1 comments %q", ps.comments)
	}
}

func checkLinux(t testing.TB, in packaging.Inputs, arts map[string][]byte, banner string) {
	t.Helper()
	deb := arts[fmt.Sprintf("%s_%d_all.deb", packaging.PackageName, in.Policy.Serial)]
	fields, order, err := debControl(deb)
	if err != nil {
		t.Fatal(err)
	}
	wantOrder := []string{"Package", "Version", "Section", "Priority", "Architecture", "Maintainer", "Installed-Size", "Homepage", "Description"}
	if !slices.Equal(order, wantOrder) {
		t.Errorf("deb control fields %v, want %v", order, wantOrder)
	}
	if d := fields["Description"]; !strings.HasPrefix(d, banner+". Installs ") || strings.Contains(d, "\n") {
		t.Errorf("deb Description %q does not carry the banner on its one line", d)
	}
	r, err := rpmutils.ReadRpm(bytes.NewReader(arts[fmt.Sprintf("%s-%d-1.noarch.rpm", packaging.PackageName, in.Policy.Serial)]))
	if err != nil {
		t.Fatal(err)
	}
	vendor, _ := r.Header.GetString(rpmutils.VENDOR)
	desc, _ := r.Header.GetString(rpmutils.DESCRIPTION)
	if vendor != in.Policy.Org || !strings.HasPrefix(desc, banner+". Installs ") {
		t.Errorf("rpm vendor %q description %q, want %q and the banner", vendor, desc, in.Policy.Org)
	}
}

func checkDir(t testing.TB, in packaging.Inputs, arts map[string][]byte, stamp, banner string) {
	t.Helper()
	var m struct {
		Description string `json:"description"`
		Org         string `json:"org"`
	}
	if err := json.Unmarshal(arts[packaging.ManifestFile], &m); err != nil || m.Org != in.Policy.Org || m.Description != banner {
		t.Errorf("MANIFEST.json: %v org %q description %q", err, m.Org, m.Description)
	}
	// The snippets hold no policy text: the same bytes whatever the org.
	plain := in
	plain.Policy.Org = ""
	for src, name := range packaging.Snippets {
		want, err := packaging.Snippet(src, plain)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(arts[name], want) {
			t.Errorf("%s changes with the org", name)
		}
		if !strings.HasPrefix(string(arts[name]), "# "+stamp+".\n") {
			t.Errorf("%s: first line is not the stamp", name)
		}
		if !strings.HasSuffix(name, ".yml") && !strings.HasSuffix(name, ".sls") {
			continue
		}
		var doc yaml.Node
		if err := yaml.Unmarshal(arts[name], &doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if head := doc.HeadComment + headOfFirst(&doc); !strings.HasPrefix(head, "# "+stamp+".\n") {
			t.Errorf("%s: YAML head comment %q", name, head)
		}
	}
}

// headOfFirst is the head comment of the document's first node (where
// the YAML parser attaches a file's leading comment).
func headOfFirst(doc *yaml.Node) string {
	for n := doc; n != nil && len(n.Content) > 0; n = n.Content[0] {
		if n.Content[0].HeadComment != "" {
			return n.Content[0].HeadComment
		}
	}
	return ""
}

func compactOf(data []byte) string {
	if data == nil {
		return ""
	}
	var b bytes.Buffer
	if err := json.Compact(&b, data); err != nil {
		return "(invalid JSON)"
	}
	return b.String()
}

func keyLinesOf(data []byte) []string {
	var out []string
	for l := range strings.Lines(strings.TrimPrefix(string(data), "\ufeff")) {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || v != w {
			return false
		}
	}
	return true
}

// TestHostileText: an org, managed config and key comment made of every
// hostile printable string give artefacts that parse and carry each string
// exactly; the real tools on this machine read them too.
func TestHostileText(t *testing.T) {
	t.Parallel()
	base := inputs(t)
	var all []packaging.Inputs
	for _, s := range hostileTexts {
		in := base
		in.Policy.Org = s
		in.Managed = hostileManaged(s)
		in.TrustedKeys = append(slices.Clip(base.TrustedKeys), "# "+s+"\n"...)
		t.Run(fmt.Sprintf("%q", s), func(t *testing.T) { checkArtefacts(t, in) })
		all = append(all, in)
	}
	realTools(t, all)
}

// realTools reads the artefacts of each inputs with the real parsers
// installed here — dpkg-deb, rpm, Ruby, puppet parser validate and
// Python's plistlib — one run of each tool over every variant (they start
// slowly). A missing tool skips only its own check; the in-process readers
// of checkArtefacts always run.
func realTools(t *testing.T, all []packaging.Inputs) {
	root := t.TempDir()
	var debs, rpms, rubies, pps, plists []string
	for i, in := range all {
		dir := filepath.Join(root, fmt.Sprint(i))
		for _, f := range packaging.Formats {
			arts, err := packaging.Build(f, in)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range arts {
				p := filepath.Join(dir, filepath.FromSlash(a.Name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, a.Data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		debs = append(debs, filepath.Join(dir, fmt.Sprintf("%s_%d_all.deb", packaging.PackageName, in.Policy.Serial)))
		rpms = append(rpms, filepath.Join(dir, fmt.Sprintf("%s-%d-1.noarch.rpm", packaging.PackageName, in.Policy.Serial)))
		rubies = append(rubies, filepath.Join(dir, "chef", "oceancode_policy.rb"))
		pps = append(pps, filepath.Join(dir, "puppet", "oceancode_policy.pp"))
		plists = append(plists, filepath.Join(dir, packaging.PolicyProfile))
	}
	run := func(tool string, args ...string) (string, bool) {
		t.Helper()
		if _, err := exec.LookPath(tool); err != nil {
			// make test installs them (Makefile): in CI a missing parser is a failure, not a quiet skip.
			if os.Getenv("CI") != "" {
				t.Errorf("%s not installed: make test installs it", tool)
			} else {
				t.Logf("%s not installed: its check is skipped (make test installs it)", tool)
			}
			return "", false
		}
		cmd := exec.Command(tool, args...)
		cmd.Env = append(os.Environ(), "HOME="+root)
		out, err := cmd.Output()
		if err != nil {
			t.Errorf("%s %v: %v\n%s", tool, args, err, out)
		}
		return string(out), err == nil
	}
	banners := make([]string, len(all))
	orgs := make([]string, len(all))
	for i, in := range all {
		banners[i] = fmt.Sprintf("OceanCode policy serial %d, payload sha256 %s, org %s", in.Policy.Serial, in.Policy.PayloadSHA256, in.Policy.Org)
		orgs[i] = in.Policy.Org
	}
	for i, deb := range debs {
		if out, ok := run("dpkg-deb", "--field", deb, "Description"); ok && !strings.Contains(out, banners[i]) {
			t.Errorf("dpkg-deb Description %q lacks the banner %q", out, banners[i])
		}
	}
	rpmArgs := append([]string{"-qp", "--nosignature", "--dbpath", filepath.Join(root, "rpmdb"), "--qf", "%{VENDOR}\\n"}, rpms...)
	if out, ok := run("rpm", rpmArgs...); ok && out != strings.Join(orgs, "\n")+"\n" {
		t.Errorf("rpm VENDOR\n%q\nwant\n%q", out, orgs)
	}
	// Ruby compiles each recipe as a file (magic comments included).
	run("ruby", append([]string{"-e", "ARGV.each { |f| RubyVM::InstructionSequence.compile_file(f) }"}, rubies...)...)
	run("puppet", append([]string{"parser", "validate", "--confdir", filepath.Join(root, "puppet-conf"), "--vardir", filepath.Join(root, "puppet-var")}, pps...)...)
	py := `import json, plistlib, sys
print(json.dumps([[d["PayloadOrganization"], d["PayloadContent"][0]["Managed"]] for d in (plistlib.load(open(f, "rb")) for f in sys.argv[1:])]))`
	if out, ok := run("python3", append([]string{"-c", py}, plists...)...); ok {
		var got [][]string
		if err := json.Unmarshal([]byte(out), &got); err != nil || len(got) != len(all) {
			t.Fatalf("plistlib: %q (%v)", out, err)
		}
		for i, in := range all {
			if got[i][0] != in.Policy.Org || got[i][1] != string(in.Managed) {
				t.Errorf("plistlib read %q, want the org %q and the managed config", got[i], in.Policy.Org)
			}
		}
	}
}

// TestRefusedText: an org, managed config or key list holding a character
// no artefact may carry is refused by Build for every format, with
// ErrUnsafeText, before anything is written.
func TestRefusedText(t *testing.T) {
	t.Parallel()
	base := inputs(t)
	for _, r := range []rune{'\n', '\r', '\t', 0, 0x1b, 0x07, 0x7f, 0x85, 0x9b, 0x2028, 0x2029, 0x202e, 0x2066, 0xffff} {
		s := "Acme" + string(r) + "[HKEY_LOCAL_MACHINE\\SOFTWARE\\Evil]"
		for _, f := range packaging.Formats {
			in := base
			in.Policy.Org = s
			if arts, err := packaging.Build(f, in); !errors.Is(err, packaging.ErrUnsafeText) || arts != nil || !strings.Contains(err.Error(), fmt.Sprintf("U+%04X", r)) {
				t.Errorf("Build(%s) with org %q = %d artefacts, %v; want refused naming U+%04X", f, s, len(arts), err, r)
			}
		}
	}
	for name, mutate := range map[string]func(*packaging.Inputs){
		"managed not JSON":      func(in *packaging.Inputs) { in.Managed = []byte("{\"a\": 1}\n'@\nRemove-Item C:\\") },
		"managed U+FFFE":        func(in *packaging.Inputs) { in.Managed = []byte("{\"a\": \"\uFFFE\"}") },
		"managed invalid UTF-8": func(in *packaging.Inputs) { in.Managed = []byte("{\"a\": \"\xff\"}") },
		"requirements not JSON": func(in *packaging.Inputs) { in.Requirements = []byte("x\n[HKEY_LOCAL_MACHINE\\x]") },
		"key line with escape": func(in *packaging.Inputs) {
			in.TrustedKeys = append(slices.Clip(in.TrustedKeys), "# \x1b]52;c;x\x07\n"...)
		},
		"key line with bare CR":  func(in *packaging.Inputs) { in.TrustedKeys = append(slices.Clip(in.TrustedKeys), "# a\rb\n"...) },
		"payload hash with line": func(in *packaging.Inputs) { in.Policy.PayloadSHA256 += "\n[HKEY_LOCAL_MACHINE\\x]" },
		"serial zero":            func(in *packaging.Inputs) { in.Policy.Serial = 0 },
	} {
		for _, f := range packaging.Formats {
			in := base
			mutate(&in)
			if arts, err := packaging.Build(f, in); !errors.Is(err, packaging.ErrUnsafeText) || arts != nil {
				t.Errorf("%s: Build(%s) = %d artefacts, %v; want ErrUnsafeText", name, f, len(arts), err)
			}
		}
	}
}

// acceptable is the oracle of the fuzz target: what Build must accept.
func acceptable(in packaging.Inputs) bool {
	jsonOK := func(b []byte) bool {
		if !utf8.Valid(b) || !json.Valid(b) {
			return false
		}
		return !strings.ContainsAny(string(b), "\uFFFE\uFFFF")
	}
	return in.Policy.Serial >= 1 && policycheck.CheckText(in.Policy.Org, false) == nil &&
		(in.Managed == nil || jsonOK(in.Managed)) && policycheck.CheckText(string(in.TrustedKeys), true) == nil &&
		!strings.Contains(strings.ReplaceAll(string(in.TrustedKeys), "\r\n", ""), "\r")
}

// FuzzArtefacts generates policies with arbitrary strings — the org, free
// text and opaque values of the managed config, a raw managed config, a
// comment line of the trusted keys, the serial — and checks that Build
// refuses exactly what no artefact may carry and that everything else
// parses back with each format's parser, every string exact.
func FuzzArtefacts(f *testing.F) {
	for _, s := range hostileTexts {
		f.Add(s, s, int64(42))
	}
	f.Add("Acme\nInc", "{}", int64(1))
	f.Add("Acme\u202eInc", "x\u2028y", int64(7))
	f.Add("", "\x1b[2J", int64(9007199254740991))
	base := inputs(f)
	f.Fuzz(func(t *testing.T, org, text string, serial int64) {
		in := base
		in.Policy.Org, in.Policy.Serial = org, serial
		in.TrustedKeys = append(slices.Clip(base.TrustedKeys), "# "+text+"\n"...)
		for _, managed := range [][]byte{hostileManaged(text), []byte(text), nil} {
			in.Managed = managed
			_, err := packaging.Build("reg", in)
			switch ok := acceptable(in); {
			case ok && err != nil:
				t.Fatalf("Build refused acceptable inputs (org %q, managed %q): %v", org, managed, err)
			case !ok && !errors.Is(err, packaging.ErrUnsafeText):
				t.Fatalf("Build accepted inputs no artefact may carry (org %q, managed %q): %v", org, managed, err)
			case ok:
				checkArtefacts(t, in)
			}
		}
	})
}
