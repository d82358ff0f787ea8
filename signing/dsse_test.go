package signing

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPAE(t *testing.T) {
	for _, tc := range []struct {
		typ, body, want string
	}{
		// The DSSE specification's example.
		{"http://example.com/HelloWorld", "hello world", "DSSEv1 29 http://example.com/HelloWorld 11 hello world"},
		{"", "", "DSSEv1 0  0 "},
		{"a b", "12 x", "DSSEv1 3 a b 4 12 x"},
		{"t", strings.Repeat("z", 1234), "DSSEv1 1 t 1234 " + strings.Repeat("z", 1234)},
	} {
		if got := string(PAE(tc.typ, []byte(tc.body))); got != tc.want {
			t.Errorf("PAE(%q, %q) = %q, want %q", tc.typ, truncate(tc.body, 20), truncate(got, 60), truncate(tc.want, 60))
		}
	}
}

func TestSignVerify(t *testing.T) {
	a := testKey("a")
	e, err := Sign(testType, testPayload, a)
	checkErr(t, err, nil, "")
	data, err := e.Marshal()
	checkErr(t, err, nil, "")

	// The wire form is the spec's: payloadType, payload, signatures[{keyid, sig}].
	var wire map[string]any
	if err := json.Unmarshal(data, &wire); err != nil {
		t.Fatal(err)
	}
	sig0 := wire["signatures"].([]any)[0].(map[string]any)
	if wire["payloadType"] != testType || wire["payload"] != base64.StdEncoding.EncodeToString(testPayload) || sig0["keyid"] != a.Public().ID() {
		t.Errorf("wire form = %s", data)
	}
	if !strings.HasPrefix(string(data), "{\n  \"payloadType\": ") || !strings.HasSuffix(string(data), "}\n") {
		t.Errorf("not indented JSON with a trailing newline: %q", data)
	}
	// Deterministic.
	if data2 := marshalSigned(t, a); !bytes.Equal(data, data2) {
		t.Error("Marshal is not deterministic")
	}

	parsed, err := ParseEnvelope(data)
	checkErr(t, err, nil, "")
	if diff := cmp.Diff(e, parsed); diff != "" {
		t.Errorf("ParseEnvelope(Marshal) (-want +got):\n%s", diff)
	}
	v, err := Verify(parsed, testType, []PublicKey{a.Public()}, 1)
	checkErr(t, err, nil, "")
	want := &Verified{PayloadType: testType, Payload: testPayload, Signers: []string{a.Public().ID()}}
	if diff := cmp.Diff(want, v); diff != "" {
		t.Errorf("Verify (-want +got):\n%s", diff)
	}
	// The verified payload is a copy.
	parsed.Payload[0] = 'X'
	if v.Payload[0] != '{' {
		t.Error("Verified.Payload aliases the envelope")
	}
}

func TestSignRefuses(t *testing.T) {
	a := testKey("a")
	_, err := Sign(testType, testPayload)
	checkErr(t, err, nil, "no signing key")
	_, err = Sign("", testPayload, a)
	checkErr(t, err, nil, "empty payload type")
	_, err = Sign(testType, nil, a)
	checkErr(t, err, nil, "empty payload")
	_, err = Sign(testType, testPayload, PrivateKey{Key: a.Key[:31]})
	checkErr(t, err, ErrInvalidKey, "31 bytes")

	// A key given twice signs once.
	e, err := Sign(testType, testPayload, a, a, testKey("b"), a)
	checkErr(t, err, nil, "")
	if len(e.Signatures) != 2 {
		t.Errorf("%d signatures, want 2", len(e.Signatures))
	}

	// Marshal refuses what ParseEnvelope would.
	for name, e := range map[string]*Envelope{
		"unsigned":  {PayloadType: testType, Payload: testPayload},
		"no type":   {Payload: testPayload, Signatures: e.Signatures},
		"bad keyid": {PayloadType: testType, Payload: testPayload, Signatures: []Signature{{KeyID: "ABC", Sig: make([]byte, 64)}}},
		"short sig": {PayloadType: testType, Payload: testPayload, Signatures: []Signature{{KeyID: a.Public().ID(), Sig: make([]byte, 63)}}},
	} {
		if _, err := e.Marshal(); err == nil {
			t.Errorf("Marshal(%s) succeeded", name)
		}
	}
	big := &Envelope{PayloadType: testType, Payload: make([]byte, MaxEnvelopeSize), Signatures: e.Signatures}
	_, err = big.Marshal()
	checkErr(t, err, ErrMalformed, "more than the")
}

