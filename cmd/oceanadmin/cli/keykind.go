package cli

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/oceancode/oceancode/internal/exitcode"
	"github.com/oceancode/oceancode/signing"
)

// isPrivateKeyFile reports whether data is an oceancode private key file
// (encrypted or not).
func isPrivateKeyFile(data []byte) bool {
	if !strings.HasPrefix(strings.TrimSpace(string(data)), "{") {
		return false
	}
	_, err := signing.PrivateKeyFilePublic(data)
	return err == nil || strings.Contains(string(data), `"oceancode-ed25519-private-key"`) || signing.IsEncrypted(data)
}

// checkPublicKeyArgs refuses a --pubkey value that names a private key file,
// saying where its public key is.
func checkPublicKeyArgs(values []string) error {
	for _, v := range values {
		path := strings.TrimPrefix(v, "@")
		data, err := os.ReadFile(path)
		if err != nil || !isPrivateKeyFile(data) {
			continue // a key string, or a file the anchor reader reports on
		}
		return exitcode.With(exitcode.Usage, fmt.Errorf("--pubkey %s: %s is a private key; give the public key (oceanadmin keygen wrote it to %s), and keep the private key off the machines that verify", v, path, signing.PublicKeyPath(path)))
	}
	return nil
}

// publicKeyGivenAsPrivate explains a -k file that holds a public key.
func publicKeyGivenAsPrivate(path string, data []byte) error {
	if isPrivateKeyFile(data) {
		return nil
	}
	if _, err := signing.ParsePublicKeys(data); err != nil {
		return nil
	}
	priv := strings.TrimSuffix(path, ".pub") + ".key"
	hint := "the private key file oceanadmin keygen -o wrote"
	if _, err := os.Stat(priv); err == nil && priv != path {
		hint = priv
	}
	return exitcode.With(exitcode.Usage, fmt.Errorf("read private key %s: %s is a public key; give the private key (%s) with -k; the public key is for verify --pubkey and the agents' trusted_keys", path, path, hint))
}

// parseEnvelopeOrUnsigned parses an envelope strictly; one without
// signatures (which signing.ParseEnvelope refuses with ErrUnsigned) is
// returned with its payload, for validate and sign --append.
func parseEnvelopeOrUnsigned(data []byte) (*signing.Envelope, error) {
	env, err := signing.ParseEnvelope(data)
	if !errors.Is(err, signing.ErrUnsigned) {
		return env, err
	}
	var w struct {
		PayloadType string `json:"payloadType"`
		Payload     string `json:"payload"`
	}
	if jerr := json.Unmarshal(data, &w); jerr != nil {
		return nil, err
	}
	payload, derr := base64.StdEncoding.Strict().DecodeString(w.Payload)
	if derr != nil {
		return nil, fmt.Errorf("signing: %w: payload: %v", signing.ErrMalformed, derr)
	}
	return &signing.Envelope{PayloadType: w.PayloadType, Payload: payload}, nil
}
