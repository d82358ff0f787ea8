package signing

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// keyPrefix starts the package's own public-key notation.
const keyPrefix = "ed25519:"

// minisignComment starts the first line of a minisign (or signify) public-key file.
const minisignComment = "untrusted comment:"

// maxCommentLen bounds the comment GenerateKey and the key writers accept.
const maxCommentLen = 256

// PublicKey is an ed25519 public key with a free-text label. The comment is
// never part of trust decisions; only Key is.
type PublicKey struct {
	Key     ed25519.PublicKey
	Comment string
}

// ID is the key ID: the lowercase hex SHA-256 of the 32 raw key bytes. It is
// what envelopes carry in "keyid" and what messages and trust files name.
func (k PublicKey) ID() string {
	sum := sha256.Sum256(k.Key)
	return hex.EncodeToString(sum[:])
}

// ShortID is the first 16 hex digits of ID, for messages.
func (k PublicKey) ShortID() string { return ShortID(k.ID()) }

// String is the key in the package's notation: "ed25519:<std base64 of 32 bytes>".
func (k PublicKey) String() string {
	return keyPrefix + base64.StdEncoding.EncodeToString(k.Key)
}

// Line is String followed by a space and the comment, if there is one: the
// line WriteKeyPair writes to a .pub file. ParsePublicKey reads it back.
func (k PublicKey) Line() string {
	c := sanitizeComment(k.Comment)
	if c == "" {
		return k.String()
	}
	return k.String() + " " + c
}

// Equal reports whether k and o are the same key (comments are ignored).
func (k PublicKey) Equal(o PublicKey) bool { return bytes.Equal(k.Key, o.Key) }

func (k PublicKey) check() error {
	if len(k.Key) != ed25519.PublicKeySize {
		return fmt.Errorf("signing: %w: public key is %d bytes, want %d", ErrInvalidKey, len(k.Key), ed25519.PublicKeySize)
	}
	return nil
}

// ShortID is the first 16 hex digits of a key ID, as messages show it.
func ShortID(id string) string {
	if len(id) > 16 {
		return id[:16]
	}
	return id
}

// ParsePublicKey parses one public key in any accepted notation:
//
//   - "ed25519:<std base64 of the 32 key bytes>", optionally followed by
//     whitespace and a comment (the .pub line WriteKeyPair writes);
//   - an OpenSSH authorized_keys line "ssh-ed25519 AAAA… comment" (other
//     SSH key types, certificates, security keys and option prefixes are
//     refused);
//   - a minisign or signify public key: the bare "RW…" string, base64 of
//     "Ed" || keynum[8] || key[32], or the two-line file whose first line is
//     "untrusted comment: …". The minisign key number is ignored: the key ID
//     is always computed from the key bytes.
func ParsePublicKey(s string) (PublicKey, error) {
	k, err := parsePublicKey(s)
	if err != nil {
		return PublicKey{}, fmt.Errorf("signing: %w: %v", ErrInvalidKey, err)
	}
	return k, nil
}