func TestAddSignature(t *testing.T) {
	a, b := testKey("a"), testKey("b")
	e, err := Sign(testType, testPayload, a)
	checkErr(t, err, nil, "")
	checkErr(t, e.AddSignature(b), nil, "")
	checkErr(t, e.AddSignature(a), ErrExists, "already exists")
	checkErr(t, e.AddSignature(b), ErrExists, "already exists")
	if len(e.Signatures) != 2 {
		t.Fatalf("%d signatures", len(e.Signatures))
	}
	// Adding through a marshal/parse cycle, as `oceanadmin sign --append` would.
	data, _ := e.Marshal()
	e2, err := ParseEnvelope(data)
	checkErr(t, err, nil, "")
	c := testKey("c")
	checkErr(t, e2.AddSignature(c), nil, "")
	v, err := Verify(e2, testType, []PublicKey{a.Public(), b.Public(), c.Public()}, 3)
	checkErr(t, err, nil, "")
	if len(v.Signers) != 3 {
		t.Errorf("signers = %v", v.Signers)
	}
}

func ids(keys ...PrivateKey) []string {
	var out []string
	for _, k := range keys {
		out = append(out, k.Public().ID())
	}
	slices.Sort(out)
	return out
}

func pubs(keys ...PrivateKey) []PublicKey {
	var out []PublicKey
	for _, k := range keys {
		out = append(out, k.Public())
	}
	return out
}

