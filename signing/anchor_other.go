//go:build !unix

package signing

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// openAnchor on systems without Unix ownership refuses symlinks and
// non-regular files only; ACLs are the platform's job (spec: ProgramData or
// the registry under HKLM).
func openAnchor(path string, c AnchorCheck) (*os.File, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("signing: read trust anchor: %w", err)
		}
		return nil, fmt.Errorf("signing: %w: stat %s: %v", ErrAnchor, path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, anchorNotRegular(path, fi)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("signing: %w: open %s: %v", ErrAnchor, path, err)
	}
	if fi2, err := f.Stat(); err != nil || !os.SameFile(fi, fi2) {
		f.Close()
		return nil, fmt.Errorf("signing: %w: %s changed while it was being opened; try again", ErrAnchor, path)
	}
	return f, nil
}
