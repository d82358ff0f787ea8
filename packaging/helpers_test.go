package packaging_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"sort"
	"testing"
	"unicode/utf16"

	"github.com/oceancode/oceancode/layers"
)

// parsePlist parses with the agent's reader (layers.ParsePlist), written
// independently of packaging's writer.
func parsePlist(t *testing.T, data []byte) any {
	t.Helper()
	v, err := layers.ParsePlist(data)
	if err != nil {
		t.Fatalf("plist: %v", err)
	}
	return v
}

func decodeUTF16(data []byte) string {
	if len(data)%2 != 0 {
		return ""
	}
	u := make([]uint16, len(data)/2)
	for i := range u {
		u[i] = binary.LittleEndian.Uint16(data[2*i:])
	}
	return string(utf16.Decode(u))
}

// parseReg reads the values of a .reg file with the strict reader
// (parseRegStrict): REG_SZ strings unescaped; hex(7) decoded into its
// strings joined by NUL.
func parseReg(t *testing.T, data []byte) map[string]string {
	t.Helper()
	f, err := parseRegStrict(data)
	if err != nil {
		t.Fatal(err)
	}
	return f.values
}

func compact(t *testing.T, data []byte) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, data); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func sortedKeysOf(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
