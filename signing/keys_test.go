package signing

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/crypto/ssh"
)

func sshLine(t *testing.T, pub any, comment string) string {
	t.Helper()
	k, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	line := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(k)))
	if comment != "" {
		line += " " + comment
	}
	return line
}

func minisignKey(alg string, keynum []byte, key []byte) string {
	raw := append(append([]byte(alg), keynum...), key...)
	return base64.StdEncoding.EncodeToString(raw)
}

func TestKeyID(t *testing.T) {
	k := testKey("a").Public()
	sum := sha256.Sum256(k.Key)
	if got, want := k.ID(), hex.EncodeToString(sum[:]); got != want {
		t.Errorf("ID = %s, want %s", got, want)
	}
	if k.ID() != strings.ToLower(k.ID()) || len(k.ID()) != 64 {
		t.Errorf("ID %q is not 64 lowercase hex digits", k.ID())
	}
	// The comment is not part of the ID, and the ID is stable across formats.
	k2 := k
	k2.Comment = "other"
	if k.ID() != k2.ID() {
		t.Error("ID depends on the comment")
	}
	if k.ShortID() != k.ID()[:16] {
		t.Errorf("ShortID = %q", k.ShortID())
	}
	// Known answer: the all-zero key.
	zero := PublicKey{Key: make(ed25519.PublicKey, 32)}
	if got, want := zero.ID(), "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"; got != want {
		t.Errorf("ID(zero key) = %s, want %s", got, want)
	}
}

func TestParsePublicKey(t *testing.T) {
	pub := testKey("a").Public()
	b64 := base64.StdEncoding.EncodeToString(pub.Key)
	keynum := []byte{1, 2, 3, 4, 5, 6, 7, 8}
	mini := minisignKey("Ed", keynum, pub.Key)

	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	rsaLine := sshLine(t, &rsaKey.PublicKey, "ops@host")
	// An ssh-ed25519 label on an RSA blob.
	mismatched := "ssh-ed25519 " + strings.Fields(rsaLine)[1]
	// A non-canonical encoding of the key: the last character before '='
	// carries padding bits that must be zero.
	nonCanon := []byte(b64)
	nonCanon[len(nonCanon)-2]++

	good := []struct {
		name, in, comment string
	}{
		{"native", "ed25519:" + b64, ""},
		{"native with comment", "ed25519:" + b64 + " admin 2026", "admin 2026"},
		{"native with tab comment", "ed25519:" + b64 + "\tadmin", "admin"},
		{"native surrounded by space and CRLF", "  ed25519:" + b64 + "\r\n", ""},
		{"ssh-ed25519", sshLine(t, pub.Key, "alice@laptop"), "alice@laptop"},
		{"ssh-ed25519 without comment", sshLine(t, pub.Key, ""), ""},
		{"minisign bare", mini, "minisign key 0807060504030201"},
		{"minisign with comment", mini + " release key", "release key"},
		{"minisign file", "untrusted comment: minisign public key 0807060504030201\n" + mini + "\n", "minisign public key 0807060504030201"},
		{"minisign file CRLF", "untrusted comment: signify key\r\n" + mini + "\r\n", "signify key"},
	}
	for _, tc := range good {
		t.Run(tc.name, func(t *testing.T) {
			k, err := ParsePublicKey(tc.in)
			checkErr(t, err, nil, "")
			if !k.Equal(pub) {
				t.Errorf("key = %x, want %x", k.Key, pub.Key)
			}
			if k.ID() != pub.ID() {
				t.Errorf("ID = %s, want %s", k.ID(), pub.ID())
			}
			if k.Comment != tc.comment {
				t.Errorf("comment = %q, want %q", k.Comment, tc.comment)
			}
			// The native form reads back to the same key.
			back, err := ParsePublicKey(k.Line())
			checkErr(t, err, nil, "")
			if diff := cmp.Diff(k, back); diff != "" {
				t.Errorf("Line round trip (-want +got):\n%s", diff)
			}
		})
	}

	// A real minisign key (from the minisign README).
	t.Run("minisign real", func(t *testing.T) {
		k, err := ParsePublicKey("RWQf6LRCGA9i53mlYecO4IzT51TGPpvWucNSCh1CBM0QTaLn73Y7GFO3")
		checkErr(t, err, nil, "")
		if len(k.Key) != 32 || k.Comment != "minisign key E7620F1842B4E81F" {
			t.Errorf("got %x %q", k.Key, k.Comment)
		}
	})

	bad := []struct {
		name, in, want string
	}{
		{"empty", "", "empty public key"},
		{"blank", " \n\t\n", "empty public key"},
		{"native bad base64", "ed25519:!!!notbase64!!!", "invalid base64"},
		{"native unpadded", "ed25519:" + strings.TrimRight(b64, "="), "invalid base64"},
		{"native url-safe", "ed25519:" + base64.URLEncoding.EncodeToString(bytes.Repeat([]byte{0xff}, 32)), "invalid base64"},
		{"native non-canonical", "ed25519:" + string(nonCanon), "invalid base64"},
		{"native with line break", "ed25519:" + b64[:10] + "\r" + b64[10:], "non-canonical base64"},
		{"native short", "ed25519:" + base64.StdEncoding.EncodeToString(pub.Key[:31]), "31 bytes, want 32"},
		{"native long", "ed25519:" + base64.StdEncoding.EncodeToString(append(pub.Key, 0)), "33 bytes, want 32"},
		{"native empty", "ed25519:", "0 bytes, want 32"},
		{"native wrong case prefix", "ED25519:" + b64, `must be written "ed25519:"`},
		{"ssh-rsa", rsaLine, "ssh key type ssh-rsa is not supported"},
		{"ecdsa", sshLine(t, &ecKey.PublicKey, ""), "ssh key type ecdsa-sha2-nistp256 is not supported"},
		{"ssh-dss label", "ssh-dss AAAAB3NzaC1kc3MAAACBAP comment", "ssh key type ssh-dss is not supported"},
		{"ssh cert", "ssh-ed25519-cert-v01@openssh.com AAAA", "is not supported"},
		{"security key", "sk-ssh-ed25519@openssh.com AAAA", "is not supported"},
		{"ssh-ed25519 bad base64", "ssh-ed25519 AAAA!!!! x", "ssh public key"},
		{"ssh-ed25519 truncated blob", "ssh-ed25519 " + strings.Fields(sshLine(t, pub.Key, ""))[1][:40], "ssh public key"},
		{"ssh-ed25519 label on rsa blob", mismatched, "ssh public key"},
		{"ssh options", `restrict,from="10.0.0.1" ` + sshLine(t, pub.Key, "x"), "options"},
		{"ssh options rsa", `restrict ` + rsaLine, "ssh-rsa is not supported"},
		{"minisign wrong algorithm", minisignKey("ED", keynum, pub.Key), `minisign key algorithm is "ED", want "Ed"`},
		{"minisign other algorithm", minisignKey("Xy", keynum, pub.Key), `algorithm is "Xy"`},
		{"minisign short", minisignKey("Ed", keynum, pub.Key[:31]), "41 bytes, want 42"},
		{"minisign long", minisignKey("Ed", keynum, append(pub.Key, 1)), "43 bytes, want 42"},
		{"minisign bad base64", "RW" + strings.Repeat("!", 54), "invalid base64"},
		{"minisign file wrong algorithm", "untrusted comment: x\n" + minisignKey("ED", keynum, pub.Key), "algorithm"},
		{"comment line alone", "untrusted comment: minisign public key", "without the key line"},
		{"bare raw key", b64, "write it as ed25519:"},
		{"junk", "hello world", "unrecognised public key"},
		{"two keys", "ed25519:" + b64 + "\ned25519:" + b64, "2 lines"},
		{"three line minisign", "untrusted comment: x\n" + mini + "\n" + mini, "3 lines"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			k, err := ParsePublicKey(tc.in)
			checkErr(t, err, ErrInvalidKey, tc.want)
			if k.Key != nil {
				t.Errorf("got a key with the error: %x", k.Key)
			}
		})
	}
}