func TestVerify(t *testing.T) {
	a, b, c, x := testKey("a"), testKey("b"), testKey("c"), testKey("x")
	sign := func(keys ...PrivateKey) *Envelope {
		e, err := Sign(testType, testPayload, keys...)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	// dupSig repeats the first signature.
	dupSig := func(e *Envelope) *Envelope {
		e.Signatures = append(e.Signatures, e.Signatures[0])
		return e
	}
	// tamper corrupts signature i.
	tamper := func(e *Envelope, i int) *Envelope {
		e.Signatures[i].Sig = bytes.Clone(e.Signatures[i].Sig)
		e.Signatures[i].Sig[5] ^= 0x10
		return e
	}
	// otherPayload changes the payload after signing.
	otherPayload := func(e *Envelope) *Envelope {
		e.Payload = bytes.Replace(e.Payload, []byte(`"serial":7`), []byte(`"serial":8`), 1)
		return e
	}
	// forgeKeyID makes a signature by x claim to be by a.
	forgeKeyID := func(e *Envelope) *Envelope {
		e.Signatures[0].KeyID = a.Public().ID()
		return e
	}
	tests := []struct {
		name      string
		env       *Envelope
		typ       string
		trusted   []PublicKey
		threshold int
		signers   []string
		sentinel  error
		want      string
	}{
		{"one of one", sign(a), testType, pubs(a), 1, ids(a), nil, ""},
		{"threshold 0 means 1", sign(a), testType, pubs(a), 0, ids(a), nil, ""},
		{"threshold -5 means 1", sign(a), testType, pubs(a), -5, ids(a), nil, ""},
		{"one of three trusted", sign(b), testType, pubs(a, b, c), 1, ids(b), nil, ""},
		{"2 of 3", sign(a, c), testType, pubs(a, b, c), 2, ids(a, c), nil, ""},
		{"3 of 3", sign(c, b, a), testType, pubs(a, b, c), 3, ids(a, b, c), nil, ""},
		{"1 of 3 signed, 2 required", sign(a), testType, pubs(a, b, c), 2, nil, ErrThreshold, "1 of 2 required signatures"},
		{"2 signed, 3 required", sign(a, b), testType, pubs(a, b, c), 3, nil, ErrThreshold, "2 of 3 required signatures"},
		{"duplicate signature counts once", dupSig(sign(a)), testType, pubs(a, b), 2, nil, ErrThreshold, "1 of 2"},
		{"duplicate signature still verifies at 1", dupSig(sign(a)), testType, pubs(a), 1, ids(a), nil, ""},
		{"duplicate trusted key counts once", sign(a), testType, []PublicKey{a.Public(), a.Public()}, 2, nil, ErrThreshold, "1 of 2"},
		{"untrusted signer ignored", sign(x, a), testType, pubs(a), 1, ids(a), nil, ""},
		{"untrusted signer does not count", sign(x, a), testType, pubs(a, b), 2, nil, ErrThreshold, "1 of 2"},
		{"rotation: only old trusted", sign(a, b), testType, pubs(a), 1, ids(a), nil, ""},
		{"rotation: only new trusted", sign(a, b), testType, pubs(b), 1, ids(b), nil, ""},
		{"rotation: both trusted", sign(a, b), testType, pubs(a, b), 1, ids(a, b), nil, ""},
		{"unknown key", sign(x), testType, pubs(a, b), 1, nil, ErrUnknownKey, "signed by key ID(s) " + x.Public().ShortID() + ", but the trusted key IDs are " + strings.Join(shortIDs(a, b), ", ")},
		{"no trusted keys", sign(a), testType, nil, 1, nil, ErrUnknownKey, "no trusted keys"},
		{"bad trusted key", sign(a), testType, []PublicKey{{Key: a.Public().Key[:5]}}, 1, nil, ErrInvalidKey, "5 bytes"},
		{"wrong payload type", sign(a), "application/vnd.oceancode.managed+json", pubs(a), 1, nil, ErrPayloadType, `payloadType is "application/vnd.oceancode.requirements+json", want "application/vnd.oceancode.managed+json"`},
		{"payload type differs in case", sign(a), strings.ToUpper(testType), pubs(a), 1, nil, ErrPayloadType, ""},
		{"no expected type", sign(a), "", pubs(a), 1, nil, ErrPayloadType, ""},
		{"tampered payload", otherPayload(sign(a)), testType, pubs(a), 1, nil, ErrBadSignature, "re-sign the file with `oceanadmin sign`"},
		{"tampered signature", tamper(sign(a), 0), testType, pubs(a), 1, nil, ErrBadSignature, "signature 1 by trusted key " + a.Public().ShortID()},
		{"tampered second signature refuses although the first suffices", tamper(sign(a, b), 1), testType, pubs(a, b), 1, nil, ErrBadSignature, "signature 2"},
		{"tampered duplicate refuses", tamper(dupSig(sign(a)), 1), testType, pubs(a), 1, nil, ErrBadSignature, ""},
		{"tampered untrusted signature ignored", tamper(sign(x, a), 0), testType, pubs(a), 1, ids(a), nil, ""},
		{"keyid forged onto another key's signature", forgeKeyID(sign(x)), testType, pubs(a), 1, nil, ErrBadSignature, ""},
		{"unsigned", &Envelope{PayloadType: testType, Payload: testPayload}, testType, pubs(a), 1, nil, ErrUnsigned, "oceanadmin sign"},
		{"nil", nil, testType, pubs(a), 1, nil, ErrMalformed, ""},
		{"short sig from trusted key", &Envelope{PayloadType: testType, Payload: testPayload, Signatures: []Signature{{KeyID: a.Public().ID(), Sig: []byte{1}}}}, testType, pubs(a), 1, nil, ErrBadSignature, ""},
		{"too many signatures", &Envelope{PayloadType: testType, Payload: testPayload, Signatures: slices.Repeat(sign(a).Signatures, MaxSignatures+1)}, testType, pubs(a), 1, nil, ErrMalformed, "at most 32"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, err := Verify(tc.env, tc.typ, tc.trusted, tc.threshold)
			checkErr(t, err, tc.sentinel, tc.want)
			if err != nil {
				if v != nil {
					t.Error("Verify returned a result with an error")
				}
				return
			}
			if diff := cmp.Diff(tc.signers, v.Signers); diff != "" {
				t.Errorf("signers (-want +got):\n%s", diff)
			}
			if !bytes.Equal(v.Payload, testPayload) || v.PayloadType != testType {
				t.Errorf("verified %q %q", v.PayloadType, v.Payload)
			}
		})
	}
}

func shortIDs(keys ...PrivateKey) []string {
	var out []string
	for _, id := range ids(keys...) {
		out = append(out, ShortID(id))
	}
	return out
}

