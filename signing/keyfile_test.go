package signing

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func pass(s string) func() ([]byte, error) {
	return func() ([]byte, error) { return []byte(s), nil }
}

func noPass(t *testing.T) func() ([]byte, error) {
	return func() ([]byte, error) {
		t.Error("passphrase asked for an unencrypted key")
		return nil, errors.New("unexpected")
	}
}

func TestPrivateKeyRoundTrip(t *testing.T) {
	k := testKey("admin")
	for _, tc := range []struct {
		name      string
		pass      string
		encrypted bool
	}{
		{"encrypted", "correct horse battery staple", true},
		{"unencrypted", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, err := marshalFast(k, []byte(tc.pass))
			checkErr(t, err, nil, "")
			if got := IsEncrypted(data); got != tc.encrypted {
				t.Errorf("IsEncrypted = %v, want %v", got, tc.encrypted)
			}
			if !bytes.HasSuffix(data, []byte("}\n")) {
				t.Errorf("key file does not end with a newline: %q", data)
			}
			asked := false
			got, err := ParsePrivateKey(data, func() ([]byte, error) {
				asked = true
				return []byte(tc.pass), nil
			})
			checkErr(t, err, nil, "")
			if asked != tc.encrypted {
				t.Errorf("passphrase asked = %v, want %v", asked, tc.encrypted)
			}
			if diff := cmp.Diff(k, got); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
			pub, err := PrivateKeyFilePublic(data)
			checkErr(t, err, nil, "")
			if diff := cmp.Diff(k.Public(), pub); diff != "" {
				t.Errorf("PrivateKeyFilePublic (-want +got):\n%s", diff)
			}
			if tc.encrypted && bytes.Contains(data, []byte(base64.StdEncoding.EncodeToString(k.Key.Seed()))) {
				t.Error("encrypted key file contains the seed")
			}
		})
	}
}

func TestEncryptedDefaultWorkFactor(t *testing.T) {
	data, err := MarshalPrivateKey(testKey("a"), []byte("pw"))
	checkErr(t, err, nil, "")
	var kf keyFile
	if err := json.Unmarshal(data, &kf); err != nil {
		t.Fatal(err)
	}
	want := kdfDoc{Name: "scrypt", Salt: kf.KDF.Salt, N: 1 << 17, R: 8, P: 1}
	if diff := cmp.Diff(want, *kf.KDF); diff != "" {
		t.Errorf("kdf (-want +got):\n%s", diff)
	}
	if salt, _ := base64.StdEncoding.DecodeString(kf.KDF.Salt); len(salt) != 32 {
		t.Errorf("salt is %d bytes", len(salt))
	}
	if nonce, _ := base64.StdEncoding.DecodeString(kf.Nonce); len(nonce) != 24 {
		t.Errorf("nonce is %d bytes", len(nonce))
	}
	if _, err := ParsePrivateKey(data, pass("pw")); err != nil {
		t.Fatal(err)
	}
	// Two encryptions of one key differ (fresh salt and nonce).
	data2, _ := marshalFast(testKey("a"), []byte("pw"))
	if bytes.Equal(data, data2) {
		t.Error("two encryptions are identical")
	}
}

