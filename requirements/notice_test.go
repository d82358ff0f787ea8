package requirements

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestNotice checks the one stderr sentence for each way the deployed file
// is not the policy in force: it names the file, what is wrong and what to
// do, on one line.
func TestNotice(t *testing.T) {
	admin := testKey(t)
	a := anchorsOf(admin)
	a.Source = "/etc/oceancode/trusted_keys"
	good := envelope(t, PayloadType, payload(4, nil), admin)
	tampered := []byte(strings.Replace(string(good), `"payload": "e`, `"payload": "f`, 1))
	invalid := envelope(t, PayloadType, payload(5, map[string]any{"rules": map[string]any{"allow": []any{"Bash"}}}), admin)
	tests := []struct {
		name string
		file []byte // nil: deleted
		dir  bool
		lkg  bool // verify good first, so a last-known-good exists
		now  time.Time
		want []string // all must appear; nil: no notice
	}{
		{name: "verified", file: good},
		{name: "deleted, last-known-good", lkg: true, want: []string{"is missing although trusted keys are configured (/etc/oceancode/trusted_keys)", "last-known-good policy (serial 4", "stays in force", "ask your administrator"}},
		{name: "deleted, nothing to fall back on", want: []string{"is missing although trusted keys are configured", "sessions are refused (exit 4)", "ask your administrator"}},
		{name: "unreadable", dir: true, want: []string{"cannot be read (", "is a directory", "sessions are refused"}},
		{name: "tampered, last-known-good", file: tampered, lkg: true, want: []string{"was refused (signing: bad signature", "stays in force"}},
		{name: "invalid payload", file: invalid, want: []string{"was refused (1 problem(s); ", `unknown key "allow"`}},
		{name: "expired warn", file: envelope(t, PayloadType, payload(6, map[string]any{"on_expiry": "warn"}), admin), now: time.Date(2027, 3, 1, 0, 0, 0, 0, time.UTC), want: []string{"expired", "ask your administrator"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "requirements.json")
			state := filepath.Join(dir, "state")
			now := tt.now
			if now.IsZero() {
				now = testNow
			}
			if tt.lkg {
				writeFile(t, dir, "requirements.json", good)
				if r := Load(Options{Path: path, Anchors: a, Now: now, StateDir: state}); r.Status != Verified {
					t.Fatal(r.Reason)
				}
				os.Remove(path)
			}
			switch {
			case tt.dir:
				os.Mkdir(path, 0o755)
			case tt.file != nil:
				writeFile(t, dir, "requirements.json", tt.file)
			}
			n := Load(Options{Path: path, Anchors: a, Now: now, StateDir: state}).Notice()
			if tt.want == nil {
				if n != "" {
					t.Fatalf("notice %q, want none", n)
				}
				return
			}
			if !strings.HasPrefix(n, "requirements "+path+" ") || strings.Contains(n, "\n") {
				t.Errorf("notice %q does not start with the file or is not one line", n)
			}
			for _, w := range tt.want {
				if !strings.Contains(n, w) {
					t.Errorf("notice %q lacks %q", n, w)
				}
			}
		})
	}
	if n := Load(Options{Path: filepath.Join(t.TempDir(), "r.json")}).Notice(); n != "" {
		t.Errorf("not enforced: notice %q", n)
	}
}