func TestParseEnvelope(t *testing.T) {
	a := testKey("a")
	good := marshalSigned(t, a)
	var w struct {
		PayloadType string
		Payload     string
		Signatures  []struct{ KeyID, Sig string }
	}
	if err := json.Unmarshal(good, &w); err != nil {
		t.Fatal(err)
	}
	keyid, sig := w.Signatures[0].KeyID, w.Signatures[0].Sig
	// env builds an envelope from raw JSON member texts.
	env := func(members ...string) string { return "{" + strings.Join(members, ",") + "}" }
	pt := `"payloadType":"` + testType + `"`
	pl := `"payload":"` + w.Payload + `"`
	sg := func(s string) string { return `"signatures":[` + s + `]` }
	one := `{"keyid":"` + keyid + `","sig":"` + sig + `"}`
	// A payload whose last base64 character carries non-zero padding bits.
	nonCanonPayload := base64.StdEncoding.EncodeToString([]byte("ab")) // "YWI="
	nonCanonPayload = nonCanonPayload[:2] + "J="                       // 'J' differs from 'I' only in padding bits
	if _, err := base64.StdEncoding.DecodeString(nonCanonPayload); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name     string
		in       string
		sentinel error
		want     string
	}{
		{"good compact", env(pt, pl, sg(one)), nil, ""},
		{"good reordered", env(sg(one), pl, pt), nil, ""},
		{"good with escapes", env(`"payloadType":"application\/vnd.oceancode.requirements\u002bjson"`, pl, sg(one)), nil, ""},
		{"empty", "", ErrMalformed, "unexpected end"},
		{"whitespace", "  \n", ErrMalformed, "unexpected end"},
		{"null", "null", ErrMalformed, "not a JSON object"},
		{"array", "[" + env(pt, pl, sg(one)) + "]", ErrMalformed, "not a JSON object"},
		{"string", `"x"`, ErrMalformed, "not a JSON object"},
		{"truncated", env(pt, pl, sg(one))[:50], ErrMalformed, "invalid JSON"},
		{"trailing object", env(pt, pl, sg(one)) + "{}", ErrMalformed, "data after the JSON object"},
		{"trailing garbage", env(pt, pl, sg(one)) + "x", ErrMalformed, ""},
		{"trailing comma", "{" + pt + "," + pl + "," + sg(one) + ",}", ErrMalformed, "invalid JSON"},
		{"bom", "\ufeff" + env(pt, pl, sg(one)), ErrMalformed, "byte order mark"},
		{"invalid utf8", env("\"payloadType\":\"\xff\"", pl, sg(one)), ErrMalformed, "not valid UTF-8"},
		{"unknown member", env(pt, pl, sg(one), `"extra":1`), ErrMalformed, `unknown member "extra"`},
		{"unknown member in signature", env(pt, pl, sg(`{"keyid":"`+keyid+`","sig":"`+sig+`","cert":"x"}`)), ErrMalformed, `unknown member "signatures[0].cert"`},
		{"signature member at top", env(pt, pl, sg(one), `"keyid":"`+keyid+`"`), ErrMalformed, "unknown field"},
		{"case variant", env(`"PayloadType":"`+testType+`"`, pl, sg(one)), ErrMalformed, `unknown member "PayloadType"`},
		{"duplicate payloadType", env(pt, pl, sg(one), `"payloadType":"other"`), ErrMalformed, `duplicate member "payloadType"`},
		{"duplicate payload", env(pt, pl, sg(one), `"payload":"eA=="`), ErrMalformed, `duplicate member "payload"`},
		{"duplicate via escape", env(pt, pl, sg(one), `"p\u0061yload":"eA=="`), ErrMalformed, `duplicate member "payload"`},
		{"duplicate in signature", env(pt, pl, sg(`{"keyid":"`+keyid+`","sig":"`+sig+`","sig":"`+sig+`"}`)), ErrMalformed, `duplicate member "signatures[0].sig"`},
		{"missing payloadType", env(pl, sg(one)), ErrMalformed, "missing payloadType"},
		{"missing payload", env(pt, sg(one)), ErrMalformed, "missing payload"},
		{"missing signatures", env(pt, pl), ErrMalformed, "missing signatures"},
		{"missing all", "{}", ErrMalformed, "missing payloadType, payload, signatures"},
		{"null payload", env(pt, `"payload":null`, sg(one)), ErrMalformed, "missing payload"},
		{"null signatures", env(pt, pl, `"signatures":null`), ErrMalformed, "missing signatures"},
		{"empty payloadType", env(`"payloadType":""`, pl, sg(one)), ErrMalformed, "empty payloadType"},
		{"empty payload", env(pt, `"payload":""`, sg(one)), ErrMalformed, "empty payload"},
		{"number payloadType", env(`"payloadType":1`, pl, sg(one)), ErrMalformed, "a JSON number where a string was expected"},
		{"object payload", env(pt, `"payload":{}`, sg(one)), ErrMalformed, "where a string was expected"},
		{"signatures object", env(pt, pl, `"signatures":{}`), ErrMalformed, "where a list was expected"},
		{"payload bad base64", env(pt, `"payload":"!!!!"`, sg(one)), ErrMalformed, "payload: invalid base64"},
		{"payload url-safe base64", env(pt, `"payload":"-_-_"`, sg(one)), ErrMalformed, "payload: invalid base64"},
		{"payload unpadded", env(pt, `"payload":"YWI"`, sg(one)), ErrMalformed, "payload: invalid base64"},
		{"payload with newline", env(pt, `"payload":"`+w.Payload[:8]+`\n`+w.Payload[8:]+`"`, sg(one)), ErrMalformed, "payload: non-canonical base64"},
		{"payload with CR", env(pt, `"payload":"`+w.Payload[:8]+`\r`+w.Payload[8:]+`"`, sg(one)), ErrMalformed, "payload: non-canonical base64"},
		{"payload non-canonical bits", env(pt, `"payload":"`+nonCanonPayload+`"`, sg(one)), ErrMalformed, "payload: invalid base64"},
		{"empty signatures", env(pt, pl, sg("")), ErrUnsigned, "sign the file with `oceanadmin sign`"},
		{"signature not an object", env(pt, pl, sg(`"x"`)), ErrMalformed, ""},
		{"signature missing keyid", env(pt, pl, sg(`{"sig":"`+sig+`"}`)), ErrMalformed, "signatures[0] needs both keyid and sig"},
		{"signature missing sig", env(pt, pl, sg(`{"keyid":"`+keyid+`"}`)), ErrMalformed, "needs both"},
		{"keyid uppercase", env(pt, pl, sg(`{"keyid":"`+strings.ToUpper(keyid)+`","sig":"`+sig+`"}`)), ErrMalformed, "64 lowercase hex"},
		{"keyid short", env(pt, pl, sg(`{"keyid":"`+keyid[:63]+`","sig":"`+sig+`"}`)), ErrMalformed, "64 lowercase hex"},
		{"keyid not hex", env(pt, pl, sg(`{"keyid":"`+strings.Repeat("z", 64)+`","sig":"`+sig+`"}`)), ErrMalformed, "64 lowercase hex"},
		{"sig short", env(pt, pl, sg(`{"keyid":"`+keyid+`","sig":"AAAA"}`)), ErrMalformed, "sig is 3 bytes, want 64"},
		{"sig bad base64", env(pt, pl, sg(`{"keyid":"`+keyid+`","sig":"*"}`)), ErrMalformed, "signatures[0].sig: invalid base64"},
		{"too many signatures", env(pt, pl, sg(strings.TrimSuffix(strings.Repeat(one+",", MaxSignatures+1), ","))), ErrMalformed, "33 signatures, at most 32"},
		{"too deep", env(pt, pl, sg(one), `"x":`+strings.Repeat("[", 100)+strings.Repeat("]", 100)), ErrMalformed, ""},
		{"too large", env(pt, pl, sg(one)) + strings.Repeat(" ", MaxEnvelopeSize), ErrMalformed, "more than the 1048576-byte limit"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, err := ParseEnvelope([]byte(tc.in))
			checkErr(t, err, tc.sentinel, tc.want)
			if err != nil {
				if e != nil {
					t.Error("ParseEnvelope returned an envelope with an error")
				}
				return
			}
			if _, err := Verify(e, testType, []PublicKey{a.Public()}, 1); err != nil {
				t.Errorf("good envelope does not verify: %v", err)
			}
		})
	}
}

