package packaging_test

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unicode/utf16"
)

func syscallUmask(m int) int { return syscall.Umask(m) }

// parsePlist reads an XML property list into Go values: dict →
// map[string]any, array → []any, string, data → []byte, integer → int64,
// true/false → bool. It is written from the plist DTD, independently of
// the writer.
func parsePlist(t *testing.T, data []byte) any {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = true
	for {
		tok, err := d.Token()
		if err != nil {
			t.Fatalf("plist: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			if se.Name.Local != "plist" {
				t.Fatalf("plist: root element %s", se.Name.Local)
			}
			v, err := plistValue(d, nil)
			if err != nil {
				t.Fatalf("plist: %v", err)
			}
			return v
		}
	}
}

func plistValue(d *xml.Decoder, start *xml.StartElement) (any, error) {
	if start == nil {
		for {
			tok, err := d.Token()
			if err != nil {
				return nil, err
			}
			if se, ok := tok.(xml.StartElement); ok {
				start = &se
				break
			}
		}
	}
	switch start.Name.Local {
	case "dict":
		m := map[string]any{}
		for {
			tok, err := d.Token()
			if err != nil {
				return nil, err
			}
			switch tok := tok.(type) {
			case xml.EndElement:
				return m, nil
			case xml.StartElement:
				if tok.Name.Local != "key" {
					return nil, errf("dict: want key, got %s", tok.Name.Local)
				}
				var k string
				if err := d.DecodeElement(&k, &tok); err != nil {
					return nil, err
				}
				if _, dup := m[k]; dup {
					return nil, errf("dict: key %s twice", k)
				}
				v, err := plistValue(d, nil)
				if err != nil {
					return nil, err
				}
				m[k] = v
			}
		}
	case "array":
		var a []any
		for {
			tok, err := d.Token()
			if err != nil {
				return nil, err
			}
			switch tok := tok.(type) {
			case xml.EndElement:
				return a, nil
			case xml.StartElement:
				v, err := plistValue(d, &tok)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
		}
	case "true", "false":
		if err := d.Skip(); err != nil {
			return nil, err
		}
		return start.Name.Local == "true", nil
	}
	var s string
	if err := d.DecodeElement(&s, start); err != nil {
		return nil, err
	}
	switch start.Name.Local {
	case "string":
		return s, nil
	case "integer":
		return strconv.ParseInt(s, 10, 64)
	case "data":
		return base64.StdEncoding.DecodeString(strings.Join(strings.Fields(s), ""))
	}
	return nil, errf("unknown plist element %s", start.Name.Local)
}

func errf(format string, a ...any) error { return fmt.Errorf(format, a...) }

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
