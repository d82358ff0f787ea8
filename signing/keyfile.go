package signing

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/crypto/nacl/secretbox"
	"golang.org/x/crypto/scrypt"

	"github.com/oceancode/oceancode/internal/atomicfile"
)

// Private key file format (docs/keys.md): versioned JSON text.
const (
	keyFileVersion = 1
	keyFileType    = "oceancode-ed25519-private-key"
	kdfScrypt      = "scrypt"
	cipherSecbox   = "nacl-secretbox"

	// Parameters MarshalPrivateKey writes: N=2^17, r=8, p=1 (128 MiB, a few
	// hundred milliseconds), about what age uses.
	scryptLogN = 17
	scryptR    = 8
	scryptP    = 1
	saltSize   = 32

	// Bounds ParsePrivateKey accepts, so a crafted key file cannot make
	// scrypt use gigabytes or minutes, nor weaken the KDF below 2^15.
	minScryptN = 1 << 15
	maxScryptN = 1 << 20
)

type keyFile struct {
	Version int     `json:"version"`
	Type    string  `json:"type"`
	Comment string  `json:"comment"`
	Public  string  `json:"public"`
	Seed    string  `json:"seed,omitempty"`
	KDF     *kdfDoc `json:"kdf,omitempty"`
	Cipher  string  `json:"cipher,omitempty"`
	Nonce   string  `json:"nonce,omitempty"`
	Box     string  `json:"box,omitempty"`
}

type kdfDoc struct {
	Name string `json:"name"`
	Salt string `json:"salt"`
	N    int    `json:"n"`
	R    int    `json:"r"`
	P    int    `json:"p"`
}

var keyFileMembers = map[string]bool{
	"version": true, "type": true, "comment": true, "public": true, "seed": true,
	"kdf": true, "cipher": true, "nonce": true, "box": true,
	"name": true, "salt": true, "n": true, "r": true, "p": true,
}

// maxKeyFileSize caps a private key file before parsing.
const maxKeyFileSize = 64 << 10

// MarshalPrivateKey encodes k as a private key file. With a non-empty
// passphrase the 32-byte seed is sealed with nacl/secretbox under a key
// derived by scrypt (N=2^17, r=8, p=1, random 32-byte salt, random 24-byte
// nonce). With an empty passphrase the seed is stored in the clear: only do
// that when the user asked for an unencrypted key.
func MarshalPrivateKey(k PrivateKey, passphrase []byte) ([]byte, error) {
	return marshalPrivateKey(k, passphrase, 1<<scryptLogN)
}

