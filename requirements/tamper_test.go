package requirements

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/signing"
)

// This file checks, byte by byte, the statement SECURITY.md and
// docs/requirements-format.md make about what a verifier refuses:
//
//   - Any change to payloadType or to the payload (its decoded bytes) is
//     refused.
//   - A signature whose keyid names a trusted key must verify, else the file
//     is refused: any change to its sig is refused.
//   - A change to a trusted signature's keyid turns it into a signature by
//     an unknown key, which is ignored: the file is then accepted only if the
//     other trusted signatures still meet the threshold.
//   - Signatures by keys this machine does not trust are ignored: changing,
//     adding or removing them changes nothing, as long as they stay
//     well-formed (keyid 64 lowercase hex digits, sig canonical base64 of 64
//     bytes) — a malformed one refuses the file.
//   - Everything else in the file is structure: member names, quotes,
//     brackets, commas and colons; any change that leaves strict JSON with
//     exactly these members is refused.
//   - Whitespace between tokens is not part of what is signed: replacing it by
//     other JSON whitespace (space, tab, LF, CR), adding or removing it, the
//     order of the members and of the signatures, and JSON string escapes are
//     not a change. Any other byte there is refused (it is not JSON).
//
// Whatever is accepted yields the identical verified payload.

// byteClass is what one byte of a marshalled envelope is part of.
type byteClass int

const (
	classWhitespace byteClass = iota
	classStructure
	classPayloadType
	classPayload
	classKeyID
	classSig
)

func (c byteClass) String() string {
	return [...]string{"whitespace", "structure", "payloadType", "payload", "keyid", "sig"}[c]
}

type byteRole struct {
	class byteClass
	sig   int // the signature index for classKeyID and classSig
	start int // the value's first byte (inside the quotes)
	end   int // one past its last byte
}

// classify labels every byte of an envelope as Marshal writes it (no string
// escapes). It is a scanner of its own, not the parser under test.
func classify(t *testing.T, data []byte) []byteRole {
	t.Helper()
	if bytes.IndexByte(data, '\\') >= 0 {
		t.Fatal("classify: the envelope has string escapes")
	}
	roles := make([]byteRole, len(data))
	lastName, sig, objects := "", -1, 0
	afterColon := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			roles[i] = byteRole{class: classWhitespace}
		case c == '"':
			j := i + 1 + bytes.IndexByte(data[i+1:], '"')
			roles[i], roles[j] = byteRole{class: classStructure}, byteRole{class: classStructure}
			cls := classStructure
			if afterColon {
				switch lastName {
				case "payloadType":
					cls = classPayloadType
				case "payload":
					cls = classPayload
				case "keyid":
					cls = classKeyID
				case "sig":
					cls = classSig
				}
			} else {
				lastName = string(data[i+1 : j])
			}
			for k := i + 1; k < j; k++ {
				roles[k] = byteRole{class: cls, sig: sig, start: i + 1, end: j}
			}
			afterColon = false
			i = j
		default:
			roles[i] = byteRole{class: classStructure}
			afterColon = c == ':'
			switch c {
			case '{':
				if objects++; objects > 1 {
					sig++
				}
			}
		}
	}
	return roles
}

var keyIDPattern = regexp.MustCompile(`^[0-9a-f]{64}$`)

// wellFormed says whether value is an acceptable keyid or sig string.
func wellFormed(class byteClass, value string) bool {
	if class == classKeyID {
		return keyIDPattern.MatchString(value)
	}
	b, err := base64.StdEncoding.Strict().DecodeString(value)
	return err == nil && len(b) == 64 && base64.StdEncoding.EncodeToString(b) == value
}

// tamperCase is one signed file and the verifier's trust in it.
type tamperCase struct {
	name      string
	signers   []signing.PrivateKey // in envelope order
	trusted   []bool               // per signature: is its key trusted here
	threshold int
}

// expectAccepted is the statement above, applied to byte i of data set to b.
func (tc tamperCase) expectAccepted(data []byte, r byteRole, i int, b byte) bool {
	switch r.class {
	case classWhitespace:
		return b == ' ' || b == '\t' || b == '\n' || b == '\r'
	case classKeyID, classSig:
		if b < 0x20 || b > 0x7e || b == '"' || b == '\\' {
			return false // not JSON, or not the same string any more
		}
		v := []byte(string(data[r.start:r.end]))
		v[i-r.start] = b
		if !wellFormed(r.class, string(v)) {
			return false
		}
		if !tc.trusted[r.sig] {
			return true // an unknown key's signature is ignored
		}
		if r.class == classSig {
			return false // a trusted signature that does not verify
		}
		others := 0 // distinct trusted keys still signing
		for j, tr := range tc.trusted {
			if tr && j != r.sig {
				others++
			}
		}
		return others >= tc.threshold
	}
	return false
}

