package checkpoint_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/oceancode/oceancode/agent/checkpoint"
)

// The checkpoint benchmarks (docs/benchmarks.md). Each generates its
// fixture in a temporary directory: a repository of 50,000 files, and a
// project whose ignored node_modules holds 1 GiB (sparse files, so the
// disk does not fill). Each reports the baselines measured in the same
// run: a plain lstat of every tracked file (the least any scan costs) and
// git status of the project's own repository.
//
//	go test -run '^$' -bench 'Checkpoint' -benchtime 20x ./agent/checkpoint/

// tree writes files files of about 100 bytes under root, 100 per
// directory, and commits them in the project's own repository.
func tree(b *testing.B, root string, files int) {
	b.Helper()
	for i := range files {
		dir := filepath.Join(root, fmt.Sprintf("d%02d", i/5000), fmt.Sprintf("s%03d", i/100%50))
		if i%100 == 0 {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				b.Fatal(err)
			}
		}
		body := fmt.Sprintf("package p%d\n\n// file %d of the benchmark tree, with a line or two of text.\n", i, i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.go", i%100)), []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	run(b, root, "git init -q && git add -A && git -c user.name=b -c user.email=b@b commit -qm tree")
}

func run(b *testing.B, dir, script string) {
	b.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%s: %v\n%s", script, err, out)
	}
}

// benchSnapshots measures one checkpoint after one changed file (of
// changeBytes random bytes), and the disk it adds.
func benchSnapshots(b *testing.B, root string, changeBytes int) {
	state := b.TempDir()
	r, err := checkpoint.Open(checkpoint.Options{StateDir: state}, root)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := r.Snapshot(context.Background()); err != nil { // the first: every file hashed once
		b.Fatal(err)
	}
	before := dirBytes(r.Dir())
	target := filepath.Join(root, "d00", "s000", "f000.go")
	data := make([]byte, changeBytes)
	n := 0
	for b.Loop() {
		b.StopTimer()
		_, _ = rand.Read(data)
		if err := os.WriteFile(target, data, 0o644); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := r.Snapshot(context.Background()); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(dirBytes(r.Dir())-before)/float64(n), "disk-B/op")
	b.ReportMetric(float64(changeBytes), "changed-B/op")
}

func dirBytes(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && d.Name() != "index" {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// BenchmarkCheckpoint50k: a checkpoint of a repository of 50,000 files
// with one changed file (goal ≤ 50 ms).
func BenchmarkCheckpoint50k(b *testing.B) {
	root := b.TempDir()
	tree(b, root, 50_000)
	b.Run("checkpoint", func(b *testing.B) { benchSnapshots(b, root, 10_000) })
	b.Run("baseline-lstat", func(b *testing.B) { benchLstat(b, root) })
	b.Run("baseline-git-status", func(b *testing.B) { benchGitStatus(b, root) })
}

// BenchmarkCheckpointNodeModules: a checkpoint of a project of 5,000 files
// beside an ignored node_modules of 1 GiB in 20,000 files (goal ≤ 100 ms).
func BenchmarkCheckpointNodeModules(b *testing.B) {
	root := b.TempDir()
	tree(b, root, 5_000)
	const files, total = 20_000, 1 << 30
	for i := range files {
		dir := filepath.Join(root, "node_modules", fmt.Sprintf("pkg%04d", i/10), "lib")
		if i%10 == 0 {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				b.Fatal(err)
			}
		}
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("m%d.js", i%10)))
		if err != nil {
			b.Fatal(err)
		}
		if err := f.Truncate(total / files); err != nil { // sparse
			b.Fatal(err)
		}
		f.Close()
	}
	if err := os.WriteFile(filepath.Join(root, ".gitignore"), []byte("node_modules/\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	b.Run("checkpoint", func(b *testing.B) { benchSnapshots(b, root, 10_000) })
	b.Run("baseline-lstat", func(b *testing.B) { benchLstat(b, root) })
	b.Run("baseline-git-status", func(b *testing.B) { benchGitStatus(b, root) })
}

// benchLstat is the floor: one lstat per file outside node_modules.
func benchLstat(b *testing.B, root string) {
	for b.Loop() {
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if d != nil && d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			if err == nil && !d.IsDir() {
				_, _ = os.Lstat(p)
			}
			return nil
		})
	}
}

// benchGitStatus is what git itself costs on the project's own repository.
func benchGitStatus(b *testing.B, root string) {
	for b.Loop() {
		cmd := exec.Command("git", "status", "--porcelain", "-uall")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+root, "GIT_OPTIONAL_LOCKS=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git status: %v\n%s", err, out)
		}
	}
}
