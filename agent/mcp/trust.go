package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/oceancode/oceancode/internal/atomicfile"
)

// TrustFile is the trust store's file name in the user's state directory.
const TrustFile = "mcp-trust.json"

// TrustStore keeps the user's trust decisions for project (.mcp.json) and
// plugin servers: per project root and server name, the fingerprint that was
// trusted. It lives in the user's state directory (never in the project,
// which could pre-approve itself) and is written atomically.
type TrustStore struct {
	Path string
	mu   sync.Mutex
}

// TrustRecord is one trusted definition.
type TrustRecord struct {
	Fingerprint
	TrustedAt time.Time `json:"trusted_at"`
}

type trustData struct {
	Version  int                               `json:"version"`
	Projects map[string]map[string]TrustRecord `json:"projects"`
}

func (t *TrustStore) load() (trustData, error) {
	d := trustData{Version: 1, Projects: map[string]map[string]TrustRecord{}}
	b, err := os.ReadFile(t.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return d, nil
	}
	if err != nil {
		return d, fmt.Errorf("read mcp trust store %s: %w", t.Path, err)
	}
	if err := json.Unmarshal(b, &d); err != nil {
		// Fail closed: a broken store trusts nothing (and is not overwritten
		// silently by a read).
		return d, fmt.Errorf("read mcp trust store %s: %w", t.Path, err)
	}
	if d.Projects == nil {
		d.Projects = map[string]map[string]TrustRecord{}
	}
	return d, nil
}

func (t *TrustStore) save(d trustData) error {
	if err := os.MkdirAll(filepath.Dir(t.Path), 0o700); err != nil {
		return fmt.Errorf("write mcp trust store %s: %w", t.Path, err)
	}
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return fmt.Errorf("write mcp trust store %s: %w", t.Path, err)
	}
	return atomicfile.Write(t.Path, append(b, '\n'), 0o600)
}

// Lookup returns the trusted record of server name in project.
func (t *TrustStore) Lookup(project, name string) (TrustRecord, bool, error) {
	if t == nil || t.Path == "" {
		return TrustRecord{}, false, nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	d, err := t.load()
	if err != nil {
		return TrustRecord{}, false, err
	}
	r, ok := d.Projects[project][name]
	return r, ok, nil
}

// Trust records fp as trusted for server name in project.
func (t *TrustStore) Trust(project, name string, fp Fingerprint) error {
	if t == nil || t.Path == "" {
		return errors.New("trust mcp server " + name + ": no state directory to keep the decision in")
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	d, err := t.load()
	if err != nil {
		return err
	}
	if d.Projects[project] == nil {
		d.Projects[project] = map[string]TrustRecord{}
	}
	d.Projects[project][name] = TrustRecord{Fingerprint: fp, TrustedAt: time.Now().UTC()}
	return t.save(d)
}

// Forget drops the trust of server name in project (no error when absent).
func (t *TrustStore) Forget(project, name string) error {
	if t == nil || t.Path == "" {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	d, err := t.load()
	if err != nil {
		return err
	}
	if _, ok := d.Projects[project][name]; !ok {
		return nil
	}
	delete(d.Projects[project], name)
	if len(d.Projects[project]) == 0 {
		delete(d.Projects, project)
	}
	return t.save(d)
}
