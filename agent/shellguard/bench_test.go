package shellguard

import (
	"strings"
	"testing"
)

func benchClassifier(b *testing.B) *Classifier {
	c, err := New(Config{ProjectRoot: "/home/u/proj", Home: "/home/u",
		Allow: []Rule{{Pattern: "npm test:*"}, {Pattern: "go test:*"}},
		Deny:  []Rule{{Pattern: "git push:*"}}})
	if err != nil {
		b.Fatal(err)
	}
	return c
}

func benchClassify(b *testing.B, cmd string) {
	c := benchClassifier(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(cmd)))
	b.ResetTimer()
	for b.Loop() {
		_ = c.Classify(cmd, "")
	}
}

// BenchmarkClassifyTypical: a typical agent command.
func BenchmarkClassifyTypical(b *testing.B) {
	benchClassify(b, "git status && go test ./... 2>&1 | tail -n 20")
}

// BenchmarkClassifySimple: one read-only command.
func BenchmarkClassifySimple(b *testing.B) {
	benchClassify(b, "git status")
}

// BenchmarkClassifyFloorWrapped: a floor command behind wrappers and bash -c.
func BenchmarkClassifyFloorWrapped(b *testing.B) {
	benchClassify(b, `sudo -u root timeout 5 env FOO=1 bash -lc 'cd / && rm -rf --no-preserve-root "/"'`)
}

// BenchmarkClassifyDecoded: a floor command the guard decodes first
// (printf escapes inside bash -c, base64 of a literal piped to sh).
func BenchmarkClassifyDecoded(b *testing.B) {
	benchClassify(b, `bash -c "$(printf '\x72\x6d -rf /')" ; echo cm0gLXJmIC8= | base64 -d | sh`)
}

// BenchmarkClassifyLong: a 2 KB script.
func BenchmarkClassifyLong(b *testing.B) {
	benchClassify(b, longScript())
}

func longScript() string {
	var sb strings.Builder
	lines := []string{
		"set -euo pipefail",
		`for f in $(git ls-files '*.go'); do gofmt -l "$f"; done`,
		"if [ -d build ]; then rm -rf build; fi",
		"mkdir -p build && cd build",
		`cmake .. -DCMAKE_BUILD_TYPE=Release > /dev/null 2>&1 || { echo "cmake failed"; exit 1; }`,
		"make -j8 2>&1 | tee build.log | grep -E 'error|warning' | head -n 50",
		`export VERSION="$(git describe --tags --always)"`,
		"find . -name '*.o' -newer Makefile | xargs -r ls -la",
		`case "$VERSION" in v*) echo release ;; *) echo dev ;; esac`,
		"git log --oneline -n 20 | awk '{print $1}' | sort | uniq -c",
	}
	for sb.Len() < 2048 {
		for _, l := range lines {
			sb.WriteString(l)
			sb.WriteByte('\n')
		}
	}
	return sb.String()
}

// BenchmarkClassifyBatchMix: the commands of the CLI's --batch benchmark
// (cmd/oceancode/cli BenchmarkPermissionBatch), one per iteration in turn.
func BenchmarkClassifyBatchMix(b *testing.B) {
	cmds := []string{"git status", "go test ./...", "git status && npm test", "rm -rf build", "ls -la src",
		"grep -rn TODO .", "make build 2>&1 | tail -n 20", "git diff HEAD~1", "cat README.md", "npm run lint"}
	c := benchClassifier(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		_ = c.Classify(cmds[i%len(cmds)], "")
		i++
	}
}

// BenchmarkClassifyExecOptions: payloads programs run from their options
// and operands (runTable): git grep's pager, ssh's remote command, find
// -exec, a git -c pager, a wrapper chain.
func BenchmarkClassifyExecOptions(b *testing.B) {
	benchClassify(b, `git grep --open-files-in-pager='less -R' x && ssh -p 22 host 'ls -la' && find . -name '*.go' -exec grep -l TODO {} + && git -c core.pager=cat log -1 && flock -w 5 /tmp/l timeout 5 make`)
}
