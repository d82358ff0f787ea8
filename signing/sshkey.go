package signing

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

// sshEd25519 is the OpenSSH name of the ed25519 key type.
const sshEd25519 = "ssh-ed25519"

// authorizedKey is the public key on one OpenSSH authorized_keys line.
type authorizedKey struct {
	typ     string // the key type, the same on the line and in the key blob
	key     []byte // the 32 key bytes; set only when typ is ssh-ed25519
	comment string
	options []string
}

// parseAuthorizedKey reads one line (without its newline) in the format of
// sshd(8)'s authorized_keys, "[options] type base64-blob [comment]", the way
// golang.org/x/crypto/ssh's ParseAuthorizedKey reads a line, without linking
// that package (its init alone costs every process ~0.2 ms). The tests hold
// the two to each other: both accept an ssh-ed25519 key on exactly the same
// lines, with the same key, comment and options.
//
// The blob is RFC 4253 section 6.6: string("ssh-ed25519") string(32 key
// bytes), each string a big-endian uint32 length and the bytes. Only
// ssh-ed25519 blobs are decoded in full; of another type only the name is
// read, so the result has typ set and key nil (to name the type in an error:
// such a key is refused whether or not its blob is well formed).
func parseAuthorizedKey(line string) (authorizedKey, error) {
	in := strings.Trim(strings.TrimSuffix(line, "\r"), " \t")
	if in == "" || in[0] == '#' {
		return authorizedKey{}, errors.New("no key on the line")
	}
	i := strings.IndexAny(in, " \t")
	if i < 0 {
		return authorizedKey{}, fmt.Errorf("no base64 key after %s", in)
	}
	// The first field is the key type, as in "ssh-ed25519 AAAA… comment".
	first, firstErr := parseKeyFields(in[:i], in[i:])
	if firstErr == nil && first.typ == sshEd25519 {
		return first, nil
	}
	// Perhaps an options field comes first: the type is the next field.
	// Options are separated by commas and end at a space or tab outside
	// double quotes; a quote preceded by a backslash does not count.
	var options []string
	inQuote := false
	start, j := 0, 0
	for ; j < len(in); j++ {
		b := in[j]
		end := !inQuote && (b == ' ' || b == '\t')
		if (b == ',' && !inQuote) || end {
			if j > start {
				options = append(options, in[start:j])
			}
			start = j + 1
		}
		if end {
			break
		}
		if b == '"' && (j == 0 || in[j-1] != '\\') {
			inQuote = !inQuote
		}
	}
	for j < len(in) && (in[j] == ' ' || in[j] == '\t') {
		j++
	}
	var afterErr error
	if rest := in[j:]; strings.ContainsAny(rest, " \t") {
		k := strings.IndexAny(rest, " \t")
		key, err := parseKeyFields(rest[:k], rest[k:])
		if err == nil && (key.typ == sshEd25519 || firstErr != nil) {
			key.options = options
			return key, nil
		}
		afterErr = err
	}
	switch {
	case firstErr == nil:
		return first, nil // a key of another type, named first on the line
	case afterErr != nil && !isSSHKeyType(in[:i]):
		return authorizedKey{}, afterErr // the first field was not a key type: options, probably
	}
	return authorizedKey{}, firstErr
}

// parseKeyFields parses the fields after the key type typ: the base64 blob
// and an optional comment.
func parseKeyFields(typ, s string) (authorizedKey, error) {
	s = strings.Trim(s, " \t")
	i := strings.IndexAny(s, " \t")
	if i < 0 {
		i = len(s)
	}
	// Standard base64 with padding; like the ssh package (and sshd), the
	// decoder skips CR and LF inside the text.
	blob, err := base64.StdEncoding.DecodeString(s[:i])
	if err != nil {
		return authorizedKey{}, errors.New("the key is not valid base64")
	}
	blobType, key, err := parseKeyBlob(blob)
	if err != nil {
		return authorizedKey{}, err
	}
	if blobType != typ {
		return authorizedKey{}, fmt.Errorf("the line names key type %q but the key is %q", typ, blobType)
	}
	return authorizedKey{typ: typ, key: key, comment: strings.Trim(s[i:], " \t")}, nil
}

// parseKeyBlob decodes an RFC 4253 public key blob: the key type and, for
// ssh-ed25519, the key. A blob of another type that OpenSSH names (see
// isSSHKeyType) is returned with a nil key and no error; anything else is
// an error.
func parseKeyBlob(blob []byte) (string, []byte, error) {
	name, body, ok := sshString(blob)
	if !ok {
		return "", nil, errors.New("the key data is truncated")
	}
	if string(name) != sshEd25519 {
		if !isSSHKeyType(string(name)) {
			return "", nil, fmt.Errorf("the key data has unknown key type %q", name)
		}
		return string(name), nil, nil
	}
	key, rest, ok := sshString(body)
	switch {
	case !ok:
		return "", nil, errors.New("the key data is truncated")
	case len(key) != 32:
		return "", nil, fmt.Errorf("the ed25519 key is %d bytes, want 32", len(key))
	case len(rest) != 0:
		return "", nil, fmt.Errorf("%d bytes of unexpected data after the ed25519 key", len(rest))
	}
	return sshEd25519, append([]byte(nil), key...), nil
}

// sshString splits an RFC 4251 string (uint32 length, then the bytes) off b.
func sshString(b []byte) (s, rest []byte, ok bool) {
	if len(b) < 4 {
		return nil, nil, false
	}
	n := binary.BigEndian.Uint32(b)
	if uint64(n) > uint64(len(b)-4) {
		return nil, nil, false
	}
	return b[4 : 4+n], b[4+n:], true
}
