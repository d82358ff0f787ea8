package signing

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// MaxEnvelopeSize caps an envelope's size; ParseEnvelope refuses anything
// larger before parsing it and Marshal refuses to produce it.
const MaxEnvelopeSize = 1 << 20

// MaxSignatures caps the signatures in one envelope (rotation and a
// two-person rule need a handful), bounding the work Verify does.
const MaxSignatures = 32

// PAE is DSSE's pre-authentication encoding, the bytes a signature covers:
//
//	"DSSEv1" SP LEN(type) SP type SP LEN(body) SP body
//
// with lengths in ASCII decimal. Binding the type stops a signature over one
// kind of document being replayed as another.
func PAE(payloadType string, payload []byte) []byte {
	var b bytes.Buffer
	b.Grow(len("DSSEv1") + len(payloadType) + len(payload) + 44)
	b.WriteString("DSSEv1 ")
	b.WriteString(strconv.Itoa(len(payloadType)))
	b.WriteByte(' ')
	b.WriteString(payloadType)
	b.WriteByte(' ')
	b.WriteString(strconv.Itoa(len(payload)))
	b.WriteByte(' ')
	b.Write(payload)
	return b.Bytes()
}

// Envelope is a DSSE envelope. Payload and Sig hold decoded bytes and are
// standard base64 in JSON.
type Envelope struct {
	PayloadType string      `json:"payloadType"`
	Payload     []byte      `json:"payload"`
	Signatures  []Signature `json:"signatures"`
}

// Signature is one signature of an envelope. KeyID is a hint naming the
// signing key (the hex SHA-256 of its raw bytes); Verify never trusts it
// without checking Sig with the trusted key of that ID.
type Signature struct {
	KeyID string `json:"keyid"`
	Sig   []byte `json:"sig"`
}

// Sign makes an envelope over payload with one signature per distinct key
// (a key given twice signs once). At least one key is required.
func Sign(payloadType string, payload []byte, keys ...PrivateKey) (*Envelope, error) {
	if len(keys) == 0 {
		return nil, fmt.Errorf("signing: sign: no signing key given")
	}
	if err := checkContent(payloadType, payload); err != nil {
		return nil, err
	}
	e := &Envelope{PayloadType: payloadType, Payload: bytes.Clone(payload)}
	for _, k := range keys {
		if err := k.check(); err != nil {
			return nil, err
		}
		if e.hasKey(k.Public().ID()) {
			continue
		}
		e.sign(k)
	}
	if len(e.Signatures) > MaxSignatures {
		return nil, fmt.Errorf("signing: sign: %d signing keys, at most %d allowed", len(e.Signatures), MaxSignatures)
	}
	return e, nil
}

func checkContent(payloadType string, payload []byte) error {
	if payloadType == "" {
		return fmt.Errorf("signing: sign: empty payload type")
	}
	if len(payload) == 0 {
		return fmt.Errorf("signing: sign: empty payload")
	}
	return nil
}

func (e *Envelope) hasKey(id string) bool {
	return slices.ContainsFunc(e.Signatures, func(s Signature) bool { return s.KeyID == id })
}

func (e *Envelope) sign(k PrivateKey) {
	e.Signatures = append(e.Signatures, Signature{
		KeyID: k.Public().ID(),
		Sig:   ed25519.Sign(k.Key, PAE(e.PayloadType, e.Payload)),
	})
}

// AddSignature adds k's signature over the envelope's unchanged payload (a
// second signer, for a threshold or during key rotation). It refuses a key
// that already signed (ErrExists). It does not check the other signatures:
// Verify does.
func (e *Envelope) AddSignature(k PrivateKey) error {
	if e == nil {
		return fmt.Errorf("signing: add signature: no envelope")
	}
	if err := k.check(); err != nil {
		return err
	}
	if err := checkContent(e.PayloadType, e.Payload); err != nil {
		return err
	}
	if len(e.Signatures) >= MaxSignatures {
		return fmt.Errorf("signing: add signature: the envelope already has %d signatures, the most allowed", len(e.Signatures))
	}
	if id := k.Public().ID(); e.hasKey(id) {
		return fmt.Errorf("signing: add signature: a signature by key %s %w in the envelope", ShortID(id), ErrExists)
	}
	e.sign(k)
	return nil
}

// Marshal encodes the envelope as indented JSON with a trailing newline. The
// output is deterministic (ed25519 signatures are) and is exactly what
// ParseEnvelope accepts: an envelope ParseEnvelope would refuse is refused
// here too.
func (e *Envelope) Marshal() ([]byte, error) {
	if err := e.validate(); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(e); err != nil {
		return nil, fmt.Errorf("signing: encode envelope: %w", err)
	}
	if buf.Len() > MaxEnvelopeSize {
		return nil, fmt.Errorf("signing: %w: envelope would be %d bytes, more than the %d-byte limit; make the payload smaller", ErrMalformed, buf.Len(), MaxEnvelopeSize)
	}
	return buf.Bytes(), nil
}

