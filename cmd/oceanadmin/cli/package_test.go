package cli

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/packaging"
)

// adminRun runs oceanadmin in-process with env and returns the exit status,
// stdout and stderr.
func adminRun(env map[string]string, argv ...string) (int, string, string) {
	var out, errb bytes.Buffer
	app := &App{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] }}
	return Main(context.Background(), argv, app), out.String(), errb.String()
}

func mustAdmin(t *testing.T, env map[string]string, argv ...string) string {
	t.Helper()
	code, out, errs := adminRun(env, argv...)
	if code != 0 {
		t.Fatalf("oceanadmin %s: exit %d\n%s%s", strings.Join(argv, " "), code, out, errs)
	}
	return out
}

// signedFixture makes a key, trusted_keys, a policy signed now and a
// managed config in the current (temporary) directory.
func signedFixture(t *testing.T) {
	t.Helper()
	t.Chdir(t.TempDir())
	mustAdmin(t, nil, "keygen", "--unencrypted", "--comment", "fleet", "-o", "admin.key")
	if err := os.Rename("admin.pub", "trusted_keys"); err != nil {
		t.Fatal(err)
	}
	write := func(name, content string) {
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("policy.json", `{"schema_version": 1, "org": "acme", "disable_bypass_permissions": true, "rules": {"deny": ["Bash(curl:*)"]}}`)
	write("managed.json", `{"sandbox": {"mode": "workspace-write"}, "permission": {"bash": {"go test:*": "allow"}}}`)
	mustAdmin(t, nil, "sign", "-k", "admin.key", "--serial", "7", "policy.json", "-o", "requirements.json")
}

// packageAll runs oceanadmin package for format into dir and checks that
// stdout lists exactly the files written, one per line.
func packageAll(t *testing.T, env map[string]string, format, dir string) []string {
	t.Helper()
	out := mustAdmin(t, env, "package", "--format", format, "--requirements", "requirements.json",
		"--managed", "managed.json", "--trusted-keys", "trusted_keys", "-o", dir)
	paths := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	var onDisk []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			onDisk = append(onDisk, p)
		}
		return err
	})
	if strings.Join(sorted(paths), "\n") != strings.Join(sorted(onDisk), "\n") {
		t.Errorf("package --format %s printed\n%s\nbut wrote\n%s", format, out, strings.Join(onDisk, "\n"))
	}
	for _, p := range paths {
		if !strings.HasPrefix(p, dir+string(filepath.Separator)) {
			t.Errorf("printed path %s is not in %s", p, dir)
		}
	}
	return paths
}

func sorted(s []string) []string { return slices.Sorted(slices.Values(s)) }

// TestPackageDebVerifies installs the .deb's files into a throw-away root
// with dpkg-deb -x and runs the real oceanadmin verify and validate on
// them, as an agent would find them; the dir format's tree likewise.
func TestPackageDebVerifies(t *testing.T) {
	if _, err := exec.LookPath("dpkg-deb"); err != nil {
		t.Skip("dpkg-deb not installed")
	}
	signedFixture(t)
	paths := packageAll(t, nil, "deb", "dist")
	if len(paths) != 1 || filepath.Base(paths[0]) != "oceancode-policy_7_all.deb" {
		t.Fatalf("deb artefacts %v, want oceancode-policy_7_all.deb", paths)
	}
	root := t.TempDir()
	if out, err := exec.Command("dpkg-deb", "-x", paths[0], root).CombinedOutput(); err != nil {
		t.Fatalf("dpkg-deb -x: %v\n%s", err, out)
	}
	checkManagedDir(t, filepath.Join(root, "etc", "oceancode"))
	packageAll(t, nil, "dir", "tree")
	checkManagedDir(t, filepath.Join("tree", "etc", "oceancode"))
}

func checkManagedDir(t *testing.T, dir string) {
	t.Helper()
	out := mustAdmin(t, nil, "verify", "--pubkey", filepath.Join(dir, "trusted_keys"), filepath.Join(dir, "requirements.json"))
	if !strings.Contains(out, "serial          7") {
		t.Errorf("verify of the installed requirements:\n%s", out)
	}
	mustAdmin(t, nil, "validate", "--kind", "managed", filepath.Join(dir, "managed.json"))
	for _, name := range []string{"trusted_keys", "requirements.json", "managed.json"} {
		installed, _ := os.ReadFile(filepath.Join(dir, name))
		input, _ := os.ReadFile(name)
		if !bytes.Equal(installed, input) {
			t.Errorf("installed %s differs from the input", name)
		}
	}
}

