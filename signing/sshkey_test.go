package signing

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
)

// sshBlob builds an RFC 4253 key blob from its strings.
func sshBlob(fields ...[]byte) []byte {
	var b []byte
	for _, f := range fields {
		b = binary.BigEndian.AppendUint32(b, uint32(len(f)))
		b = append(b, f...)
	}
	return b
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// authorizedKeySeeds are authorized_keys lines for the differential test and
// the committed seeds of FuzzParseAuthorizedKey: well-formed lines, options,
// quoting, blobs of the wrong shape and type, and separators.
func authorizedKeySeeds() map[string]string {
	key := fuzzKey.Public().Key
	good := b64(sshBlob([]byte(sshEd25519), key))
	line := sshEd25519 + " " + good
	withCR := good[:20] + "\r" + good[20:]
	return map[string]string{
		"plain":                  line,
		"comment":                line + " alice@laptop",
		"comment-words":          line + "  two  words\t",
		"tabs":                   sshEd25519 + "\t" + good + "\tc",
		"leading-space":          " \t " + line + " c",
		"crlf":                   line + " c\r",
		"cr-in-comment":          line + " c\rd",
		"cr-in-base64":           sshEd25519 + " " + withCR + " c",
		"nbsp-separator":         sshEd25519 + "\u00a0" + good,
		"hash":                   "# " + line,
		"hash-glued":             "#" + line,
		"empty":                  "",
		"type-only":              sshEd25519,
		"type-space":             sshEd25519 + " ",
		"option":                 "restrict " + line + " c",
		"options":                `restrict,from="10.0.0.1" ` + line,
		"option-quoted-space":    `command="echo a b" ` + line + " c",
		"option-escaped-quote":   `command="a\"b c" ` + line,
		"option-unmatched":       `command="x ` + line,
		"option-empty-commas":    `,,restrict,, ` + line,
		"only-commas":            `,, ` + line + " c",
		"option-is-type":         sshEd25519 + " " + line,
		"option-tab":             "restrict\t\t" + line,
		"bad-base64":             sshEd25519 + " AAAA!!!! x",
		"unpadded":               sshEd25519 + " " + strings.TrimRight(b64(sshBlob([]byte(sshEd25519), key[:31])), "="),
		"short-key":              sshEd25519 + " " + b64(sshBlob([]byte(sshEd25519), key[:31])),
		"long-key":               sshEd25519 + " " + b64(sshBlob([]byte(sshEd25519), append(key[:32:32], 0))),
		"trailing-junk":          sshEd25519 + " " + b64(append(sshBlob([]byte(sshEd25519), key), 0)),
		"truncated":              sshEd25519 + " " + good[:40],
		"empty-blob":             sshEd25519 + " ====",
		"huge-length":            sshEd25519 + " " + b64([]byte{0xff, 0xff, 0xff, 0xff, 's'}),
		"mismatched-name":        sshEd25519 + " " + b64(sshBlob([]byte("ssh-ed25518"), key)),
		"declared-other":         "ssh-ed25518 " + good,
		"unknown-name":           "x " + b64(sshBlob([]byte("x"), key)),
		"rsa-blob":               "ssh-rsa " + b64(sshBlob([]byte("ssh-rsa"), []byte{1, 0, 1}, bytes.Repeat([]byte{0xc5}, 129))) + " rsa@host",
		"rsa-with-options":       "restrict ssh-rsa " + b64(sshBlob([]byte("ssh-rsa"), []byte{1, 0, 1}, bytes.Repeat([]byte{0xc5}, 129))),
		"ed25519-label-on-rsa":   sshEd25519 + " " + b64(sshBlob([]byte("ssh-rsa"), []byte{1, 0, 1}, bytes.Repeat([]byte{0xc5}, 129))),
		"cert":                   "ssh-ed25519-cert-v01@openssh.com " + b64(sshBlob([]byte("ssh-ed25519-cert-v01@openssh.com"), []byte("nonce"), key)),
		"security-key":           "sk-ssh-ed25519@openssh.com " + b64(sshBlob([]byte("sk-ssh-ed25519@openssh.com"), key, []byte("ssh:"))),
		"two-keys":               line + " " + line,
		"native":                 fuzzKey.Public().Line(),
		"quote-in-type":          `ssh-"x ` + b64(sshBlob([]byte(`ssh-"x`), key)) + ` y" ` + line,
		"options-before-comment": `from="*" ` + line + ` "quoted comment"`,
	}
}

// sshAccepts runs the reference parser on one line: the ed25519 key it
// accepts, with comment and options, or ok false.
func sshAccepts(t testing.TB, line string) (key []byte, comment string, options []string, ok bool) {
	t.Helper()
	pub, comment, options, _, err := ssh.ParseAuthorizedKey([]byte(line))
	if err != nil || pub.Type() != ssh.KeyAlgoED25519 {
		return nil, "", nil, false
	}
	k, isEd := pub.(ssh.CryptoPublicKey).CryptoPublicKey().(ed25519.PublicKey)
	if !isEd {
		t.Fatalf("ssh returned a %T for an ssh-ed25519 key", pub)
	}
	return k, comment, options, true
}

// checkAuthorizedKey requires parseAuthorizedKey and ParsePublicKey to agree
// with golang.org/x/crypto/ssh on one line.
func checkAuthorizedKey(t *testing.T, line string) {
	t.Helper()
	if strings.Contains(line, "\n") {
		return // both read one line at a time; the ssh package would go on to the next
	}
	wantKey, wantComment, wantOptions, sshOK := sshAccepts(t, line)
	got, err := parseAuthorizedKey(line)
	ours := err == nil && got.typ == sshEd25519
	if ours != sshOK {
		t.Fatalf("line %q: parseAuthorizedKey accepts an ed25519 key: %v (%+v, %v); ssh: %v", line, ours, got, err, sshOK)
	}
	if err == nil && got.typ != sshEd25519 && got.key != nil {
		t.Fatalf("line %q: a %s key with key bytes", line, got.typ)
	}
	if sshOK && (!bytes.Equal(got.key, wantKey) || got.comment != wantComment || !slices.Equal(got.options, wantOptions)) {
		t.Fatalf("line %q:\n got key %x comment %q options %q\nwant key %x comment %q options %q",
			line, got.key, got.comment, got.options, wantKey, wantComment, wantOptions)
	}

	// ParsePublicKey reads a trimmed line; compare on lines both see alike.
	if line == "" || strings.TrimSpace(line) != line || strings.HasPrefix(line, "\ufeff") {
		return
	}
	k, err := ParsePublicKey(line)
	first := strings.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == '\t' })[0]
	switch {
	case sshOK && len(wantOptions) == 0:
		if err != nil || !bytes.Equal(k.Key, wantKey) || k.Comment != wantComment {
			t.Fatalf("ParsePublicKey(%q) = %x %q, %v; ssh accepts key %x comment %q", line, k.Key, k.Comment, err, wantKey, wantComment)
		}
	case sshOK && !strings.HasPrefix(first, keyPrefix):
		if err == nil {
			t.Fatalf("ParsePublicKey(%q) accepts a key with authorized_keys options %q", line, wantOptions)
		}
	case err == nil && isSSHKeyType(first):
		t.Fatalf("ParsePublicKey(%q) accepts an ssh key line that ssh refuses", line)
	}
}

