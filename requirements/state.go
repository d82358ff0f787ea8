package requirements

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/oceancode/oceancode/internal/atomicfile"
)

// StateFile is the anti-rollback state's file name in the state dir.
const StateFile = "requirements-state.json"

// state is the anti-rollback record: per trusted key set, the highest serial
// seen and its payload hash.
type state struct {
	Version int                `json:"version"`
	Keysets map[string]*record `json:"keysets"`
}

type record struct {
	Serial        int64  `json:"serial"`
	PayloadSHA256 string `json:"payload_sha256"`
	IssuedAt      string `json:"issued_at,omitempty"`
	RecordedAt    string `json:"recorded_at"`
}

func lkgPath(dir, fp string) string {
	return filepath.Join(dir, "requirements-lkg-"+fp[:16]+".json")
}

func loadState(dir string) (*state, error) {
	st := &state{Version: 1, Keysets: map[string]*record{}}
	data, err := os.ReadFile(filepath.Join(dir, StateFile))
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("read requirements state %s: %w", filepath.Join(dir, StateFile), err)
	}
	if err := json.Unmarshal(data, st); err != nil || st.Keysets == nil {
		st = &state{Version: 1, Keysets: map[string]*record{}}
		return st, fmt.Errorf("read requirements state %s: corrupt", filepath.Join(dir, StateFile))
	}
	return st, nil
}

// check refuses a candidate older than the high-water mark, or with the same
// serial and different content (two different policies under one serial).
func (s *state) check(fp string, c *candidate) error {
	rec, ok := s.Keysets[fp]
	if !ok {
		return nil
	}
	switch {
	case c.policy.Serial < rec.Serial:
		return fmt.Errorf("requirements: %w: serial %d is lower than serial %d already applied on this machine: deploy the current policy",
			ErrRollback, c.policy.Serial, rec.Serial)
	case c.policy.Serial == rec.Serial && c.sha != rec.PayloadSHA256:
		return fmt.Errorf("requirements: %w: serial %d was already applied on this machine with different content (payload sha256 %s…, now %s…): re-sign with a higher serial",
			ErrRollback, c.policy.Serial, rec.PayloadSHA256[:12], c.sha[:12])
	}
	return nil
}

// record raises the high-water mark and keeps the envelope as last-known-good.
func (s *state) record(dir, fp string, c *candidate) error {
	if rec, ok := s.Keysets[fp]; ok && rec.Serial == c.policy.Serial && rec.PayloadSHA256 == c.sha {
		if _, err := os.Stat(lkgPath(dir, fp)); err == nil {
			return nil // nothing new
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("record requirements state: %w", err)
	}
	if err := atomicfile.Write(lkgPath(dir, fp), c.data, 0o600); err != nil {
		return fmt.Errorf("record last-known-good requirements: %w", err)
	}
	s.Keysets[fp] = &record{Serial: c.policy.Serial, PayloadSHA256: c.sha, IssuedAt: c.policy.IssuedAt, RecordedAt: time.Now().UTC().Format(time.RFC3339)}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("record requirements state: %w", err)
	}
	if err := atomicfile.Write(filepath.Join(dir, StateFile), append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("record requirements state: %w", err)
	}
	return nil
}
