package requirements

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/oceancode/oceancode/signing"
)

// EnvPubkey names the environment variable holding trusted keys: one key, a
// comma-separated list, or @path to a file of keys.
const EnvPubkey = "OC_REQUIREMENTS_PUBKEY"

// AnchorFile is the admin trust anchor's file name in the managed dir.
const AnchorFile = "trusted_keys"

// Anchors are the keys requirements are verified against and where they
// came from.
type Anchors struct {
	// Keys are the trusted keys; empty means requirements are not enforced.
	Keys []signing.PublicKey
	// Source describes where the keys came from: the anchor file's path,
	// "env:OC_REQUIREMENTS_PUBKEY", or "flag:--pubkey".
	Source string
	// Enforced is true when the admin anchor exists: the user cannot switch
	// enforcement off, and env overrides of policy paths are ignored.
	Enforced bool
	// Err is set when a trust anchor exists but cannot be used (wrong owner
	// or mode, unparsable). Verification then fails closed.
	Err error
	// Notes are non-fatal remarks (an env key outside the admin anchor set,
	// ignored).
	Notes []string
}

// KeyIDs returns the anchors' key IDs, sorted.
func (a Anchors) KeyIDs() []string {
	ids := make([]string, 0, len(a.Keys))
	for _, k := range a.Keys {
		ids = append(ids, k.ID())
	}
	sort.Strings(ids)
	return ids
}

// Fingerprint identifies the key set (hex SHA-256 over the sorted key IDs).
// Anti-rollback state is kept per key set, so rotating to a new key set
// after a key compromise resets the high-water mark.
func (a Anchors) Fingerprint() string {
	h := sha256.Sum256([]byte(strings.Join(a.KeyIDs(), "\n")))
	return hex.EncodeToString(h[:])
}

// AnchorOptions says where to look for trust anchors.
type AnchorOptions struct {
	ManagedDir string              // the OS managed dir
	Getenv     func(string) string // the environment
	Check      signing.AnchorCheck // owner/mode rules for the anchor file
}

// ResolveAnchors finds the trust anchors in order: the admin anchor file,
// then $OC_REQUIREMENTS_PUBKEY. When the admin anchor exists the variable can
// only narrow it to a subset.
func ResolveAnchors(o AnchorOptions) Anchors {
	env := ""
	if o.Getenv != nil {
		env = strings.TrimSpace(o.Getenv(EnvPubkey))
	}
	anchorPath := filepath.Join(o.ManagedDir, AnchorFile)
	if _, err := os.Lstat(anchorPath); err == nil {
		keys, err := signing.ReadAnchorFile(anchorPath, o.Check)
		return adminAnchors(anchorPath, keys, err, env)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return Anchors{Source: anchorPath, Enforced: true, Err: fmt.Errorf("stat trust anchor %s: %w", anchorPath, err)}
	}
	if env == "" {
		return Anchors{}
	}
	keys, err := parseEnvKeys(env)
	a := Anchors{Source: "env:" + EnvPubkey, Keys: keys}
	if err != nil {
		a.Err = err
		a.Keys = nil
	}
	return a
}

// AnchorsFromData builds the admin anchor from the trusted keys an
// OS-native managed source holds (the TrustedKeys value of macOS managed
// preferences or the Windows policy key), which only an administrator can
// write: the same rules as the anchor file, $OC_REQUIREMENTS_PUBKEY
// narrowing it at most.
func AnchorsFromData(source string, data []byte, getenv func(string) string) Anchors {
	env := ""
	if getenv != nil {
		env = strings.TrimSpace(getenv(EnvPubkey))
	}
	keys, err := signing.ParsePublicKeys(data)
	return adminAnchors(source, keys, err, env)
}

// adminAnchors is an admin anchor read from source (keys, or the error
// reading them), narrowed by the variable's value env.
func adminAnchors(source string, keys []signing.PublicKey, err error, env string) Anchors {
	a := Anchors{Source: source, Enforced: true}
	if err != nil {
		a.Err = fmt.Errorf("read trust anchor %s: %w", source, err)
		return a
	}
	a.Keys = keys
	if env != "" {
		envKeys, err := parseEnvKeys(env)
		if err != nil {
			a.Notes = append(a.Notes, fmt.Sprintf("%s ignored: %v", EnvPubkey, err))
			return a
		}
		a.Keys, a.Notes = narrow(keys, envKeys)
		if len(a.Keys) == 0 {
			a.Keys = keys
			a.Notes = append(a.Notes, fmt.Sprintf("%s names no key of the admin anchor %s: ignored", EnvPubkey, source))
		} else {
			a.Source += " ∩ env:" + EnvPubkey
		}
	}
	return a
}

// KeysFromFlag builds anchors from explicit key files or key strings given
// on a command line (oceanadmin verify/simulate --pubkey). They stand in for
// the admin anchor.
func KeysFromFlag(values []string) Anchors {
	a := Anchors{Source: "flag:--pubkey", Enforced: true}
	for _, v := range values {
		keys, err := parseKeyArg(v)
		if err != nil {
			a.Err = err
			a.Keys = nil
			return a
		}
		a.Keys = append(a.Keys, keys...)
	}
	a.Keys = dedupe(a.Keys)
	return a
}

func parseKeyArg(v string) ([]signing.PublicKey, error) {
	if strings.HasPrefix(v, "@") {
		v = v[1:]
	}
	if data, err := os.ReadFile(v); err == nil {
		keys, err := signing.ParsePublicKeys(data)
		if err != nil {
			return nil, fmt.Errorf("read public keys %s: %w", v, err)
		}
		return keys, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read public keys %s: %w", v, err)
	}
	k, err := signing.ParsePublicKey(v)
	if err != nil {
		return nil, fmt.Errorf("parse public key %q (neither a readable file nor a key): %w", v, err)
	}
	return []signing.PublicKey{k}, nil
}

func parseEnvKeys(env string) ([]signing.PublicKey, error) {
	if strings.HasPrefix(env, "@") {
		path := env[1:]
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("read %s file %s: %w", EnvPubkey, path, err)
		}
		keys, err := signing.ParsePublicKeys(data)
		if err != nil {
			return nil, fmt.Errorf("read %s file %s: %w", EnvPubkey, path, err)
		}
		return keys, nil
	}
	var keys []signing.PublicKey
	for i, part := range strings.Split(env, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, err := signing.ParsePublicKey(part)
		if err != nil {
			return nil, fmt.Errorf("parse %s entry %d: %w", EnvPubkey, i+1, err)
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("parse %s: no key", EnvPubkey)
	}
	return dedupe(keys), nil
}

func narrow(anchor, env []signing.PublicKey) ([]signing.PublicKey, []string) {
	in := map[string]bool{}
	for _, k := range anchor {
		in[k.ID()] = true
	}
	var out []signing.PublicKey
	var notes []string
	for _, k := range env {
		if in[k.ID()] {
			out = append(out, k)
		} else {
			notes = append(notes, fmt.Sprintf("%s key %s is not in the admin anchor: ignored (the variable can only narrow the admin's keys)", EnvPubkey, k.ShortID()))
		}
	}
	return out, notes
}

func dedupe(keys []signing.PublicKey) []signing.PublicKey {
	seen := map[string]bool{}
	var out []signing.PublicKey
	for _, k := range keys {
		if !seen[k.ID()] {
			seen[k.ID()] = true
			out = append(out, k)
		}
	}
	return out
}