func TestParseAuthorizedKeyMatchesSSH(t *testing.T) {
	seeds := authorizedKeySeeds()
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for n := range seeds {
			if !yield(n) {
				return
			}
		}
	}) {
		t.Run(name, func(t *testing.T) { checkAuthorizedKey(t, seeds[name]) })
	}
	// Mutations of every seed: a fixed pseudo-random sequence of byte edits
	// with the characters the format gives meaning to.
	alphabet := []byte(" \t\r\",\\#=+/Aa0-@\x00\xff")
	rng := rand.New(rand.NewPCG(1, 2))
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for n := range seeds {
			if !yield(n) {
				return
			}
		}
	}) {
		for range 300 {
			b := []byte(seeds[name])
			for range 1 + rng.IntN(3) {
				i := 0
				if len(b) > 0 {
					i = rng.IntN(len(b) + 1)
				}
				switch c := alphabet[rng.IntN(len(alphabet))]; rng.IntN(3) {
				case 0: // insert
					b = append(b[:i], append([]byte{c}, b[i:]...)...)
				case 1: // replace
					if i < len(b) {
						b[i] = c
					}
				default: // delete
					if i < len(b) {
						b = append(b[:i], b[i+1:]...)
					}
				}
			}
			checkAuthorizedKey(t, string(b))
		}
	}
}

func TestParseAuthorizedKeyOtherTypes(t *testing.T) {
	seeds := authorizedKeySeeds()
	for name, want := range map[string]string{
		"rsa-blob":         "ssh-rsa",
		"rsa-with-options": "ssh-rsa",
		"cert":             "ssh-ed25519-cert-v01@openssh.com",
		"security-key":     "sk-ssh-ed25519@openssh.com",
	} {
		k, err := parseAuthorizedKey(seeds[name])
		if err != nil || k.typ != want || k.key != nil {
			t.Errorf("%s: got %+v, %v; want type %s without key bytes", name, k, err, want)
		}
	}
	for name, want := range map[string]string{
		"bad-base64":      "not valid base64",
		"truncated":       "truncated",
		"short-key":       "31 bytes, want 32",
		"long-key":        "33 bytes, want 32",
		"trailing-junk":   "1 bytes of unexpected data",
		"mismatched-name": `names key type "ssh-ed25519" but the key is "ssh-ed25518"`,
		"unknown-name":    `unknown key type "x"`,
		"declared-other":  `names key type "ssh-ed25518" but the key is "ssh-ed25519"`,
		"type-only":       "no base64 key after ssh-ed25519",
		"hash":            "no key on the line",
		"empty":           "no key on the line",
	} {
		_, err := parseAuthorizedKey(seeds[name])
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", name, err, want)
		}
	}
}

// FuzzParseAuthorizedKey holds parseAuthorizedKey (and ParsePublicKey on
// such lines) to golang.org/x/crypto/ssh's ParseAuthorizedKey: the same lines
// carry an ed25519 key, with the same key, comment and options.
func FuzzParseAuthorizedKey(f *testing.F) {
	for _, seed := range authorizedKeySeeds() {
		f.Add(seed)
	}
	f.Fuzz(checkAuthorizedKey)
}
