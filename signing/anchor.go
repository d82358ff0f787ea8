package signing

import (
	"fmt"
	"io"
	"os"
)

// maxAnchorSize caps the trust-anchor file.
const maxAnchorSize = 1 << 20

// AnchorCheck says who must own the admin trust anchor.
type AnchorCheck struct {
	// WantUID is the owner required of the anchor file and its directory: 0
	// (root) in production; tests set their own uid.
	WantUID int
}

// ReadAnchorFile reads the admin trust anchor (the managed dir's
// trusted_keys) and parses it with ParsePublicKeys, after checking that only
// the administrator can have written it. On Unix:
//
//   - path must not be a symlink (a link is refused, not followed: its target
//     could be a file the user controls) and must be a regular file;
//   - the file must be owned by c.WantUID and not group- or world-writable;
//   - its directory must be owned by c.WantUID and not group- or
//     world-writable;
//   - every directory above that (after resolving symlinks) must be owned by
//     c.WantUID or root and not group- or world-writable unless sticky (like
//     /tmp), so nobody else can rename the directory away and put another in
//     its place.
//
// The file is opened without following symlinks and checked through the open
// descriptor, so it cannot be swapped between check and read. A missing file
// gives an error matching fs.ErrNotExist (no admin anchor); every other
// failure wraps ErrAnchor, names the path, the owner and mode found, and the
// command that fixes it. On other systems only the symlink and regular-file
// checks apply.
func ReadAnchorFile(path string, c AnchorCheck) ([]PublicKey, error) {
	f, err := openAnchor(path, c)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxAnchorSize+1))
	if err != nil {
		return nil, fmt.Errorf("signing: %w: read %s: %v", ErrAnchor, path, err)
	}
	if len(data) > maxAnchorSize {
		return nil, fmt.Errorf("signing: %w: %s is larger than %d bytes; it should hold a few public keys", ErrAnchor, path, maxAnchorSize)
	}
	keys, err := parsePublicKeys(data)
	if err != nil {
		return nil, fmt.Errorf("signing: %w: %s: %v; list one public key per line (ed25519:<base64>, ssh-ed25519 or minisign)", ErrAnchor, path, err)
	}
	return keys, nil
}

func anchorNotRegular(path string, fi os.FileInfo) error {
	if fi.Mode()&os.ModeSymlink != 0 {
		return fmt.Errorf("signing: %w: %s is a symlink; trust anchors are not followed through links: replace it with the file itself (cp --remove-destination \"$(readlink -f %s)\" %s)", ErrAnchor, path, path, path)
	}
	return fmt.Errorf("signing: %w: %s is not a regular file (mode %s)", ErrAnchor, path, fi.Mode())
}