// editKeyFile decodes data into a generic map, lets edit change it and
// re-encodes it.
func editKeyFile(t *testing.T, data []byte, edit func(m map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// flipB64 flips a bit in the first byte of a base64 value.
func flipB64(t *testing.T, s any) string {
	b, err := base64.StdEncoding.DecodeString(s.(string))
	if err != nil {
		t.Fatal(err)
	}
	b[0] ^= 1
	return base64.StdEncoding.EncodeToString(b)
}

func TestParsePrivateKeyRefuses(t *testing.T) {
	k, other := testKey("a"), testKey("b")
	enc, err := marshalFast(k, []byte("pw"))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := marshalFast(k, nil)
	if err != nil {
		t.Fatal(err)
	}
	kdf := func(m map[string]any) map[string]any { return m["kdf"].(map[string]any) }
	tests := []struct {
		name     string
		data     []byte
		pass     string
		sentinel error
		want     string
	}{
		{"wrong passphrase", enc, "wrong", ErrWrongPassphrase, "check the passphrase"},
		{"empty passphrase", enc, "", ErrWrongPassphrase, ""},
		{"tampered box", editKeyFile(t, enc, func(m map[string]any) { m["box"] = flipB64(t, m["box"]) }), "pw", ErrWrongPassphrase, ""},
		{"tampered nonce", editKeyFile(t, enc, func(m map[string]any) { m["nonce"] = flipB64(t, m["nonce"]) }), "pw", ErrWrongPassphrase, ""},
		{"tampered salt", editKeyFile(t, enc, func(m map[string]any) { kdf(m)["salt"] = flipB64(t, kdf(m)["salt"]) }), "pw", ErrWrongPassphrase, ""},
		{"tampered n", editKeyFile(t, enc, func(m map[string]any) { kdf(m)["n"] = 1 << 16 }), "pw", ErrWrongPassphrase, ""},
		{"truncated box", editKeyFile(t, enc, func(m map[string]any) { m["box"] = m["box"].(string)[:40] }), "pw", ErrInvalidKey, "box must be 48 bytes"},
		{"short nonce", editKeyFile(t, enc, func(m map[string]any) { m["nonce"] = "AAAA" }), "pw", ErrInvalidKey, "nonce must be 24 bytes"},
		{"weak n", editKeyFile(t, enc, func(m map[string]any) { kdf(m)["n"] = 1024 }), "pw", ErrInvalidKey, "scrypt n=1024"},
		{"huge n", editKeyFile(t, enc, func(m map[string]any) { kdf(m)["n"] = 1 << 30 }), "pw", ErrInvalidKey, "power of two"},
		{"n not power of two", editKeyFile(t, enc, func(m map[string]any) { kdf(m)["n"] = 40000 }), "pw", ErrInvalidKey, "power of two"},
		{"huge p", editKeyFile(t, enc, func(m map[string]any) { kdf(m)["p"] = 1000 }), "pw", ErrInvalidKey, "p=1000"},
		{"other kdf", editKeyFile(t, enc, func(m map[string]any) { kdf(m)["name"] = "pbkdf2" }), "pw", ErrInvalidKey, `kdf "pbkdf2"`},
		{"other cipher", editKeyFile(t, enc, func(m map[string]any) { m["cipher"] = "aes-gcm" }), "pw", ErrInvalidKey, `cipher "aes-gcm"`},
		{"public mismatch encrypted", editKeyFile(t, enc, func(m map[string]any) { m["public"] = other.Public().String() }), "pw", ErrInvalidKey, "does not match the private key"},
		{"public mismatch unencrypted", editKeyFile(t, plain, func(m map[string]any) { m["public"] = other.Public().String() }), "", ErrInvalidKey, "does not match the private key"},
		{"public not native", editKeyFile(t, plain, func(m map[string]any) { m["public"] = "RWQf6LRCGA9i53mlYecO4IzT51TGPpvWucNSCh1CBM0QTaLn73Y7GFO3" }), "", ErrInvalidKey, `"public" must be ed25519:`},
		{"seed short", editKeyFile(t, plain, func(m map[string]any) { m["seed"] = "AAAA" }), "", ErrInvalidKey, "seed is 3 bytes"},
		{"seed bad base64", editKeyFile(t, plain, func(m map[string]any) { m["seed"] = "%%%" }), "", ErrInvalidKey, "invalid base64"},
		{"seed and box", editKeyFile(t, enc, func(m map[string]any) { m["seed"] = "AAAA" }), "pw", ErrInvalidKey, "either"},
		{"neither", editKeyFile(t, plain, func(m map[string]any) { delete(m, "seed") }), "", ErrInvalidKey, "either"},
		{"unknown member", editKeyFile(t, plain, func(m map[string]any) { m["extra"] = 1 }), "", ErrInvalidKey, `unknown member "extra"`},
		{"case variant", bytes.Replace(plain, []byte(`"seed"`), []byte(`"Seed"`), 1), "", ErrInvalidKey, `unknown member "Seed"`},
		{"duplicate member", bytes.Replace(plain, []byte(`"version": 1,`), []byte(`"version": 1, "version": 1,`), 1), "", ErrInvalidKey, `duplicate member "version"`},
		{"wrong type", editKeyFile(t, plain, func(m map[string]any) { m["type"] = "openssh" }), "", ErrInvalidKey, `type is "openssh"`},
		{"future version", editKeyFile(t, plain, func(m map[string]any) { m["version"] = 2 }), "", ErrInvalidKey, "version 2 is not supported"},
		{"not json", []byte("-----BEGIN OPENSSH PRIVATE KEY-----\n"), "", ErrInvalidKey, "invalid JSON"},
		{"trailing data", append(bytes.Clone(plain), "{}"...), "", ErrInvalidKey, "data after the JSON object"},
		{"too large", bytes.Repeat([]byte(" "), maxKeyFileSize+1), "", ErrInvalidKey, "more than"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParsePrivateKey(tc.data, pass(tc.pass))
			checkErr(t, err, tc.sentinel, tc.want)
		})
	}

	t.Run("no passphrase func", func(t *testing.T) {
		_, err := ParsePrivateKey(enc, nil)
		checkErr(t, err, ErrWrongPassphrase, "no passphrase")
	})
	t.Run("passphrase func error", func(t *testing.T) {
		sentinel := errors.New("no terminal")
		_, err := ParsePrivateKey(enc, func() ([]byte, error) { return nil, sentinel })
		checkErr(t, err, sentinel, "read passphrase: no terminal")
	})
	t.Run("unencrypted never asks", func(t *testing.T) {
		_, err := ParsePrivateKey(plain, noPass(t))
		checkErr(t, err, nil, "")
	})
	t.Run("IsEncrypted junk", func(t *testing.T) {
		for _, d := range []string{"", "{}", "null", `{"type":"x","kdf":{}}`, `{"type":"oceancode-ed25519-private-key","kdf":null}`} {
			if IsEncrypted([]byte(d)) {
				t.Errorf("IsEncrypted(%q) = true", d)
			}
		}
	})
}

func TestMarshalPrivateKeyRefuses(t *testing.T) {
	k := testKey("a")
	bad := k
	bad.Key = append(bad.Key[:32:32], testKey("b").Key[32:]...)
	for _, tc := range []struct {
		name string
		k    PrivateKey
		want string
	}{
		{"short", PrivateKey{Key: k.Key[:10]}, "10 bytes"},
		{"public half mismatch", bad, "does not match its seed"},
		{"newline in comment", PrivateKey{Key: k.Key, Comment: "a\nb"}, "control character"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := marshalFast(tc.k, []byte("pw"))
			checkErr(t, err, ErrInvalidKey, tc.want)
		})
	}
}