// TestEveryByteChangeMatchesTheStatement flips each bit of every byte of
// signed files, and sets every whitespace byte to every JSON whitespace, and
// checks that exactly what the statement says is accepted is accepted,
// always with the identical payload.
func TestEveryByteChangeMatchesTheStatement(t *testing.T) {
	admin, second, stranger := testKey(t), testKey(t), testKey(t)
	cases := []tamperCase{
		{name: "one trusted signature", signers: []signing.PrivateKey{admin}, trusted: []bool{true}, threshold: 1},
		{name: "trusted and unknown signatures", signers: []signing.PrivateKey{admin, stranger}, trusted: []bool{true, false}, threshold: 1},
		{name: "two trusted signatures, threshold 1", signers: []signing.PrivateKey{admin, second}, trusted: []bool{true, true}, threshold: 1},
		{name: "two trusted signatures, threshold 2", signers: []signing.PrivateKey{admin, second}, trusted: []bool{true, true}, threshold: 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var a Anchors
			for i, k := range tc.signers {
				if tc.trusted[i] {
					a.Keys = append(a.Keys, k.Public())
				}
			}
			body := payload(9, map[string]any{"threshold": tc.threshold})
			good := envelope(t, PayloadType, body, tc.signers...)
			_, _, wantSum, err := Verify(good, "good", a, testNow)
			if err != nil {
				t.Fatal(err)
			}
			roles := classify(t, good)
			seen := map[byteClass]int{}
			accepted := map[byteClass]int{}
			try := func(i int, b byte) {
				m := bytes.Clone(good)
				m[i] = b
				want := tc.expectAccepted(good, roles[i], i, b)
				pol, _, sum, err := Verify(m, "mutated", a, testNow)
				seen[roles[i].class]++
				switch {
				case err == nil && !want:
					t.Errorf("byte %d (%s) set to %q: accepted, but the statement says refused", i, roles[i].class, b)
				case err != nil && want:
					t.Errorf("byte %d (%s) set to %q: refused (%v), but the statement says accepted", i, roles[i].class, b, err)
				case err == nil && (sum != wantSum || pol.Serial != 9):
					t.Errorf("byte %d (%s) set to %q: accepted with a different payload", i, roles[i].class, b)
				case err == nil:
					accepted[roles[i].class]++
				}
			}
			for i, c := range good {
				for bit := 0; bit < 8; bit++ {
					try(i, c^1<<bit)
				}
				if roles[i].class == classWhitespace {
					for _, w := range []byte(" \t\n\r") {
						if w != c {
							try(i, w)
						}
					}
				}
			}
			for _, c := range []byteClass{classWhitespace, classStructure, classPayloadType, classPayload, classKeyID, classSig} {
				if seen[c] == 0 {
					t.Errorf("no byte of class %s was tried", c)
				}
			}
			if accepted[classWhitespace] == 0 {
				t.Error("no whitespace change was accepted")
			}
			t.Logf("changes tried per class %v, accepted %v", seen, accepted)
			// Truncation: refused at every length, except dropping only
			// the trailing newline (whitespace).
			for n := 0; n < len(good); n++ {
				_, _, _, err := Verify(good[:n], "truncated", a, testNow)
				if onlyWS := strings.TrimSpace(string(good[n:])) == ""; (err == nil) != onlyWS {
					t.Errorf("truncated to %d of %d bytes: err %v", n, len(good), err)
				}
			}
		})
	}
}

