package signing

import "errors"

// Sentinel errors. Every error this package returns reads
// "signing: <sentinel>: <detail>", so callers branch with errors.Is and
// show the message as it is.
var (
	// ErrMalformed: an envelope that is not exactly the DSSE JSON this
	// package writes (syntax, unknown or duplicate fields, bad base64, size).
	ErrMalformed = errors.New("malformed envelope")
	// ErrUnsigned: a well-formed envelope with no signatures.
	ErrUnsigned = errors.New("unsigned envelope")
	// ErrUnknownKey: no signature comes from a trusted key.
	ErrUnknownKey = errors.New("unknown key")
	// ErrBadSignature: a signature claiming a trusted key does not verify.
	ErrBadSignature = errors.New("bad signature")
	// ErrThreshold: fewer valid signatures from distinct trusted keys than
	// required.
	ErrThreshold = errors.New("not enough signatures")
	// ErrPayloadType: the envelope's payloadType is not the one expected.
	ErrPayloadType = errors.New("wrong payload type")
	// ErrWrongPassphrase: an encrypted private key did not decrypt (wrong
	// passphrase, or a corrupted or tampered key file: the two cannot be told
	// apart).
	ErrWrongPassphrase = errors.New("wrong passphrase")
	// ErrExists: a key file that would be overwritten, or a key that already
	// signed an envelope.
	ErrExists = errors.New("already exists")
	// ErrAnchor: the admin trust-anchor file is unsafe (owner, mode, symlink)
	// or unreadable as a key list. Absence is not ErrAnchor: it is reported
	// with fs.ErrNotExist.
	ErrAnchor = errors.New("trust anchor refused")
	// ErrInvalidKey: a public or private key (or key file) that cannot be
	// parsed or is inconsistent.
	ErrInvalidKey = errors.New("invalid key")
)