// TestPackageRebuildIdentical: every format rebuilt from the same inputs,
// into another directory, gives the same bytes, with and without
// SOURCE_DATE_EPOCH; a bad SOURCE_DATE_EPOCH is a usage error.
func TestPackageRebuildIdentical(t *testing.T) {
	signedFixture(t)
	for _, env := range []map[string]string{nil, {"SOURCE_DATE_EPOCH": "1700000000"}} {
		for _, f := range packaging.Formats {
			a := packageAll(t, env, f, filepath.Join("a", f))
			b := packageAll(t, env, f, filepath.Join("b", f))
			if len(a) != len(b) {
				t.Fatalf("%s: %d then %d artefacts", f, len(a), len(b))
			}
			for i := range a {
				da, _ := os.ReadFile(a[i])
				db, _ := os.ReadFile(b[i])
				if !bytes.Equal(da, db) || len(da) == 0 {
					t.Errorf("%s: %s and %s differ", f, a[i], b[i])
				}
			}
		}
		os.RemoveAll("a")
		os.RemoveAll("b")
	}
	code, _, errs := adminRun(map[string]string{"SOURCE_DATE_EPOCH": "yesterday"}, "package", "--format", "deb",
		"--requirements", "requirements.json", "--trusted-keys", "trusted_keys", "-o", "x")
	if code != 2 || !strings.Contains(errs, `SOURCE_DATE_EPOCH "yesterday"`) {
		t.Errorf("bad SOURCE_DATE_EPOCH: exit %d, %s", code, errs)
	}
}

// TestImport runs oceanadmin import on the realistic inputs of
// packaging/testdata/import, then the whole chain an administrator would:
// validate both outputs, sign the policy, package it.
func TestImport(t *testing.T) {
	src, err := filepath.Abs(filepath.Join("..", "..", "..", "packaging", "testdata", "import"))
	if err != nil {
		t.Fatal(err)
	}
	signedFixture(t)
	for _, c := range []struct{ from, file string }{{"claude", "managed-settings.json"}, {"codex", "requirements.toml"}} {
		t.Run(c.from, func(t *testing.T) {
			out := filepath.Join("imported", c.from)
			code, stdout, stderr := adminRun(nil, "import", "--from", c.from, filepath.Join(src, c.from, c.file), "-o", out)
			if code != 0 {
				t.Fatalf("import: exit %d\n%s%s", code, stdout, stderr)
			}
			want := filepath.Join(out, "managed.json") + "\n" + filepath.Join(out, "policy.json") + "\n"
			if stdout != want {
				t.Errorf("stdout %q, want %q", stdout, want)
			}
			report, _ := os.ReadFile(filepath.Join(src, c.from, "want.report.txt"))
			for _, line := range strings.Split(strings.TrimSpace(string(report)), "\n") {
				if !strings.Contains(stderr, "oceanadmin: import: "+line+"\n") {
					t.Errorf("stderr lacks %q:\n%s", line, stderr)
				}
			}
			mustAdmin(t, nil, "validate", "--kind", "managed", filepath.Join(out, "managed.json"))
			mustAdmin(t, nil, "validate", filepath.Join(out, "policy.json"))
			env := filepath.Join(out, "requirements.json")
			mustAdmin(t, nil, "sign", "-k", "admin.key", filepath.Join(out, "policy.json"), "-o", env)
			mustAdmin(t, nil, "package", "--format", "dir", "--requirements", env, "--managed", filepath.Join(out, "managed.json"),
				"--trusted-keys", "trusted_keys", "-o", filepath.Join(out, "dist"))
			// A second import into the same directory needs --force.
			if code, _, stderr := adminRun(nil, "import", "--from", c.from, filepath.Join(src, c.from, c.file), "-o", out); code != 2 || !strings.Contains(stderr, "--force") {
				t.Errorf("import over existing outputs: exit %d\n%s", code, stderr)
			}
			mustAdmin(t, nil, "import", "--force", "--from", c.from, filepath.Join(src, c.from, c.file), "-o", out)
		})
	}
}