func parsePublicKey(s string) (PublicKey, error) {
	s = strings.TrimPrefix(s, "\ufeff")
	var lines []string
	for l := range strings.Lines(s) {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	switch {
	case len(lines) == 0:
		return PublicKey{}, errors.New("empty public key")
	case len(lines) == 2 && strings.HasPrefix(lines[0], minisignComment):
		k, err := parseMinisign(lines[1])
		if err != nil {
			return PublicKey{}, err
		}
		if c := strings.TrimSpace(strings.TrimPrefix(lines[0], minisignComment)); c != "" {
			k.Comment = c
		}
		return k, nil
	case len(lines) > 1:
		return PublicKey{}, fmt.Errorf("%d lines where one public key was expected; use ParsePublicKeys for a key list", len(lines))
	}
	return parseKeyLine(lines[0])
}

// parseKeyLine parses a single trimmed, non-empty line.
func parseKeyLine(line string) (PublicKey, error) {
	if strings.HasPrefix(line, minisignComment) {
		return PublicKey{}, errors.New("minisign comment line without the key line that follows it")
	}
	first, rest, _ := strings.Cut(line, " ")
	if i := strings.IndexAny(first, "\t"); i >= 0 {
		first, rest = line[:i], line[i+1:]
	}
	rest = strings.TrimSpace(rest)
	switch {
	case strings.HasPrefix(first, keyPrefix):
		return parseNative(first, rest)
	case len(first) >= len(keyPrefix) && strings.EqualFold(first[:len(keyPrefix)], keyPrefix):
		return PublicKey{}, fmt.Errorf("key prefix %q must be written %q", first[:len(keyPrefix)], keyPrefix)
	case isSSHKeyType(first):
		return parseSSH(line, first)
	}
	if rest != "" {
		// Perhaps an authorized_keys line with options before the key type.
		if k, err := parseAuthorizedKey(line); err == nil {
			return sshPublicKey(k)
		}
	}
	k, err := parseMinisign(first)
	if err == nil && rest != "" {
		k.Comment = rest
	}
	return k, err
}

func parseNative(tok, comment string) (PublicKey, error) {
	b64 := strings.TrimPrefix(tok, keyPrefix)
	raw, err := decodeB64(b64)
	if err != nil {
		return PublicKey{}, fmt.Errorf("ed25519 key: %v", err)
	}
	if len(raw) != ed25519.PublicKeySize {
		return PublicKey{}, fmt.Errorf("ed25519 key is %d bytes, want %d", len(raw), ed25519.PublicKeySize)
	}
	return PublicKey{Key: ed25519.PublicKey(raw), Comment: comment}, nil
}

// isSSHKeyType reports whether tok names an OpenSSH public key type.
func isSSHKeyType(tok string) bool {
	return strings.HasPrefix(tok, "ssh-") || strings.HasPrefix(tok, "ecdsa-sha2-") ||
		strings.HasPrefix(tok, "sk-") || strings.HasSuffix(tok, "@openssh.com")
}

// parseSSH parses an authorized_keys line whose first field, typ, names an
// OpenSSH key type.
func parseSSH(line, typ string) (PublicKey, error) {
	if typ != sshEd25519 {
		return PublicKey{}, errSSHKeyType(typ)
	}
	k, err := parseAuthorizedKey(line)
	if err != nil {
		return PublicKey{}, fmt.Errorf("ssh public key: %v", err)
	}
	return sshPublicKey(k)
}

// sshPublicKey accepts an authorized_keys key if it is an ssh-ed25519 key
// without options.
func sshPublicKey(k authorizedKey) (PublicKey, error) {
	if k.typ != sshEd25519 {
		return PublicKey{}, errSSHKeyType(k.typ)
	}
	if len(k.options) != 0 {
		return PublicKey{}, fmt.Errorf("ssh public key: authorized_keys options (%s) are not supported; remove them", strings.Join(k.options, ","))
	}
	return PublicKey{Key: ed25519.PublicKey(k.key), Comment: k.comment}, nil
}

func errSSHKeyType(typ string) error {
	return fmt.Errorf("ssh key type %s is not supported: use an ed25519 key (ssh-keygen -t ed25519)", typ)
}

// parseMinisign parses base64("Ed" || keynum[8] || key[32]).
func parseMinisign(tok string) (PublicKey, error) {
	raw, err := decodeB64(tok)
	if err != nil {
		return PublicKey{}, fmt.Errorf("unrecognised public key %q (not ed25519:<base64>, an ssh-ed25519 line, or a minisign key: %v)", truncate(tok, 40), err)
	}
	switch {
	case len(raw) == ed25519.PublicKeySize:
		return PublicKey{}, fmt.Errorf("bare base64 key: write it as ed25519:%s", tok)
	case len(raw) != 42:
		return PublicKey{}, fmt.Errorf("minisign public key is %d bytes, want 42", len(raw))
	case string(raw[:2]) != "Ed":
		return PublicKey{}, fmt.Errorf("minisign key algorithm is %q, want \"Ed\"", raw[:2])
	}
	keynum := binary.LittleEndian.Uint64(raw[2:10])
	return PublicKey{
		Key:     append(ed25519.PublicKey(nil), raw[10:]...),
		Comment: fmt.Sprintf("minisign key %016X", keynum),
	}, nil
}

// decodeB64 decodes canonical standard base64 (padding required, no line
// breaks, zero trailing bits): exactly what EncodeToString writes.
func decodeB64(s string) ([]byte, error) {
	b, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil {
		return nil, errors.New("invalid base64")
	}
	if base64.StdEncoding.EncodeToString(b) != s {
		return nil, errors.New("non-canonical base64")
	}
	return b, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// ParsePublicKeys parses a key-list file: one key per line in any notation
// ParsePublicKey accepts. Blank lines and lines starting with '#' are
// ignored; a minisign "untrusted comment:" line is skipped (its text becomes
// the comment of a minisign key on the next line). Keys with the same ID are
// collapsed to the first. Errors name the line ("line 3: …"). A list with no
// key is an error.
func ParsePublicKeys(data []byte) ([]PublicKey, error) {
	// A private key file given where public keys belong: say so, never
	// echo its content.
	if _, err := readKeyFile(data); err == nil {
		return nil, fmt.Errorf("signing: %w: this is a private key file, not a public key: give the public key (oceanadmin keygen wrote it beside the private key, with .key replaced by .pub), and keep the private key off the machines that verify", ErrInvalidKey)
	}
	keys, err := parsePublicKeys(data)
	if err != nil {
		return nil, fmt.Errorf("signing: %w: %v", ErrInvalidKey, err)
	}
	return keys, nil
}

func parsePublicKeys(data []byte) ([]PublicKey, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	var (
		keys    []PublicKey
		seen    = map[string]bool{}
		pending string // text of a preceding "untrusted comment:" line
		n       int
	)
	for l := range strings.Lines(string(data)) {
		n++
		line := strings.TrimSpace(l)
		switch {
		case line == "", strings.HasPrefix(line, "#"):
			pending = ""
			continue
		case strings.HasPrefix(line, minisignComment):
			pending = strings.TrimSpace(strings.TrimPrefix(line, minisignComment))
			continue
		}
		k, err := parseKeyLine(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", n, err)
		}
		if pending != "" && strings.HasPrefix(k.Comment, "minisign key ") {
			k.Comment = pending
		}
		pending = ""
		if id := k.ID(); !seen[id] {
			seen[id] = true
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil, errors.New("no public key in the key list")
	}
	return keys, nil
}

// PrivateKey is an ed25519 private key with a free-text label.
type PrivateKey struct {
	Key     ed25519.PrivateKey
	Comment string
}

// GenerateKey makes a new key from crypto/rand. The comment is a label kept
// in the key files; it must be one line of printable text (at most 256 bytes).
func GenerateKey(comment string) (PrivateKey, error) {
	if err := checkComment(comment); err != nil {
		return PrivateKey{}, err
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return PrivateKey{}, fmt.Errorf("signing: generate key: %w", err)
	}
	return PrivateKey{Key: priv, Comment: comment}, nil
}

// Public returns the public half, with the same comment.
func (k PrivateKey) Public() PublicKey {
	if len(k.Key) != ed25519.PrivateKeySize {
		return PublicKey{Comment: k.Comment}
	}
	return PublicKey{Key: append(ed25519.PublicKey(nil), k.Key[32:]...), Comment: k.Comment}
}

// check verifies the length and that the stored public half matches the
// seed, so a signature made with k verifies under k.Public().
func (k PrivateKey) check() error {
	if len(k.Key) != ed25519.PrivateKeySize {
		return fmt.Errorf("signing: %w: private key is %d bytes, want %d", ErrInvalidKey, len(k.Key), ed25519.PrivateKeySize)
	}
	derived := ed25519.NewKeyFromSeed(k.Key.Seed())
	if !bytes.Equal(derived[32:], k.Key[32:]) {
		return fmt.Errorf("signing: %w: private key's public half does not match its seed", ErrInvalidKey)
	}
	return nil
}

func checkComment(c string) error {
	if len(c) > maxCommentLen {
		return fmt.Errorf("signing: %w: comment is %d bytes, at most %d allowed", ErrInvalidKey, len(c), maxCommentLen)
	}
	if !utf8.ValidString(c) {
		return fmt.Errorf("signing: %w: comment is not valid UTF-8", ErrInvalidKey)
	}
	for _, r := range c {
		if r < 0x20 || r == 0x7f {
			return fmt.Errorf("signing: %w: comment contains a control character; use one line of printable text", ErrInvalidKey)
		}
	}
	return nil
}

// sanitizeComment makes a comment safe for one line: control characters
// become spaces and the result is trimmed.
func sanitizeComment(c string) string {
	c = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(c, "\uFFFD"))
	return strings.TrimSpace(c)
}
