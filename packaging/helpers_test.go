package packaging_test

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"regexp"
	"sort"
	"strings"
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

// parseReg reads the values of a .reg file as regedit does: REG_SZ
// strings unescaped; hex(7) decoded into its strings joined by NUL.
func parseReg(t *testing.T, data []byte) map[string]string {
	t.Helper()
	if !bytes.HasPrefix(data, []byte{0xff, 0xfe}) {
		t.Fatal(".reg: no UTF-16LE byte-order mark")
	}
	text := strings.TrimPrefix(decodeUTF16(data), "\ufeff")
	if !strings.HasPrefix(text, "Windows Registry Editor Version 5.00\r\n") {
		t.Fatalf(".reg: header %q", text[:min(40, len(text))])
	}
	if strings.Contains(strings.ReplaceAll(text, "\r\n", ""), "\n") {
		t.Error(".reg: a line end that is not CRLF")
	}
	text = strings.ReplaceAll(text, "\\\r\n  ", "")
	vals := map[string]string{}
	str := regexp.MustCompile(`^"(\w+)"="((?:[^"\\]|\\.)*)"$`)
	multi := regexp.MustCompile(`^"(\w+)"=hex\(7\):([0-9a-f,]+)$`)
	for _, line := range strings.Split(text, "\r\n") {
		if m := str.FindStringSubmatch(line); m != nil {
			vals[m[1]] = regexp.MustCompile(`\\(.)`).ReplaceAllString(m[2], "$1")
		} else if m := multi.FindStringSubmatch(line); m != nil {
			raw, err := hex.DecodeString(strings.ReplaceAll(m[2], ",", ""))
			if err != nil {
				t.Fatal(err)
			}
			vals[m[1]] = strings.TrimRight(decodeUTF16(raw), "\x00")
		} else if strings.HasPrefix(line, `"`) {
			t.Errorf(".reg: cannot read line %q", line)
		}
	}
	return vals
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