// validate applies the structural rules ParseEnvelope enforces to a decoded
// envelope.
func (e *Envelope) validate() error {
	switch {
	case e == nil:
		return fmt.Errorf("signing: %w: no envelope", ErrMalformed)
	case e.PayloadType == "":
		return fmt.Errorf("signing: %w: empty payloadType", ErrMalformed)
	case len(e.Payload) == 0:
		return fmt.Errorf("signing: %w: empty payload", ErrMalformed)
	case len(e.Signatures) == 0:
		return fmt.Errorf("signing: %w: no signatures; sign the file with `oceanadmin sign`", ErrUnsigned)
	case len(e.Signatures) > MaxSignatures:
		return fmt.Errorf("signing: %w: %d signatures, at most %d allowed", ErrMalformed, len(e.Signatures), MaxSignatures)
	}
	for i, s := range e.Signatures {
		if !isKeyID(s.KeyID) {
			return fmt.Errorf("signing: %w: signatures[%d].keyid %q is not 64 lowercase hex digits", ErrMalformed, i, truncate(s.KeyID, 70))
		}
		if len(s.Sig) != ed25519.SignatureSize {
			return fmt.Errorf("signing: %w: signatures[%d].sig is %d bytes, want %d", ErrMalformed, i, len(s.Sig), ed25519.SignatureSize)
		}
	}
	return nil
}

func isKeyID(s string) bool {
	if len(s) != 64 {
		return false
	}
	b, err := hex.DecodeString(s)
	return err == nil && hex.EncodeToString(b) == s
}

// wireEnvelope is the JSON shape ParseEnvelope decodes; pointers tell a
// missing member (or null) from an empty one.
type wireEnvelope struct {
	PayloadType *string          `json:"payloadType"`
	Payload     *string          `json:"payload"`
	Signatures  *[]wireSignature `json:"signatures"`
}

type wireSignature struct {
	KeyID *string `json:"keyid"`
	Sig   *string `json:"sig"`
}

var envelopeMembers = map[string]bool{
	"payloadType": true, "payload": true, "signatures": true, "keyid": true, "sig": true,
}

// ParseEnvelope decodes an envelope strictly: data must be at most
// MaxEnvelopeSize bytes of UTF-8 holding one JSON object with exactly the
// members payloadType, payload (canonical standard base64) and signatures (a
// list of {"keyid": 64 lowercase hex, "sig": canonical standard base64 of 64
// bytes}); unknown members, duplicate members, members differing in case,
// trailing data, null and empty values are refused with ErrMalformed. An
// empty signature list gives ErrUnsigned. Parsing is not verification: call
// Verify and use only what it returns.
func ParseEnvelope(data []byte) (*Envelope, error) {
	if len(data) > MaxEnvelopeSize {
		return nil, fmt.Errorf("signing: %w: %d bytes, more than the %d-byte limit", ErrMalformed, len(data), MaxEnvelopeSize)
	}
	var w wireEnvelope
	if err := decodeStrict(data, envelopeMembers, &w); err != nil {
		return nil, fmt.Errorf("signing: %w: %v; re-sign the file with `oceanadmin sign`", ErrMalformed, err)
	}
	var missing []string
	if w.PayloadType == nil {
		missing = append(missing, "payloadType")
	}
	if w.Payload == nil {
		missing = append(missing, "payload")
	}
	if w.Signatures == nil {
		missing = append(missing, "signatures")
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("signing: %w: missing %s (a DSSE envelope has payloadType, payload and signatures); sign the file with `oceanadmin sign`", ErrMalformed, strings.Join(missing, ", "))
	}
	e := &Envelope{PayloadType: *w.PayloadType}
	p, err := decodeB64(*w.Payload)
	if err != nil {
		return nil, fmt.Errorf("signing: %w: payload: %v", ErrMalformed, err)
	}
	e.Payload = p
	for i, ws := range *w.Signatures {
		if ws.KeyID == nil || ws.Sig == nil {
			return nil, fmt.Errorf("signing: %w: signatures[%d] needs both keyid and sig", ErrMalformed, i)
		}
		sig, err := decodeB64(*ws.Sig)
		if err != nil {
			return nil, fmt.Errorf("signing: %w: signatures[%d].sig: %v", ErrMalformed, i, err)
		}
		e.Signatures = append(e.Signatures, Signature{KeyID: *ws.KeyID, Sig: sig})
	}
	if err := e.validate(); err != nil {
		return nil, err
	}
	return e, nil
}