// verifies reports whether data parses and verifies against trusted at
// threshold, and returns the verified result.
func verifies(data []byte, trusted []PublicKey, threshold int) (*Verified, bool) {
	e, err := ParseEnvelope(data)
	if err != nil {
		return nil, false
	}
	v, err := Verify(e, testType, trusted, threshold)
	return v, err == nil
}

// TestMutations flips every bit of a signed envelope, one at a time, and
// truncates it at every length: no variant may verify, except dropping the
// final newline, which leaves the same JSON.
func TestMutations(t *testing.T) {
	a, b := testKey("a"), testKey("b")
	for _, tc := range []struct {
		name      string
		keys      []PrivateKey
		threshold int
	}{
		{"one signature", []PrivateKey{a}, 1},
		{"two signatures, threshold 2", []PrivateKey{a, b}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			orig := marshalSigned(t, tc.keys...)
			trusted := pubs(tc.keys...)
			if _, ok := verifies(orig, trusted, tc.threshold); !ok {
				t.Fatal("original does not verify")
			}
			variants := 0
			mut := make([]byte, len(orig))
			for i := range orig {
				for bit := range 8 {
					copy(mut, orig)
					mut[i] ^= 1 << bit
					variants++
					if _, ok := verifies(mut, trusted, tc.threshold); ok {
						t.Errorf("byte %d (%q) xor %#02x verifies:\n%s", i, orig[i], 1<<bit, mut)
					}
				}
			}
			for n := range len(orig) {
				variants++
				v, ok := verifies(orig[:n], trusted, tc.threshold)
				switch {
				case n == len(orig)-1 && orig[n] == '\n':
					if !ok || !bytes.Equal(v.Payload, testPayload) {
						t.Errorf("dropping the final newline breaks the envelope")
					}
				case ok:
					t.Errorf("truncated to %d of %d bytes verifies", n, len(orig))
				}
			}
			t.Logf("%d variants of a %d-byte envelope", variants, len(orig))
		})
	}
}

