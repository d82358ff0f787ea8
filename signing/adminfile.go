package signing

import (
	"fmt"
	"io"
)

// ReadAdminFile reads a file that carries the trust anchor in another form
// (macOS managed preferences holding the trusted keys) with the same checks
// as ReadAnchorFile — no symlink, a regular file, owner and modes — and
// returns its bytes, at most max of them.
func ReadAdminFile(path string, c AnchorCheck, max int) ([]byte, error) {
	f, err := openAnchor(path, c)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, int64(max)+1))
	if err != nil {
		return nil, fmt.Errorf("signing: %w: read %s: %v", ErrAnchor, path, err)
	}
	if len(data) > max {
		return nil, fmt.Errorf("signing: %w: %s is larger than %d bytes", ErrAnchor, path, max)
	}
	return data, nil
}
