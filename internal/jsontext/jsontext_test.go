package jsontext

import (
	"bytes"
	"encoding/json"
	"testing"
)

// encodingJSON is what encoding/json writes for s with HTML escaping off.
func encodingJSON(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

var samples = []string{"", "plain", `quote " and \ back`, "tab\tnl\nret\r", "\b\f\x00\x1f\x7f", "<html> & co",
	"é ü 日本", "\u2028\u2029", "bad \xff utf8", "\xed\xa0\x80 surrogate half"}

func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range samples {
		if got, want := string(AppendString(nil, s)), encodingJSON(s); got != want {
			t.Errorf("AppendString(%q) = %s, encoding/json writes %s", s, got, want)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range samples {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(AppendString([]byte("x"), s)), "x"+encodingJSON(s); got != want {
			t.Fatalf("AppendString(%q) = %s, encoding/json writes %s", s, got, want)
		}
	})
}