// TestVerifyDoesNotTrustKeyID checks that a signature is checked with the
// trusted key whose recomputed ID matches, not with whatever key the keyid
// claims: a trusted key list entry whose comment lies changes nothing.
func TestVerifyDoesNotTrustKeyID(t *testing.T) {
	a, x := testKey("a"), testKey("x")
	e, _ := Sign(testType, testPayload, x)
	// An attacker labels x's signature with a's ID and also offers x's key
	// under a's comment: only a is trusted, so it must not verify.
	e.Signatures[0].KeyID = a.Public().ID()
	_, err := Verify(e, testType, []PublicKey{a.Public()}, 1)
	checkErr(t, err, ErrBadSignature, "")
	// A signature that verifies under a but is labelled with x's ID is
	// ignored, not counted for a.
	e2, _ := Sign(testType, testPayload, a)
	e2.Signatures[0].KeyID = x.Public().ID()
	_, err = Verify(e2, testType, []PublicKey{a.Public()}, 1)
	checkErr(t, err, ErrUnknownKey, "")
}

func TestEd25519Malleability(t *testing.T) {
	// A signature with S + L (the group order) is refused by crypto/ed25519;
	// make sure a non-canonical S never verifies through Verify.
	a := testKey("a")
	e, _ := Sign(testType, testPayload, a)
	sig := bytes.Clone(e.Signatures[0].Sig)
	// L = 2^252 + 27742317777372353535851937790883648493, little-endian.
	l := []byte{0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10}
	var carry int
	for i := range 32 {
		s := int(sig[32+i]) + int(l[i]) + carry
		sig[32+i] = byte(s)
		carry = s >> 8
	}
	e.Signatures[0].Sig = sig
	if ed25519.Verify(a.Public().Key, PAE(testType, testPayload), sig) {
		t.Fatal("crypto/ed25519 accepts a signature with S >= L")
	}
	_, err := Verify(e, testType, pubs(a), 1)
	checkErr(t, err, ErrBadSignature, "")
}

func ExampleVerify() {
	admin := testKey("admin")
	e, _ := Sign("application/vnd.oceancode.requirements+json", []byte(`{"serial":1}`), admin)
	data, _ := e.Marshal()

	parsed, err := ParseEnvelope(data)
	if err != nil {
		fmt.Println(err)
		return
	}
	v, err := Verify(parsed, "application/vnd.oceancode.requirements+json", []PublicKey{admin.Public()}, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s signed by %d key\n", v.Payload, len(v.Signers))
	// Output: {"serial":1} signed by 1 key
}
