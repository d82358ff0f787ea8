package requirements

import (
	"testing"
)

// FuzzParse: no input makes the strict parser panic, and whatever it accepts
// is a valid policy the schema also accepts.
func FuzzParse(f *testing.F) {
	f.Add(payload(1, nil))
	f.Add([]byte(`{"schema_version":1}`))
	f.Add([]byte(`{"schema_version":1,"pins":{"sandbox.mode":"read-only"},"rules":{"deny":["Bash(rm:*)"]}}`))
	f.Add([]byte(`{"schema_version":1,"serial":1.5}`))
	f.Add([]byte(`{"schema_version":1,"org":"a","org":"b"}`))
	f.Add([]byte(`[`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse(data, ParseOptions{Signed: true})
		if err != nil {
			return
		}
		if p.SchemaVersion != 1 || p.Serial < 1 || p.ExpiresAt == "" {
			t.Fatalf("accepted an incomplete policy: %+v", p)
		}
	})
}

// FuzzVerify: a mutated envelope never verifies unless its payload is the
// one that was signed.
func FuzzVerify(f *testing.F) {
	admin := testKey(f)
	a := anchorsOf(admin)
	good := envelope(f, PayloadType, payload(3, nil), admin)
	_, _, wantSum, err := Verify(good, "seed", a, testNow)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add([]byte(`{"payloadType":"x","payload":"","signatures":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _, sum, err := Verify(data, "fuzz", a, testNow)
		if err == nil && sum != wantSum {
			t.Fatalf("a mutated envelope verified with payload sha256 %s", sum)
		}
	})
}