// marshalPrivateKey is MarshalPrivateKey with the scrypt work factor n
// (tests use minScryptN to keep fast).
func marshalPrivateKey(k PrivateKey, passphrase []byte, n int) ([]byte, error) {
	if err := k.check(); err != nil {
		return nil, err
	}
	if err := checkComment(k.Comment); err != nil {
		return nil, err
	}
	kf := keyFile{
		Version: keyFileVersion,
		Type:    keyFileType,
		Comment: k.Comment,
		Public:  k.Public().String(),
	}
	seed := k.Key.Seed()
	if len(passphrase) == 0 {
		kf.Seed = base64.StdEncoding.EncodeToString(seed)
	} else {
		salt := make([]byte, saltSize)
		var nonce [24]byte
		if _, err := rand.Read(salt); err != nil {
			return nil, fmt.Errorf("signing: read random salt: %w", err)
		}
		if _, err := rand.Read(nonce[:]); err != nil {
			return nil, fmt.Errorf("signing: read random nonce: %w", err)
		}
		key, err := deriveKey(passphrase, salt, n, scryptR, scryptP)
		if err != nil {
			return nil, err
		}
		box := secretbox.Seal(nil, seed, &nonce, key)
		clear(key[:])
		kf.KDF = &kdfDoc{Name: kdfScrypt, Salt: base64.StdEncoding.EncodeToString(salt), N: n, R: scryptR, P: scryptP}
		kf.Cipher = cipherSecbox
		kf.Nonce = base64.StdEncoding.EncodeToString(nonce[:])
		kf.Box = base64.StdEncoding.EncodeToString(box)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(kf); err != nil {
		return nil, fmt.Errorf("signing: encode private key: %w", err)
	}
	return buf.Bytes(), nil
}

func deriveKey(passphrase, salt []byte, n, r, p int) (*[32]byte, error) {
	b, err := scrypt.Key(passphrase, salt, n, r, p, 32)
	if err != nil {
		return nil, fmt.Errorf("signing: derive key with scrypt: %w", err)
	}
	var key [32]byte
	copy(key[:], b)
	clear(b)
	return &key, nil
}

// IsEncrypted reports whether data looks like an encrypted private key file
// (it has a "kdf" section). It does not validate the file.
func IsEncrypted(data []byte) bool {
	var probe struct {
		Type string          `json:"type"`
		KDF  json.RawMessage `json:"kdf"`
	}
	if json.Unmarshal(data, &probe) != nil {
		return false
	}
	return probe.Type == keyFileType && len(probe.KDF) > 0 && string(probe.KDF) != "null"
}

func readKeyFile(data []byte) (*keyFile, error) {
	if len(data) > maxKeyFileSize {
		return nil, fmt.Errorf("signing: %w: private key file is %d bytes, more than %d", ErrInvalidKey, len(data), maxKeyFileSize)
	}
	var kf keyFile
	if err := decodeStrict(data, keyFileMembers, &kf); err != nil {
		return nil, fmt.Errorf("signing: %w: private key file: %v", ErrInvalidKey, err)
	}
	if kf.Type != keyFileType {
		if kf.Type == "" {
			return nil, fmt.Errorf("signing: %w: not an oceancode private key file (no \"type\")", ErrInvalidKey)
		}
		return nil, fmt.Errorf("signing: %w: private key file type is %q, want %q", ErrInvalidKey, kf.Type, keyFileType)
	}
	if kf.Version != keyFileVersion {
		return nil, fmt.Errorf("signing: %w: private key file version %d is not supported (this build reads version %d); upgrade oceanadmin", ErrInvalidKey, kf.Version, keyFileVersion)
	}
	return &kf, nil
}

// PrivateKeyFilePublic returns the public key recorded in a private key file
// without decrypting it (for `oceanadmin fingerprint`). For an encrypted file
// this key is not authenticated until ParsePrivateKey decrypts the seed and
// checks it matches.
func PrivateKeyFilePublic(data []byte) (PublicKey, error) {
	kf, err := readKeyFile(data)
	if err != nil {
		return PublicKey{}, err
	}
	return kf.public()
}

func (kf *keyFile) public() (PublicKey, error) {
	if !strings.HasPrefix(kf.Public, keyPrefix) || strings.ContainsAny(kf.Public, " \t\r\n") {
		return PublicKey{}, fmt.Errorf("signing: %w: private key file: \"public\" must be ed25519:<base64>", ErrInvalidKey)
	}
	pub, err := parseNative(kf.Public, kf.Comment)
	if err != nil {
		return PublicKey{}, fmt.Errorf("signing: %w: private key file: \"public\" is not a valid ed25519 public key", ErrInvalidKey)
	}
	return pub, nil
}

// ParsePrivateKey decodes a private key file written by MarshalPrivateKey.
// passphrase is called only when the file is encrypted; a wrong passphrase
// (or a tampered salt, nonce or box) gives ErrWrongPassphrase. The seed must
// produce the public key the file records.
func ParsePrivateKey(data []byte, passphrase func() ([]byte, error)) (PrivateKey, error) {
	kf, err := readKeyFile(data)
	if err != nil {
		return PrivateKey{}, err
	}
	pub, err := kf.public()
	if err != nil {
		return PrivateKey{}, err
	}
	var seed []byte
	switch {
	case kf.Seed != "" && kf.KDF == nil && kf.Cipher == "" && kf.Nonce == "" && kf.Box == "":
		if seed, err = decodeB64(kf.Seed); err != nil {
			return PrivateKey{}, fmt.Errorf("signing: %w: private key file: seed: %v", ErrInvalidKey, err)
		}
	case kf.Seed == "" && kf.KDF != nil:
		if seed, err = openBox(kf, passphrase); err != nil {
			return PrivateKey{}, err
		}
	default:
		return PrivateKey{}, fmt.Errorf("signing: %w: private key file must hold either \"seed\" or \"kdf\", \"cipher\", \"nonce\" and \"box\"", ErrInvalidKey)
	}
	defer clear(seed)
	if len(seed) != ed25519.SeedSize {
		return PrivateKey{}, fmt.Errorf("signing: %w: private key seed is %d bytes, want %d", ErrInvalidKey, len(seed), ed25519.SeedSize)
	}
	k := PrivateKey{Key: ed25519.NewKeyFromSeed(seed), Comment: kf.Comment}
	if !k.Public().Equal(pub) {
		return PrivateKey{}, fmt.Errorf("signing: %w: private key file: the recorded public key %s does not match the private key (%s); the file was edited or corrupted", ErrInvalidKey, pub.ShortID(), k.Public().ShortID())
	}
	return k, nil
}

func openBox(kf *keyFile, passphrase func() ([]byte, error)) ([]byte, error) {
	k := kf.KDF
	switch {
	case k.Name != kdfScrypt:
		return nil, fmt.Errorf("signing: %w: private key file: kdf %q is not supported, want %q", ErrInvalidKey, k.Name, kdfScrypt)
	case kf.Cipher != cipherSecbox:
		return nil, fmt.Errorf("signing: %w: private key file: cipher %q is not supported, want %q", ErrInvalidKey, kf.Cipher, cipherSecbox)
	case k.N < minScryptN || k.N > maxScryptN || k.N&(k.N-1) != 0:
		return nil, fmt.Errorf("signing: %w: private key file: scrypt n=%d must be a power of two from 2^15 to 2^20", ErrInvalidKey, k.N)
	case k.R < 8 || k.R > 16:
		return nil, fmt.Errorf("signing: %w: private key file: scrypt r=%d must be from 8 to 16", ErrInvalidKey, k.R)
	case k.P < 1 || k.P > 4:
		return nil, fmt.Errorf("signing: %w: private key file: scrypt p=%d must be from 1 to 4", ErrInvalidKey, k.P)
	}
	salt, err := decodeB64(k.Salt)
	if err != nil || len(salt) < 16 {
		return nil, fmt.Errorf("signing: %w: private key file: salt must be at least 16 bytes of base64", ErrInvalidKey)
	}
	nonceB, err := decodeB64(kf.Nonce)
	if err != nil || len(nonceB) != 24 {
		return nil, fmt.Errorf("signing: %w: private key file: nonce must be 24 bytes of base64", ErrInvalidKey)
	}
	box, err := decodeB64(kf.Box)
	if err != nil || len(box) != ed25519.SeedSize+secretbox.Overhead {
		return nil, fmt.Errorf("signing: %w: private key file: box must be %d bytes of base64", ErrInvalidKey, ed25519.SeedSize+secretbox.Overhead)
	}
	if passphrase == nil {
		return nil, fmt.Errorf("signing: %w: the private key is encrypted and no passphrase was given", ErrWrongPassphrase)
	}
	pass, err := passphrase()
	if err != nil {
		return nil, fmt.Errorf("signing: read passphrase: %w", err)
	}
	key, err := deriveKey(pass, salt, k.N, k.R, k.P)
	clear(pass)
	if err != nil {
		return nil, err
	}
	defer clear(key[:])
	var nonce [24]byte
	copy(nonce[:], nonceB)
	seed, ok := secretbox.Open(nil, box, &nonce, key)
	if !ok {
		return nil, fmt.Errorf("signing: %w: the private key did not decrypt: check the passphrase (or the key file is corrupted)", ErrWrongPassphrase)
	}
	return seed, nil
}

// WriteKeyPairOptions changes how WriteKeyPair writes.
type WriteKeyPairOptions struct {
	// Force overwrites existing key files.
	Force bool
	// workFactor is scrypt's N for an encrypted key; 0 is 2^17 (tests
	// lower it to keep fast).
	workFactor int
}

// PublicKeyPath is the .pub path WriteKeyPair uses for privPath: a ".key"
// suffix replaced by ".pub", or ".pub" appended.
func PublicKeyPath(privPath string) string {
	if s, ok := strings.CutSuffix(privPath, ".key"); ok && filepath.Base(privPath) != ".key" {
		return s + ".pub"
	}
	return privPath + ".pub"
}

// WriteKeyPair writes k to privPath (mode 0600, atomically; encrypted unless
// passphrase is empty) and its public key line "ed25519:<b64> <comment>" to
// PublicKeyPath(privPath) (mode 0644). It refuses with ErrExists when either
// file exists; use WriteKeyPairOptions{Force: true}.Write to overwrite.
func WriteKeyPair(privPath string, k PrivateKey, passphrase []byte) (pubPath string, err error) {
	return WriteKeyPairOptions{}.Write(privPath, k, passphrase)
}

// Write is WriteKeyPair with options.
func (o WriteKeyPairOptions) Write(privPath string, k PrivateKey, passphrase []byte) (pubPath string, err error) {
	pubPath = PublicKeyPath(privPath)
	if !o.Force {
		for _, p := range []string{privPath, pubPath} {
			if _, err := os.Lstat(p); err == nil {
				return "", fmt.Errorf("signing: write key pair: %s %w; choose another path or pass --force to replace it", p, ErrExists)
			} else if !errors.Is(err, fs.ErrNotExist) {
				return "", fmt.Errorf("signing: write key pair: %w", err)
			}
		}
	}
	n := o.workFactor
	if n == 0 {
		n = 1 << scryptLogN
	}
	priv, err := marshalPrivateKey(k, passphrase, n)
	if err != nil {
		return "", err
	}
	if err := atomicfile.Write(privPath, priv, 0o600); err != nil {
		return "", fmt.Errorf("signing: write private key: %w", err)
	}
	if err := atomicfile.Write(pubPath, []byte(k.Public().Line()+"\n"), 0o644); err != nil {
		return "", fmt.Errorf("signing: write public key (the private key %s was written): %w", privPath, err)
	}
	return pubPath, nil
}
