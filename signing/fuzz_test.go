package signing

import (
	"bytes"
	"encoding/base64"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
)

var update = flag.Bool("update", false, "rewrite the committed fuzz seed corpus under testdata/fuzz")

// fuzzKey signs the fuzz seeds; its envelopes over testPayload are the only
// ones that may verify.
var fuzzKey = testKey("fuzz")

// envelopeSeeds are the committed seeds of FuzzParseEnvelopeVerify.
func envelopeSeeds(t testing.TB) map[string][]byte {
	good := marshalSigned(t, fuzzKey)
	two := marshalSigned(t, fuzzKey, testKey("other"))
	otherSigner, err := Sign(testType, []byte(`{"serial":99}`), testKey("other"))
	if err != nil {
		t.Fatal(err)
	}
	otherData, _ := otherSigner.Marshal()
	e, _ := ParseEnvelope(good)
	b64 := base64.StdEncoding.EncodeToString
	sig := b64(e.Signatures[0].Sig)
	id := e.Signatures[0].KeyID
	compact := `{"payloadType":"` + testType + `","payload":"` + b64(testPayload) + `","signatures":[{"keyid":"` + id + `","sig":"` + sig + `"}]}`
	return map[string][]byte{
		"valid-one-signature":   good,
		"valid-two-signatures":  two,
		"valid-compact":         []byte(compact),
		"other-key-other-body":  otherData,
		"unknown-field":         []byte(strings.Replace(compact, `{"payloadType"`, `{"x":1,"payloadType"`, 1)),
		"duplicate-payload":     []byte(strings.Replace(compact, `,"signatures"`, `,"payload":"eA==","signatures"`, 1)),
		"duplicate-escaped":     []byte(strings.Replace(compact, `,"signatures"`, `,"p\u0061yload":"eA==","signatures"`, 1)),
		"wrong-type":            []byte(strings.Replace(compact, "requirements", "managed", 1)),
		"unsigned":              []byte(`{"payloadType":"` + testType + `","payload":"` + b64(testPayload) + `","signatures":[]}`),
		"payload-with-newline":  []byte(strings.Replace(compact, b64(testPayload)[:4], b64(testPayload)[:4]+`\n`, 1)),
		"truncated":             good[:len(good)/2],
		"trailing-object":       append(bytes.Clone(good), "{}"...),
		"nested":                []byte(`{"payloadType":[[[[[[[[[[[[]]]]]]]]]]]]}`),
		"not-object":            []byte(`["payloadType"]`),
		"empty":                 {},
		"keyid-uppercase":       []byte(strings.Replace(compact, id, strings.ToUpper(id), 1)),
		"signature-duplicated":  []byte(strings.Replace(compact, `}]}`, `},{"keyid":"`+id+`","sig":"`+sig+`"}]}`, 1)),
		"keyid-of-other-signer": []byte(strings.Replace(compact, id, testKey("other").Public().ID(), 1)),
	}
}

// FuzzParseEnvelopeVerify checks that nothing but an envelope carrying the
// original payload and type verifies against the fuzz key, and that
// ParseEnvelope and Verify never panic and never return both a value and an
// error.
func FuzzParseEnvelopeVerify(f *testing.F) {
	for _, seed := range envelopeSeeds(f) {
		f.Add(seed)
	}
	trusted := []PublicKey{fuzzKey.Public()}
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := ParseEnvelope(data)
		if err != nil {
			if e != nil {
				t.Fatal("envelope and error")
			}
			return
		}
		// What parses marshals again, and re-parses to the same envelope.
		out, err := e.Marshal()
		if err != nil {
			if len(data) > MaxEnvelopeSize-4096 { // indentation may push it over the limit
				return
			}
			t.Fatalf("parsed envelope does not marshal: %v", err)
		}
		e2, err := ParseEnvelope(out)
		if err != nil || !bytes.Equal(e2.Payload, e.Payload) || e2.PayloadType != e.PayloadType || len(e2.Signatures) != len(e.Signatures) {
			t.Fatalf("marshal/parse round trip differs: %v", err)
		}
		for _, threshold := range []int{1, 2} {
			v, err := Verify(e, testType, trusted, threshold)
			if err != nil {
				if v != nil {
					t.Fatal("result and error")
				}
				continue
			}
			if threshold > 1 {
				t.Fatalf("threshold %d met by one trusted key", threshold)
			}
			if v.PayloadType != testType || !bytes.Equal(v.Payload, testPayload) {
				t.Fatalf("a mutated envelope verifies: type %q payload %q", v.PayloadType, v.Payload)
			}
			if len(v.Signers) != 1 || v.Signers[0] != fuzzKey.Public().ID() {
				t.Fatalf("signers = %v", v.Signers)
			}
		}
	})
}

