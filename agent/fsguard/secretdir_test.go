package fsguard

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestSecretDirs: every file of a secrets directory is refused, by its
// path or through a symlink to it; a file beside it is not.
func TestSecretDirs(t *testing.T) {
	base := t.TempDir()
	state := filepath.Join(base, "home", ".local", "state", "oceancode")
	os.MkdirAll(filepath.Join(state, "crashes"), 0o700)
	tok := filepath.Join(state, "server.token")
	os.WriteFile(tok, []byte("t"), 0o600)
	os.WriteFile(filepath.Join(base, "home", "notes.txt"), []byte("n"), 0o600)
	link := filepath.Join(base, "innocent.txt")
	os.Symlink(tok, link)
	SetSecretDirs(state, "relative/ignored", "")
	for _, p := range []string{tok, state, filepath.Join(state, "crashes", "x.json"), link, filepath.Join(state, "..", "oceancode", "server.token")} {
		if err := CheckRead(p); !errors.Is(err, ErrSecretFile) {
			t.Errorf("CheckRead(%s) = %v, want %v", p, err, ErrSecretFile)
		}
	}
	if err := CheckRead(filepath.Join(base, "home", "notes.txt")); err != nil {
		t.Errorf("a file beside the state dir: %v", err)
	}
	if err := CheckDir(filepath.Join(state, "crashes")); !errors.Is(err, ErrSecretFile) {
		t.Errorf("CheckDir inside: %v", err)
	}
	if err := CheckDir(filepath.Join(base, "home")); err != nil {
		t.Errorf("CheckDir above (walked, the secrets dir skipped): %v", err)
	}
}
