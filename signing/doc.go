// Package signing holds OceanCode's ed25519 keys and the DSSE envelopes that
// carry signed documents such as requirements.json.
//
// # What is signed
//
// A document is signed as a DSSE envelope: the payload bytes travel as
// base64, and each signature covers PAE(payloadType, payload), an encoding
// that binds the exact payload bytes to their declared type. Nothing is
// canonicalised before verifying, and the payload is never parsed until a
// signature over it has been checked: callers take Verified.Payload from
// Verify and parse only that. The payload type separates domains, so a
// signature over one kind of document cannot be replayed as another.
//
// A key is identified by its key ID, the hex SHA-256 of its 32 raw bytes. The
// keyid in an envelope is only a hint choosing which trusted key to check a
// signature with; Verify recomputes IDs from the trusted keys and checks every
// signature that names one. A signature that names a trusted key but does not
// verify refuses the whole envelope, so tampering is never skipped over, while
// signatures by keys nobody trusts are ignored (they count for nothing). A
// threshold asks for valid signatures from that many distinct trusted keys,
// which gives a two-person rule and lets an envelope signed by an old and a
// new key verify on machines that trust either during a rotation.
//
// # What a signature protects against
//
// A verified envelope proves that holders of enough trusted private keys
// signed these exact payload bytes with this payload type. It stops a user or
// a process running as the user from loosening the policy by editing the
// file, from forging a policy, and from passing off some other signed
// document as one; it stops tampering between the signer and the machine
// (an MDM pipeline, a file share). With a threshold above one, a single
// stolen key is not enough.
//
// It does not say the payload is current: an old, validly signed policy
// still verifies, so freshness (serial numbers, expiry, anti-rollback state)
// is the caller's job, in package requirements. It does not protect against
// anyone who can change the set of trusted keys: trust is only as good as
// the anchor. The admin anchor is therefore read with ReadAnchorFile, which
// refuses a file or directory a non-administrator could have written, and
// the keys from $OC_REQUIREMENTS_PUBKEY may only narrow it. It does not
// protect against local root, who can replace the binary, nor against a
// stolen key below the threshold being used until it is removed from the
// trusted keys.
//
// # Keys
//
// Public keys are read as "ed25519:<base64>", as OpenSSH ssh-ed25519 lines or
// as minisign public keys (ParsePublicKey, ParsePublicKeys). Private keys are
// stored in a versioned JSON file, sealed with nacl/secretbox under a
// scrypt-derived key unless the user asked for an unencrypted key
// (MarshalPrivateKey, WriteKeyPair). docs/keys.md describes the formats.
//
// Errors read "signing: <sentinel>: <detail>" and wrap one of the Err
// sentinels, so callers branch with errors.Is.
package signing