// TestEnvelopeEquivalents checks the statement's multi-byte cases: what is
// not a change (layout, order, escapes, unknown keys' signatures), and what
// is (signatures removed below the threshold, members added or renamed).
func TestEnvelopeEquivalents(t *testing.T) {
	admin, second, stranger := testKey(t), testKey(t), testKey(t)
	body := payload(9, nil)
	sign := func(t *testing.T, keys ...signing.PrivateKey) *signing.Envelope {
		env, err := signing.Sign(PayloadType, body, keys...)
		if err != nil {
			t.Fatal(err)
		}
		return env
	}
	// raw builds an envelope from its parts in the member order given,
	// with string values written as given (escapes allowed).
	raw := func(order []string, typ, pl string, sigs []string) []byte {
		parts := map[string]string{
			"payloadType": `"payloadType":"` + typ + `"`,
			"payload":     `"payload":"` + pl + `"`,
			"signatures":  `"signatures":[` + strings.Join(sigs, ",") + `]`,
		}
		var out []string
		for _, k := range order {
			out = append(out, parts[k])
		}
		return []byte("{" + strings.Join(out, ",") + "}")
	}
	sigJSON := func(s signing.Signature, keyFirst bool) string {
		k := `"keyid":"` + s.KeyID + `"`
		v := `"sig":"` + base64.StdEncoding.EncodeToString(s.Sig) + `"`
		if keyFirst {
			return "{" + k + "," + v + "}"
		}
		return "{" + v + "," + k + "}"
	}
	b64 := base64.StdEncoding.EncodeToString(body)
	std := []string{"payloadType", "payload", "signatures"}
	one := sign(t, admin)
	both := sign(t, admin, second)
	withStranger := sign(t, admin, stranger)
	marshalled, err := one.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, marshalled); err != nil {
		t.Fatal(err)
	}
	trustAdmin := anchorsOf(admin)
	trustBoth := anchorsOf(admin, second)
	tests := []struct {
		name    string
		data    []byte
		anchors Anchors
		ok      bool
	}{
		{"as marshalled", marshalled, trustAdmin, true},
		{"compact", compact.Bytes(), trustAdmin, true},
		{"tabs and CRLF", bytes.ReplaceAll(bytes.ReplaceAll(marshalled, []byte("  "), []byte("\t")), []byte("\n"), []byte("\r\n")), trustAdmin, true},
		{"extra whitespace everywhere", bytes.ReplaceAll(compact.Bytes(), []byte(","), []byte(" ,\n\t ")), trustAdmin, true},
		{"members reversed", raw([]string{"signatures", "payload", "payloadType"}, PayloadType, b64, []string{sigJSON(one.Signatures[0], true)}), trustAdmin, true},
		{"sig before keyid", raw(std, PayloadType, b64, []string{sigJSON(one.Signatures[0], false)}), trustAdmin, true},
		{"signatures reordered", raw(std, PayloadType, b64, []string{sigJSON(both.Signatures[1], true), sigJSON(both.Signatures[0], true)}), trustBoth, true},
		{"escaped slash in payloadType", raw(std, strings.ReplaceAll(PayloadType, "/", `\/`), b64, []string{sigJSON(one.Signatures[0], true)}), trustAdmin, true},
		{"unicode escape in payload", raw(std, PayloadType, `\u00`+fmt.Sprintf("%x", b64[0])+b64[1:], []string{sigJSON(one.Signatures[0], true)}), trustAdmin, true},
		{"unknown key's signature added", raw(std, PayloadType, b64, []string{sigJSON(withStranger.Signatures[0], true), sigJSON(withStranger.Signatures[1], true)}), trustAdmin, true},
		{"unknown key's signature removed", raw(std, PayloadType, b64, []string{sigJSON(withStranger.Signatures[0], true)}), trustAdmin, true},
		{"one of two trusted signatures removed, threshold 1", raw(std, PayloadType, b64, []string{sigJSON(both.Signatures[1], true)}), trustBoth, true},
		{"the same signature twice", raw(std, PayloadType, b64, []string{sigJSON(one.Signatures[0], true), sigJSON(one.Signatures[0], true)}), trustAdmin, true},
		{"only signature removed", raw(std, PayloadType, b64, nil), trustAdmin, false},
		{"only the unknown key's signature left", raw(std, PayloadType, b64, []string{sigJSON(withStranger.Signatures[1], true)}), trustAdmin, false},
		{"payloadType in another case", raw(std, strings.ToUpper(PayloadType), b64, []string{sigJSON(one.Signatures[0], true)}), trustAdmin, false},
		{"member renamed", bytes.Replace(compact.Bytes(), []byte(`"keyid"`), []byte(`"keyId"`), 1), trustAdmin, false},
		{"member added", bytes.Replace(compact.Bytes(), []byte(`{"payloadType"`), []byte(`{"note":"x","payloadType"`), 1), trustAdmin, false},
		{"member duplicated", bytes.Replace(compact.Bytes(), []byte(`{"payloadType"`), []byte(`{"payloadType":"x","payloadType"`), 1), trustAdmin, false},
		{"byte order mark", append([]byte("\ufeff"), marshalled...), trustAdmin, false},
		{"data after the object", append(bytes.Clone(marshalled), []byte("{}")...), trustAdmin, false},
		{"payload re-encoded without padding", raw(std, PayloadType, strings.TrimRight(b64, "="), []string{sigJSON(one.Signatures[0], true)}), trustAdmin, b64 == strings.TrimRight(b64, "=")},
	}
	_, _, wantSum, err := Verify(marshalled, "good", trustAdmin, testNow)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pol, _, sum, err := Verify(tt.data, "variant", tt.anchors, testNow)
			if (err == nil) != tt.ok {
				t.Fatalf("accepted = %v (err %v), want %v\n%s", err == nil, err, tt.ok, tt.data)
			}
			if err == nil && (sum != wantSum || pol.Serial != 9) {
				t.Fatal("accepted with a different payload")
			}
		})
	}
	// Threshold 2: removing either signature is refused.
	body2 := payload(9, map[string]any{"threshold": 2})
	env2, err := signing.Sign(PayloadType, body2, admin, second)
	if err != nil {
		t.Fatal(err)
	}
	for i := range env2.Signatures {
		d := raw(std, PayloadType, base64.StdEncoding.EncodeToString(body2), []string{sigJSON(env2.Signatures[1-i], true)})
		if _, _, _, err := Verify(d, "variant", trustBoth, testNow); err == nil {
			t.Errorf("threshold 2 with signature %d removed: accepted", i)
		}
	}
}