func TestParsePublicKeys(t *testing.T) {
	a, b, c := testKey("a").Public(), testKey("b").Public(), testKey("c").Public()
	bMini := minisignKey("Ed", []byte{9, 9, 9, 9, 9, 9, 9, 9}, b.Key)
	file := strings.Join([]string{
		"# trusted keys for acme",
		"",
		a.Line() + " secteam-2026",
		"untrusted comment: minisign public key 0909090909090909",
		bMini,
		"   ",
		"# old key, kept for the rotation overlap",
		strings.TrimSpace(string(ssh.MarshalAuthorizedKey(mustSSH(t, c.Key)))) + " old@acme",
		a.String() + " duplicate of a",
		"",
	}, "\n")
	got, err := ParsePublicKeys([]byte(file))
	checkErr(t, err, nil, "")
	want := []PublicKey{
		{Key: a.Key, Comment: "a secteam-2026"},
		{Key: b.Key, Comment: "minisign public key 0909090909090909"},
		{Key: c.Key, Comment: "old@acme"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParsePublicKeys (-want +got):\n%s", diff)
	}

	bad := []struct {
		name, in, want string
	}{
		{"empty", "", "no public key"},
		{"only comments", "# a\n\n# b\n", "no public key"},
		{"only minisign comment", "untrusted comment: x\n", "no public key"},
		{"bad line 3", a.String() + "\n\nssh-rsa AAAA x\n", "signing: invalid key: line 3: ssh key type ssh-rsa"},
		{"bad line 1", "ed25519:AAAA\n" + a.String(), "line 1: "},
		{"a private key file", string(privateKeyFile(t)), "this is a private key file, not a public key: give the public key"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParsePublicKeys([]byte(tc.in))
			checkErr(t, err, ErrInvalidKey, tc.want)
		})
	}
}

func mustSSH(t *testing.T, k ed25519.PublicKey) ssh.PublicKey {
	t.Helper()
	p, err := ssh.NewPublicKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestGenerateKey(t *testing.T) {
	k, err := GenerateKey("admin 2026")
	checkErr(t, err, nil, "")
	if err := k.check(); err != nil {
		t.Fatal(err)
	}
	if k.Public().Comment != "admin 2026" || len(k.Public().Key) != 32 {
		t.Errorf("Public() = %+v", k.Public())
	}
	k2, _ := GenerateKey("")
	if k.Public().Equal(k2.Public()) {
		t.Error("two generated keys are equal")
	}
	for _, c := range []string{"two\nlines", "tab\there", strings.Repeat("x", 257), "bad \xff utf8"} {
		_, err := GenerateKey(c)
		checkErr(t, err, ErrInvalidKey, "comment")
	}
}

func privateKeyFile(t *testing.T) []byte {
	t.Helper()
	b, err := marshalFast(testKey("private"), nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
