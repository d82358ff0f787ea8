package packaging_test

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	rpmutils "github.com/sassoftware/go-rpmutils"

	"github.com/oceancode/oceancode/packaging"
)

// TestDeb inspects the .deb with dpkg-deb: its metadata names the serial
// and payload hash, it installs exactly the three files root:root 0644 in a
// root-owned 0755 directory, marks none as a conffile and has no
// maintainer scripts, and the files extracted are the inputs byte for byte.
// (cmd/oceanadmin/cli's TestPackageDebVerifies runs oceanadmin verify on
// the extracted tree.)
func TestDeb(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("dpkg-deb"); err != nil {
		t.Skip("dpkg-deb not installed")
	}
	in := inputs(t)
	got := build(t, "deb", in)
	name := "oceancode-policy_42_all.deb"
	deb := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(deb, got[name], 0o644); err != nil {
		t.Fatalf("%v (artefacts: %v)", err, sortedNames(got))
	}
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("dpkg-deb", args...).CombinedOutput()
		if err != nil {
			t.Fatalf("dpkg-deb %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	info := run("--info", deb)
	for _, want := range []string{"Package: oceancode-policy", "Version: 42", "Architecture: all", "serial 42", in.Policy.PayloadSHA256} {
		if !strings.Contains(info, want) {
			t.Errorf("dpkg-deb --info lacks %q:\n%s", want, info)
		}
	}
	ctl := t.TempDir()
	run("--control", deb, ctl)
	entries, _ := os.ReadDir(ctl)
	for _, e := range entries {
		if e.Name() != "control" && e.Name() != "md5sums" {
			t.Errorf("control member %s: want only control and md5sums (no conffiles, no maintainer scripts)", e.Name())
		}
	}
	contents := run("--contents", deb)
	line := regexp.MustCompile(`(?m)^(\S+) (\S+)\s+\d+ \S+ \S+ \./(\S*)$`)
	seen := map[string]string{}
	for _, m := range line.FindAllStringSubmatch(contents, -1) {
		seen[m[3]] = m[1] + " " + m[2]
	}
	want := map[string]string{
		"etc/":                            "drwxr-xr-x root/root",
		"etc/oceancode/":                  "drwxr-xr-x root/root",
		"etc/oceancode/managed.json":      "-rw-r--r-- root/root",
		"etc/oceancode/requirements.json": "-rw-r--r-- root/root",
		"etc/oceancode/trusted_keys":      "-rw-r--r-- root/root",
	}
	if len(seen) != len(want) {
		t.Errorf("dpkg-deb --contents:\n%s", contents)
	}
	for p, w := range want {
		if seen[p] != w {
			t.Errorf("%s: %q, want %q", p, seen[p], w)
		}
	}
	root := t.TempDir()
	run("-x", deb, root)
	for name, data := range map[string][]byte{"managed.json": in.Managed, "requirements.json": in.Requirements, "trusted_keys": in.TrustedKeys} {
		got, err := os.ReadFile(filepath.Join(root, "etc", "oceancode", name))
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("extracted %s differs from the input (%v)", name, err)
		}
	}
}

// TestRPM reads the rpm back with an rpm reader: name, version, release,
// the description, the three files root:root 0644 not flagged as config,
// no scriptlets, and the payload holding the inputs.
func TestRPM(t *testing.T) {
	t.Parallel()
	in := inputs(t)
	got := build(t, "rpm", in)
	data := got["oceancode-policy-42-1.noarch.rpm"]
	if data == nil {
		t.Fatalf("artefacts: %v", sortedNames(got))
	}
	r, err := rpmutils.ReadRpm(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	nevra, err := r.Header.GetNEVRA()
	if err != nil {
		t.Fatal(err)
	}
	if nevra.Name != packaging.PackageName || nevra.Version != "42" || nevra.Release != "1" || nevra.Arch != "noarch" {
		t.Errorf("NEVRA %+v", nevra)
	}
	desc, _ := r.Header.GetString(rpmutils.DESCRIPTION)
	if !strings.Contains(desc, "serial 42") || !strings.Contains(desc, in.Policy.PayloadSHA256) {
		t.Errorf("description %q names neither the serial nor the hash", desc)
	}
	for _, tag := range []int{rpmutils.PREIN, rpmutils.POSTIN, rpmutils.PREUN, rpmutils.POSTUN} {
		if r.Header.HasTag(tag) {
			t.Errorf("the rpm has scriptlet tag %d", tag)
		}
	}
	files, err := r.Header.GetFiles()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if !strings.HasPrefix(f.Name(), packaging.ManagedDir+"/") {
			continue
		}
		n++
		if f.UserName() != "root" || f.GroupName() != "root" || f.Mode()&0o7777 != 0o644 || f.Flags()&rpmutils.RPMFILE_CONFIG != 0 {
			t.Errorf("%s: %s:%s %o flags %d, want root:root 0644 not config", f.Name(), f.UserName(), f.GroupName(), f.Mode()&0o7777, f.Flags())
		}
	}
	if n != 3 {
		t.Errorf("%d files under %s, want 3", n, packaging.ManagedDir)
	}
	pr, err := r.PayloadReader()
	if err != nil {
		t.Fatal(err)
	}
	payload := map[string][]byte{}
	for {
		h, err := pr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(pr)
		payload[strings.TrimPrefix(h.Filename(), ".")] = b
	}
	for name, want := range map[string][]byte{"managed.json": in.Managed, "requirements.json": in.Requirements, "trusted_keys": in.TrustedKeys} {
		if !bytes.Equal(payload[packaging.ManagedDir+"/"+name], want) {
			t.Errorf("payload %s differs from the input (payload: %v)", name, sortedNames(payload))
		}
	}
}