// Verified is what Verify vouches for. Use its Payload, never the
// envelope's, and parse it only after Verify succeeded.
type Verified struct {
	PayloadType string
	Payload     []byte
	Signers     []string // IDs of the trusted keys whose signatures verified, sorted
}

// Verify checks e against the trusted keys and returns the payload they
// vouch for. It fails closed:
//
//   - the payloadType must equal payloadType exactly (ErrPayloadType);
//   - a signature naming a key that is not trusted is ignored, but if no
//     signature names a trusted key the envelope is refused (ErrUnknownKey);
//   - a signature naming a trusted key must verify under that key, else the
//     whole envelope is refused (ErrBadSignature): tampering is never skipped;
//   - at least threshold distinct trusted keys must have signed (a key signing
//     twice counts once); threshold < 1 means 1 (ErrThreshold).
//
// Key IDs are recomputed from the trusted keys; the keyid field only selects
// which trusted key a signature is checked with.
func Verify(e *Envelope, payloadType string, trusted []PublicKey, threshold int) (*Verified, error) {
	if e == nil {
		return nil, fmt.Errorf("signing: %w: no envelope", ErrMalformed)
	}
	if threshold < 1 {
		threshold = 1
	}
	if payloadType == "" {
		return nil, fmt.Errorf("signing: %w: no expected payload type given", ErrPayloadType)
	}
	if e.PayloadType != payloadType {
		return nil, fmt.Errorf("signing: %w: the envelope's payloadType is %q, want %q; this file is not the kind of signed document expected here", ErrPayloadType, truncate(e.PayloadType, 100), payloadType)
	}
	if len(e.Signatures) == 0 {
		return nil, fmt.Errorf("signing: %w: no signatures; sign the file with `oceanadmin sign`", ErrUnsigned)
	}
	if len(e.Signatures) > MaxSignatures {
		return nil, fmt.Errorf("signing: %w: %d signatures, at most %d allowed", ErrMalformed, len(e.Signatures), MaxSignatures)
	}
	if len(trusted) == 0 {
		return nil, fmt.Errorf("signing: %w: no trusted keys configured", ErrUnknownKey)
	}
	byID := make(map[string]ed25519.PublicKey, len(trusted))
	var trustedIDs []string
	for i, k := range trusted {
		if len(k.Key) != ed25519.PublicKeySize {
			return nil, fmt.Errorf("signing: %w: trusted key %d (%q) is %d bytes, want %d", ErrInvalidKey, i+1, truncate(k.Comment, 60), len(k.Key), ed25519.PublicKeySize)
		}
		id := k.ID()
		if _, dup := byID[id]; !dup {
			byID[id] = k.Key
			trustedIDs = append(trustedIDs, id)
		}
	}
	msg := PAE(e.PayloadType, e.Payload)
	valid := map[string]bool{}
	var seen []string
	for i, s := range e.Signatures {
		key, ok := byID[s.KeyID]
		if !ok {
			seen = append(seen, s.KeyID)
			continue
		}
		if len(s.Sig) != ed25519.SignatureSize || !ed25519.Verify(key, msg, s.Sig) {
			return nil, fmt.Errorf("signing: %w: signature %d by trusted key %s does not verify: the file was changed after signing or the signature is corrupt; re-sign the file with `oceanadmin sign`", ErrBadSignature, i+1, ShortID(s.KeyID))
		}
		valid[s.KeyID] = true
	}
	if len(valid) == 0 {
		return nil, fmt.Errorf("signing: %w: signed by key ID(s) %s, but the trusted key IDs are %s; sign with a trusted key or add the signer's public key to the trusted keys", ErrUnknownKey, listIDs(seen), listIDs(trustedIDs))
	}
	signers := make([]string, 0, len(valid))
	for id := range valid {
		signers = append(signers, id)
	}
	slices.Sort(signers)
	if len(signers) < threshold {
		return nil, fmt.Errorf("signing: %w: %d of %d required signatures from distinct trusted keys (valid: %s); add a signature with another trusted key (`oceanadmin sign -k a.key -k b.key`)", ErrThreshold, len(signers), threshold, listIDs(signers))
	}
	return &Verified{PayloadType: e.PayloadType, Payload: bytes.Clone(e.Payload), Signers: signers}, nil
}

// listIDs renders key IDs (shortened) for a message; untrusted input is quoted.
func listIDs(ids []string) string {
	out := make([]string, 0, len(ids))
	for _, id := range slices.Compact(slices.Sorted(slices.Values(ids))) {
		if isKeyID(id) {
			out = append(out, ShortID(id))
		} else {
			out = append(out, strconv.Quote(truncate(id, 70)))
		}
	}
	return strings.Join(out, ", ")
}