func TestWriteKeyPair(t *testing.T) {
	dir := t.TempDir()
	k := testKey("admin 2026")
	priv := filepath.Join(dir, "admin.key")
	pubPath, err := WriteKeyPairOptions{workFactor: minScryptN}.Write(priv, k, []byte("pw"))
	checkErr(t, err, nil, "")
	if want := filepath.Join(dir, "admin.pub"); pubPath != want {
		t.Errorf("pub path = %s, want %s", pubPath, want)
	}
	for path, mode := range map[string]os.FileMode{priv: 0o600, pubPath: 0o644} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != mode {
			t.Errorf("%s mode = %04o, want %04o", path, fi.Mode().Perm(), mode)
		}
	}
	pubData, _ := os.ReadFile(pubPath)
	if want := k.Public().String() + " admin 2026\n"; string(pubData) != want {
		t.Errorf("pub file = %q, want %q", pubData, want)
	}
	for _, parse := range []func([]byte) (PublicKey, error){
		func(b []byte) (PublicKey, error) { return ParsePublicKey(string(b)) },
		func(b []byte) (PublicKey, error) {
			ks, err := ParsePublicKeys(b)
			if err != nil {
				return PublicKey{}, err
			}
			return ks[0], nil
		},
	} {
		got, err := parse(pubData)
		checkErr(t, err, nil, "")
		if diff := cmp.Diff(k.Public(), got); diff != "" {
			t.Errorf("pub file parse (-want +got):\n%s", diff)
		}
	}
	privData, _ := os.ReadFile(priv)
	got, err := ParsePrivateKey(privData, pass("pw"))
	checkErr(t, err, nil, "")
	if diff := cmp.Diff(k, got); diff != "" {
		t.Errorf("private key file (-want +got):\n%s", diff)
	}

	// No overwrite: the private key, or the public key alone.
	other := testKey("other")
	_, err = WriteKeyPair(priv, other, nil)
	checkErr(t, err, ErrExists, "admin.key already exists")
	if after, _ := os.ReadFile(priv); !bytes.Equal(after, privData) {
		t.Error("refused write changed the private key")
	}
	lonePub := filepath.Join(dir, "lone.pub")
	os.WriteFile(lonePub, []byte("keep"), 0o644)
	_, err = WriteKeyPair(filepath.Join(dir, "lone.key"), other, nil)
	checkErr(t, err, ErrExists, "lone.pub already exists")
	if _, err := os.Stat(filepath.Join(dir, "lone.key")); err == nil {
		t.Error("refused write created the private key")
	}

	// Force overwrites.
	_, err = WriteKeyPairOptions{Force: true}.Write(priv, other, nil)
	checkErr(t, err, nil, "")
	privData, _ = os.ReadFile(priv)
	got, err = ParsePrivateKey(privData, noPass(t))
	checkErr(t, err, nil, "")
	if !got.Public().Equal(other.Public()) {
		t.Error("forced write did not replace the key")
	}
	if fi, _ := os.Stat(priv); fi.Mode().Perm() != 0o600 {
		t.Errorf("forced write mode = %04o", fi.Mode().Perm())
	}
}

func TestPublicKeyPath(t *testing.T) {
	for in, want := range map[string]string{
		"admin.key":         "admin.pub",
		"/etc/x/admin.key":  "/etc/x/admin.pub",
		"admin":             "admin.pub",
		"admin.pem":         "admin.pem.pub",
		".key":              ".key.pub",
		"dir/.key":          "dir/.key.pub",
		"release.key.bak":   "release.key.bak.pub",
		"keys/admin.key.v2": "keys/admin.key.v2.pub",
	} {
		if got := PublicKeyPath(in); got != want {
			t.Errorf("PublicKeyPath(%q) = %q, want %q", in, got, want)
		}
	}
}
