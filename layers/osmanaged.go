package layers

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/xml"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
)

// OS-native managed sources: where MDM puts policy on macOS (forced managed
// preferences of domain dev.oceancode) and Windows (HKLM policy values).
// oceanadmin package writes them (packaging: mobileconfig, admx, reg); the
// names here are the ones it uses (packaging's tests check they agree).
// The readers are not consulted by Resolve yet (docs/fleet.md).
const (
	// ManagedPreferencesFile is the computer-level forced managed
	// preferences macOS writes from installed profiles; never the
	// user-writable preferences.
	ManagedPreferencesFile = "/Library/Managed Preferences/dev.oceancode.plist"
	// PolicyRegistryKey is the Windows policy key below HKEY_LOCAL_MACHINE.
	PolicyRegistryKey = `SOFTWARE\Policies\OceanCode`
	// The value (registry) and key (preferences) names.
	OSValueManaged      = "Managed"
	OSValueRequirements = "Requirements"
	OSValueTrustedKeys  = "TrustedKeys"
)

// ErrNoOSManaged is returned where the OS holds no managed policy for
// OceanCode (and on systems that have no such store).
var ErrNoOSManaged = errors.New("no OS-managed policy")

// OSManaged is the policy an OS-native source holds: the same three inputs
// as the managed dir (managed.json, requirements.json, trusted_keys). A nil
// field was not set.
type OSManaged struct {
	Source       string // the file or registry key, for inspect
	Managed      []byte
	Requirements []byte
	TrustedKeys  []byte
}

// maxPlist caps a managed-preferences file.
const maxPlist = 4 << 20

// FromPreferences takes the policy out of a managed-preferences dictionary
// (a parsed dev.oceancode.plist, or a profile's payload): Managed and
// Requirements as string or data, TrustedKeys as a string or an array of
// lines. Other keys (PolicySerial, PayloadSHA256, Payload*) are ignored.
func FromPreferences(source string, prefs map[string]any) (*OSManaged, error) {
	m := &OSManaged{Source: source}
	for key, dst := range map[string]*[]byte{OSValueManaged: &m.Managed, OSValueRequirements: &m.Requirements, OSValueTrustedKeys: &m.TrustedKeys} {
		v, ok := prefs[key]
		if !ok {
			continue
		}
		switch v := v.(type) {
		case string:
			*dst = []byte(v)
		case []byte:
			*dst = v
		case []any:
			if key != OSValueTrustedKeys {
				return nil, fmt.Errorf("layers: %s: %s is an array; want a string or data", source, key)
			}
			var b strings.Builder
			for _, l := range v {
				s, ok := l.(string)
				if !ok {
					return nil, fmt.Errorf("layers: %s: %s holds a %T; want strings, one key per line", source, key, l)
				}
				b.WriteString(s + "\n")
			}
			*dst = []byte(b.String())
		default:
			return nil, fmt.Errorf("layers: %s: %s is a %T; want a string or data", source, key, v)
		}
	}
	if m.Managed == nil && m.Requirements == nil && m.TrustedKeys == nil {
		return nil, fmt.Errorf("layers: %s: %w (none of %s, %s, %s)", source, ErrNoOSManaged, OSValueManaged, OSValueRequirements, OSValueTrustedKeys)
	}
	return m, nil
}

// FromRegistryValues assembles the policy from the registry values: the
// two strings and TrustedKeys' strings (REG_MULTI_SZ: one key per string;
// a REG_SZ reads as one string of lines).
func FromRegistryValues(source string, managed, requirements *string, keys []string) *OSManaged {
	m := &OSManaged{Source: source}
	if managed != nil {
		m.Managed = []byte(*managed)
	}
	if requirements != nil {
		m.Requirements = []byte(*requirements)
	}
	if keys != nil {
		m.TrustedKeys = []byte(strings.Join(keys, "\n") + "\n")
	}
	return m
}

// ParsePlist parses a property list, XML or binary ("bplist00"), into Go
// values: dict → map[string]any, array → []any, string, data → []byte,
// integer → int64, real → float64, true/false → bool (dates as their
// RFC 3339 text). A key given twice, nesting deeper than 32 levels, a
// reference cycle or a value of another type is an error.
func ParsePlist(data []byte) (any, error) {
	if len(data) > maxPlist {
		return nil, fmt.Errorf("plist: larger than %d bytes", maxPlist)
	}
	if bytes.HasPrefix(data, []byte("bplist00")) {
		return parseBinaryPlist(data)
	}
	return parseXMLPlist(data)
}

