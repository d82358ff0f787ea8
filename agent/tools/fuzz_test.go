package tools

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzParsePatch: the apply_patch parser never panics, what it accepts
// names a path for every file and survives a format/parse round trip, and
// applying its hunks to any content never panics. Seeds are committed
// under testdata/fuzz/FuzzParsePatch.
func FuzzParsePatch(f *testing.F) {
	f.Add("*** Begin Patch\n*** Update File: a\n@@ f()\n x\n-y\n+z\n*** End of File\n*** End Patch", "f()\nx\ny\n")
	f.Fuzz(func(t *testing.T, patch, content string) {
		ops, err := parsePatch(patch)
		if err != nil {
			return
		}
		for _, op := range ops {
			if op.path == "" || strings.ContainsAny(op.path, "\n") {
				t.Fatalf("bad path %q", op.path)
			}
			if op.kind == opUpdate {
				applyHunks(content, op.hunks)
			}
		}
		again, err := parsePatch(formatPatch(ops))
		if err != nil {
			t.Fatalf("a formatted patch does not parse: %v\n%s", err, formatPatch(ops))
		}
		if diff := cmp.Diff(ops, again, cmp.AllowUnexported(patchOp{}, hunk{}, hunkLine{})); diff != "" {
			t.Fatalf("round trip (-parsed +reparsed):\n%s", diff)
		}
	})
}
