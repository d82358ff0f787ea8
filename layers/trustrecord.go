package layers

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/oceancode/oceancode/internal/atomicfile"
)

// TrustFile is the workspace trust records' file name in the user's state
// directory (0600, written atomically; never in the project, which could
// trust itself).
const TrustFile = "workspace-trust.json"

// TrustStore keeps the user's workspace trust decisions: per workspace
// (absolute, symlink-resolved root), the digest of the loosening config
// that was trusted. A record for another digest does not trust: the config
// changed since, and the user is asked again.
type TrustStore struct{ Path string }

// TrustRecord is one trusted workspace.
type TrustRecord struct {
	Root      string    `json:"root"`
	Digest    string    `json:"digest"`
	TrustedAt time.Time `json:"trusted_at"`
}

type trustRecords struct {
	Version    int                    `json:"version"`
	Workspaces map[string]TrustRecord `json:"workspaces"`
}

// NewTrustStore is the store in stateDir.
func NewTrustStore(stateDir string) *TrustStore {
	return &TrustStore{Path: filepath.Join(stateDir, TrustFile)}
}

func (t *TrustStore) load() (trustRecords, error) {
	d := trustRecords{Version: 1, Workspaces: map[string]TrustRecord{}}
	b, err := os.ReadFile(t.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return d, nil
	}
	if err != nil {
		return d, fmt.Errorf("read workspace trust records %s: %w", t.Path, err)
	}
	if err := json.Unmarshal(b, &d); err != nil {
		// Fail closed: a broken file trusts nothing.
		return d, fmt.Errorf("read workspace trust records %s: %w; remove the file and trust the workspaces again", t.Path, err)
	}
	if d.Workspaces == nil {
		d.Workspaces = map[string]TrustRecord{}
	}
	return d, nil
}

func (t *TrustStore) save(d trustRecords) error {
	if err := os.MkdirAll(filepath.Dir(t.Path), 0o700); err != nil {
		return fmt.Errorf("write workspace trust records %s: %w", t.Path, err)
	}
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return fmt.Errorf("write workspace trust records %s: %w", t.Path, err)
	}
	return atomicfile.Write(t.Path, append(b, '\n'), 0o600)
}

// Lookup returns the record of the workspace at root.
func (t *TrustStore) Lookup(root string) (TrustRecord, bool, error) {
	d, err := t.load()
	if err != nil {
		return TrustRecord{}, false, err
	}
	r, ok := d.Workspaces[root]
	return r, ok, nil
}

// Trust records the workspace at root as trusted with the loosening
// config whose digest is given.
func (t *TrustStore) Trust(root, digest string, now time.Time) error {
	d, err := t.load()
	if err != nil {
		return err
	}
	d.Workspaces[root] = TrustRecord{Root: root, Digest: digest, TrustedAt: now.UTC()}
	return t.save(d)
}

// Revoke drops the record of the workspace at root; ok is false when there
// was none.
func (t *TrustStore) Revoke(root string) (ok bool, err error) {
	d, err := t.load()
	if err != nil {
		return false, err
	}
	if _, ok = d.Workspaces[root]; !ok {
		return false, nil
	}
	delete(d.Workspaces, root)
	return true, t.save(d)
}

// List returns every record, by root.
func (t *TrustStore) List() ([]TrustRecord, error) {
	d, err := t.load()
	if err != nil {
		return nil, err
	}
	out := make([]TrustRecord, 0, len(d.Workspaces))
	for _, r := range d.Workspaces {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Root < out[j].Root })
	return out, nil
}