// publicKeySeeds are the committed seeds of FuzzParsePublicKey.
func publicKeySeeds() map[string]string {
	pub := fuzzKey.Public()
	sshPub, err := ssh.NewPublicKey(pub.Key)
	if err != nil {
		panic(err)
	}
	sshLine := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(sshPub)))
	mini := base64.StdEncoding.EncodeToString(append(append([]byte("Ed"), 1, 2, 3, 4, 5, 6, 7, 8), pub.Key...))
	return map[string]string{
		"native":            pub.String(),
		"native-comment":    pub.Line() + " extra words",
		"ssh-ed25519":       sshLine + " user@host",
		"ssh-options":       `restrict,command="x" ` + sshLine,
		"ssh-rsa":           "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQC7 rsa@host",
		"minisign":          mini,
		"minisign-file":     "untrusted comment: minisign public key 0807060504030201\n" + mini + "\n",
		"minisign-real":     "RWQf6LRCGA9i53mlYecO4IzT51TGPpvWucNSCh1CBM0QTaLn73Y7GFO3",
		"minisign-wrongalg": base64.StdEncoding.EncodeToString(append(append([]byte("ED"), 1, 2, 3, 4, 5, 6, 7, 8), pub.Key...)),
		"bare-raw":          base64.StdEncoding.EncodeToString(pub.Key),
		"junk":              "hello world",
		"empty":             "",
		"list":              pub.String() + "\n# comment\n" + mini,
	}
}

// FuzzParsePublicKey checks that ParsePublicKey and ParsePublicKeys never
// panic, and that any key they accept is 32 bytes and survives a round trip
// through its native form with the same ID.
func FuzzParsePublicKey(f *testing.F) {
	for _, seed := range publicKeySeeds() {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		check := func(k PublicKey) {
			if len(k.Key) != 32 {
				t.Fatalf("accepted a %d-byte key", len(k.Key))
			}
			back, err := ParsePublicKey(k.Line())
			if err != nil {
				t.Fatalf("Line %q does not parse: %v", k.Line(), err)
			}
			if back.ID() != k.ID() {
				t.Fatal("round trip changed the key")
			}
		}
		if k, err := ParsePublicKey(s); err == nil {
			check(k)
		}
		if keys, err := ParsePublicKeys([]byte(s)); err == nil {
			if len(keys) == 0 {
				t.Fatal("no keys and no error")
			}
			for _, k := range keys {
				check(k)
			}
		}
	})
}

// TestFuzzCorpus keeps the committed seed corpus in step with the seeds
// above; run with -update to rewrite it.
func TestFuzzCorpus(t *testing.T) {
	type entry struct{ dir, name, body string }
	var want []entry
	for name, data := range envelopeSeeds(t) {
		want = append(want, entry{"FuzzParseEnvelopeVerify", name, "go test fuzz v1\n[]byte(" + strconv.Quote(string(data)) + ")\n"})
	}
	for name, s := range publicKeySeeds() {
		want = append(want, entry{"FuzzParsePublicKey", name, "go test fuzz v1\nstring(" + strconv.Quote(s) + ")\n"})
	}
	for name, s := range authorizedKeySeeds() {
		want = append(want, entry{"FuzzParseAuthorizedKey", name, "go test fuzz v1\nstring(" + strconv.Quote(s) + ")\n"})
	}
	for _, e := range want {
		path := filepath.Join("testdata", "fuzz", e.dir, e.name)
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(e.body), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("missing seed %s (run go test ./signing/ -run TestFuzzCorpus -update): %v", path, err)
			continue
		}
		if string(got) != e.body {
			t.Errorf("seed %s is out of date (run go test ./signing/ -run TestFuzzCorpus -update)", path)
		}
	}
}

func BenchmarkVerify2Sig(b *testing.B) {
	x, y := testKey("a"), testKey("b")
	e, err := Sign(testType, testPayload, x, y)
	if err != nil {
		b.Fatal(err)
	}
	trusted := pubs(x, y)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Verify(e, testType, trusted, 2); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseEnvelope(b *testing.B) {
	data := marshalSigned(b, testKey("a"), testKey("b"))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseEnvelope(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSign(b *testing.B) {
	k := testKey("a")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Sign(testType, testPayload, k); err != nil {
			b.Fatal(err)
		}
	}
}