const maxPlistDepth = 32

// plistEpoch is the zero of binary plist dates.
var plistEpoch = time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)

func parseXMLPlist(data []byte) (any, error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = true
	for {
		tok, err := d.Token()
		if err != nil {
			return nil, fmt.Errorf("plist: %w", err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			if se.Name.Local != "plist" {
				return nil, fmt.Errorf("plist: root element <%s>, want <plist>", se.Name.Local)
			}
			v, err := xmlValue(d, nil, 0)
			if err != nil {
				return nil, fmt.Errorf("plist: %w", err)
			}
			return v, nil
		}
	}
}

func xmlValue(d *xml.Decoder, start *xml.StartElement, depth int) (any, error) {
	if depth > maxPlistDepth {
		return nil, errors.New("nested too deeply")
	}
	for start == nil {
		tok, err := d.Token()
		if err != nil {
			return nil, err
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			start = &tok
		case xml.EndElement:
			return nil, errors.New("an empty container where a value belongs")
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
					return nil, fmt.Errorf("<dict> holds <%s> where a <key> belongs", tok.Name.Local)
				}
				var k string
				if err := d.DecodeElement(&k, &tok); err != nil {
					return nil, err
				}
				if _, dup := m[k]; dup {
					return nil, fmt.Errorf("key %q twice in one <dict>", k)
				}
				v, err := xmlValue(d, nil, depth+1)
				if err != nil {
					return nil, err
				}
				m[k] = v
			}
		}
	case "array":
		a := []any{}
		for {
			tok, err := d.Token()
			if err != nil {
				return nil, err
			}
			switch tok := tok.(type) {
			case xml.EndElement:
				return a, nil
			case xml.StartElement:
				v, err := xmlValue(d, &tok, depth+1)
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
	case "string", "date":
		return s, nil
	case "integer":
		return strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	case "real":
		return strconv.ParseFloat(strings.TrimSpace(s), 64)
	case "data":
		return base64.StdEncoding.DecodeString(strings.Join(strings.Fields(s), ""))
	}
	return nil, fmt.Errorf("unknown element <%s>", start.Name.Local)
}

// bplist is a binary property list being decoded.
type bplist struct {
	data    []byte
	offsets []uint64
	refSize int
	active  map[uint64]bool // objects being decoded (cycle check)
	visits  int             // objects decoded, shared ones each time
}

// maxPlistVisits bounds the objects one decode visits: shared references
// (an array of the same array, over and over) cannot make it explode.
const maxPlistVisits = 1 << 16

func parseBinaryPlist(data []byte) (any, error) {
	if len(data) < 8+32 {
		return nil, errors.New("plist: binary: too short")
	}
	tr := data[len(data)-32:]
	offSize, refSize := int(tr[6]), int(tr[7])
	n, top, table := binary.BigEndian.Uint64(tr[8:]), binary.BigEndian.Uint64(tr[16:]), binary.BigEndian.Uint64(tr[24:])
	body := uint64(len(data) - 32)
	if offSize < 1 || offSize > 8 || refSize < 1 || refSize > 8 || n == 0 || top >= n ||
		table < 8 || table > body || n > (body-table)/uint64(offSize) {
		return nil, errors.New("plist: binary: bad trailer")
	}
	p := &bplist{data: data[:body], refSize: refSize, active: map[uint64]bool{}}
	for i := uint64(0); i < n; i++ {
		o := readUint(data[table+i*uint64(offSize):], offSize)
		if o < 8 || o >= table {
			return nil, errors.New("plist: binary: object offset out of range")
		}
		p.offsets = append(p.offsets, o)
	}
	v, err := p.object(top, 0)
	if err != nil {
		return nil, fmt.Errorf("plist: binary: %w", err)
	}
	return v, nil
}

func readUint(b []byte, n int) uint64 {
	var v uint64
	for i := 0; i < n; i++ {
		v = v<<8 | uint64(b[i])
	}
	return v
}

// bytesAt returns n bytes at off, or an error past the end.
func (p *bplist) bytesAt(off, n uint64) ([]byte, error) {
	if off > uint64(len(p.data)) || n > uint64(len(p.data))-off {
		return nil, errors.New("object runs past the end")
	}
	return p.data[off : off+n], nil
}

func (p *bplist) object(ref uint64, depth int) (any, error) {
	if ref >= uint64(len(p.offsets)) {
		return nil, errors.New("reference out of range")
	}
	if depth > maxPlistDepth {
		return nil, errors.New("nested too deeply")
	}
	if p.active[ref] {
		return nil, errors.New("reference cycle")
	}
	if p.visits++; p.visits > maxPlistVisits {
		return nil, fmt.Errorf("more than %d objects", maxPlistVisits)
	}
	p.active[ref] = true
	defer delete(p.active, ref)
	off := p.offsets[ref]
	marker := p.data[off]
	kind, info := marker>>4, uint64(marker&0x0f)
	off++
	// length of data, strings and containers: the low nibble, or 0xF and
	// an integer object after the marker.
	length := func() (uint64, error) {
		if info != 0x0f {
			return info, nil
		}
		b, err := p.bytesAt(off, 1)
		if err != nil || b[0]>>4 != 1 || b[0]&0x0f > 3 {
			return 0, errors.New("bad length")
		}
		size := uint64(1) << (b[0] & 0x0f)
		v, err := p.bytesAt(off+1, size)
		if err != nil {
			return 0, err
		}
		off += 1 + size
		return readUint(v, int(size)), nil
	}
	switch kind {
	case 0x0:
		switch marker {
		case 0x08:
			return false, nil
		case 0x09:
			return true, nil
		}
	case 0x1:
		if info > 3 {
			break
		}
		b, err := p.bytesAt(off, 1<<info)
		if err != nil {
			return nil, err
		}
		return int64(readUint(b, len(b))), nil
	case 0x2:
		switch info {
		case 2:
			b, err := p.bytesAt(off, 4)
			if err != nil {
				return nil, err
			}
			return float64(math.Float32frombits(binary.BigEndian.Uint32(b))), nil
		case 3:
			b, err := p.bytesAt(off, 8)
			if err != nil {
				return nil, err
			}
			return math.Float64frombits(binary.BigEndian.Uint64(b)), nil
		}
	case 0x3:
		if marker != 0x33 {
			break
		}
		b, err := p.bytesAt(off, 8)
		if err != nil {
			return nil, err
		}
		secs := math.Float64frombits(binary.BigEndian.Uint64(b))
		if math.IsNaN(secs) || math.Abs(secs) > 1e11 {
			return nil, errors.New("date out of range")
		}
		return plistEpoch.Add(time.Duration(secs * float64(time.Second))).Format(time.RFC3339), nil
	case 0x4, 0x5, 0x6:
		n, err := length()
		if err != nil {
			return nil, err
		}
		if kind == 0x6 {
			if n > uint64(len(p.data)) {
				return nil, errors.New("object runs past the end")
			}
			b, err := p.bytesAt(off, 2*n)
			if err != nil {
				return nil, err
			}
			u := make([]uint16, n)
			for i := range u {
				u[i] = binary.BigEndian.Uint16(b[2*i:])
			}
			return string(utf16.Decode(u)), nil
		}
		b, err := p.bytesAt(off, n)
		if err != nil {
			return nil, err
		}
		if kind == 0x4 {
			return bytes.Clone(b), nil
		}
		return string(b), nil
	case 0xA, 0xD:
		n, err := length()
		if err != nil {
			return nil, err
		}
		count := n
		if kind == 0xD {
			count = 2 * n
		}
		if count > uint64(len(p.data)) {
			return nil, errors.New("object runs past the end")
		}
		refs, err := p.bytesAt(off, count*uint64(p.refSize))
		if err != nil {
			return nil, err
		}
		ref := func(i uint64) uint64 { return readUint(refs[i*uint64(p.refSize):], p.refSize) }
		if kind == 0xA {
			a := make([]any, 0, n)
			for i := uint64(0); i < n; i++ {
				v, err := p.object(ref(i), depth+1)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			return a, nil
		}
		m := make(map[string]any, n)
		for i := uint64(0); i < n; i++ {
			k, err := p.object(ref(i), depth+1)
			if err != nil {
				return nil, err
			}
			ks, ok := k.(string)
			if !ok {
				return nil, errors.New("a dictionary key that is not a string")
			}
			if _, dup := m[ks]; dup {
				return nil, fmt.Errorf("key %q twice in one dictionary", ks)
			}
			v, err := p.object(ref(n+i), depth+1)
			if err != nil {
				return nil, err
			}
			m[ks] = v
		}
		return m, nil
	}
	return nil, fmt.Errorf("unsupported object type 0x%02x", marker)
}
