package packaging_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/blakesmith/ar"

	"github.com/oceancode/oceancode/packaging"
)

// Strict readers of the artefacts the generator writes, for the formats
// with no parser in Go or on this machine: each accepts only the line
// shapes the generator may emit, so a value that broke out of its place (a
// new registry key section, a new PowerShell statement, a new control-file
// field) fails the parse instead of being skipped.

// regFile is a parsed .reg file.
type regFile struct {
	comments []string
	key      string
	values   map[string]string // REG_SZ as is; hex(7) strings joined by NUL
}

var (
	regKeyLine  = regexp.MustCompile(`^\[HKEY_LOCAL_MACHINE\\SOFTWARE\\Policies\\OceanCode\]$`)
	regSZLine   = regexp.MustCompile(`^"(\w+)"="((?:[^"\\]|\\[\\"])*)"$`)
	regHex7Line = regexp.MustCompile(`^"(\w+)"=hex\(7\):(.*)$`)
	regHexList  = regexp.MustCompile(`^(?:[0-9a-f]{2},)*[0-9a-f]{2}$`)
	regUnescape = strings.NewReplacer(`\\`, `\`, `\"`, `"`)
)

// parseRegStrict reads a .reg file as regedit does, accepting only: the
// UTF-16LE byte-order mark and version line, blank lines, ';' comments
// before the key, exactly one key section (HKLM\SOFTWARE\Policies\OceanCode),
// REG_SZ lines whose only escapes are \\ and \", and hex(7) lines with
// their backslash continuations; every line ended by CRLF.
func parseRegStrict(data []byte) (*regFile, error) {
	if !bytes.HasPrefix(data, []byte{0xff, 0xfe}) || len(data)%2 != 0 {
		return nil, errors.New(".reg: not UTF-16LE with a byte-order mark")
	}
	text := strings.TrimPrefix(decodeUTF16(data), "\ufeff")
	if strings.ContainsAny(strings.ReplaceAll(text, "\r\n", ""), "\r\n") {
		return nil, errors.New(".reg: a line end that is not CRLF")
	}
	lines := strings.Split(text, "\r\n")
	if len(lines) < 2 || lines[0] != "Windows Registry Editor Version 5.00" || lines[len(lines)-1] != "" {
		return nil, fmt.Errorf(".reg: header %q or no final line end", lines[0])
	}
	f := &regFile{values: map[string]string{}}
	for i := 1; i < len(lines)-1; i++ {
		l := lines[i]
		set := func(name, value string) error {
			if f.key == "" {
				return fmt.Errorf(".reg line %d: value %s before any key", i+1, name)
			}
			if _, dup := f.values[name]; dup {
				return fmt.Errorf(".reg line %d: value %s twice", i+1, name)
			}
			f.values[name] = value
			return nil
		}
		var err error
		switch {
		case l == "":
		case strings.HasPrefix(l, ";") && f.key == "":
			f.comments = append(f.comments, l)
		case regKeyLine.MatchString(l) && f.key == "":
			f.key = l
		case regSZLine.MatchString(l):
			m := regSZLine.FindStringSubmatch(l)
			err = set(m[1], regUnescape.Replace(m[2]))
		case regHex7Line.MatchString(l):
			m := regHex7Line.FindStringSubmatch(l)
			list := m[2]
			for strings.HasSuffix(list, `\`) && i+1 < len(lines)-1 && strings.HasPrefix(lines[i+1], "  ") {
				i++
				list = strings.TrimSuffix(list, `\`) + strings.TrimPrefix(lines[i], "  ")
			}
			var s string
			if s, err = decodeMultiSZ(list); err == nil {
				err = set(m[1], s)
			}
		default:
			err = fmt.Errorf(".reg line %d: %q has none of the shapes the generator writes", i+1, l)
		}
		if err != nil {
			return nil, err
		}
	}
	if f.key == "" {
		return nil, errors.New(".reg: no key section")
	}
	return f, nil
}

// decodeMultiSZ decodes a hex(7) list: UTF-16LE strings each ended by a
// NUL, then a final NUL.
func decodeMultiSZ(list string) (string, error) {
	if !regHexList.MatchString(list) {
		return "", fmt.Errorf(".reg: hex(7) list %.40q…", list)
	}
	raw, _ := hex.DecodeString(strings.ReplaceAll(list, ",", ""))
	s := decodeUTF16(raw)
	if !strings.HasSuffix(s, "\x00\x00") {
		return "", errors.New(".reg: hex(7) not ended by two NULs")
	}
	return strings.TrimSuffix(s, "\x00\x00"), nil
}

// psScript is what a parsed OceanCode.ps1 sets.
type psScript struct {
	comments []string
	strings  map[string]string
	multi    []string
}

// isPSQuote is a character PowerShell's tokenizer reads as a single quote.
func isPSQuote(r rune) bool { return strings.ContainsRune("'\u2018\u2019\u201a\u201b", r) }

// psLiteral reads the single-quoted string literal at the start of s as
// PowerShell's tokenizer does (any single-quote character opens and closes
// it; two in a row stand for one, the second kept), refusing a line break
// inside: it returns the value and what follows the closing quote.
func psLiteral(s string) (value, rest string, err error) {
	rs := []rune(s)
	if len(rs) == 0 || rs[0] != '\'' {
		return "", "", fmt.Errorf("want a single-quoted string at %.20q", s)
	}
	var b strings.Builder
	for i := 1; i < len(rs); i++ {
		switch c := rs[i]; {
		case c == '\r' || c == '\n':
			return "", "", errors.New("line break inside a string")
		case isPSQuote(c) && i+1 < len(rs) && isPSQuote(rs[i+1]):
			b.WriteRune(rs[i+1])
			i++
		case isPSQuote(c):
			return b.String(), string(rs[i+1:]), nil
		default:
			b.WriteRune(c)
		}
	}
	return "", "", errors.New("string not closed on its line")
}

var (
	psStamp     = regexp.MustCompile(`^# OceanCode policy serial \d+, payload sha256 [0-9a-f]{64}\.$`)
	psSetString = regexp.MustCompile(`^New-ItemProperty -Path \$key -Name '(\w+)' -PropertyType String -Force -Value (.*)$`)
	psFixed     = []string{
		"# Written by oceanadmin package. Run as an administrator (Intune: a platform script, 64-bit PowerShell).",
		"$ErrorActionPreference = 'Stop'",
		`$key = 'HKLM:\` + packaging.RegistryKey + `'`,
		"New-Item -Path $key -Force | Out-Null",
	}
	psMultiOpen  = "New-ItemProperty -Path $key -Name '" + packaging.ValueTrustedKeys + "' -PropertyType MultiString -Force -Value @("
	psMultiClose = ") | Out-Null"
)

// parsePS checks OceanCode.ps1 line by line against the shapes the
// generator writes — the stamp comment, the fixed lines, one String value
// per line, the TrustedKeys array one string per line — and decodes every
// single-quoted string. A line of any other shape (a statement a value
// broke out into) fails.
func parsePS(data []byte) (*psScript, error) {
	text, ok := strings.CutPrefix(string(data), "\ufeff")
	if !ok {
		return nil, errors.New(".ps1: no UTF-8 byte-order mark")
	}
	if strings.ContainsAny(strings.ReplaceAll(text, "\r\n", ""), "\r\n") {
		return nil, errors.New(".ps1: a line end that is not CRLF")
	}
	lines := strings.Split(text, "\r\n")
	if lines[len(lines)-1] != "" {
		return nil, errors.New(".ps1: no final line end")
	}
	lines = lines[:len(lines)-1]
	p := &psScript{strings: map[string]string{}}
	fixed, inArray, closed := 0, false, false
	for i, l := range lines {
		var err error
		switch {
		case closed:
			err = errors.New("a line after the TrustedKeys statement")
		case i == 0 && psStamp.MatchString(l):
			p.comments = append(p.comments, l)
		case i > 0 && fixed < len(psFixed) && l == psFixed[fixed]:
			fixed++
		case fixed < len(psFixed):
			err = errors.New("not the fixed preamble")
		case !inArray && psSetString.MatchString(l):
			m := psSetString.FindStringSubmatch(l)
			var v, rest string
			if v, rest, err = psLiteral(m[2]); err == nil && rest != " | Out-Null" {
				err = fmt.Errorf("%q after the value", rest)
			}
			if _, dup := p.strings[m[1]]; dup && err == nil {
				err = fmt.Errorf("value %s twice", m[1])
			}
			p.strings[m[1]] = v
		case !inArray && l == psMultiOpen:
			inArray = true
		case inArray && l == psMultiClose:
			inArray, closed = false, true
		case inArray && strings.HasPrefix(l, "  "):
			var v, rest string
			if v, rest, err = psLiteral(l[2:]); err == nil && rest != "" {
				err = fmt.Errorf("%q after an array element", rest)
			}
			p.multi = append(p.multi, v)
		default:
			err = errors.New("none of the shapes the generator writes")
		}
		if err != nil {
			return nil, fmt.Errorf(".ps1 line %d %.60q: %w", i+1, l, err)
		}
	}
	if !closed {
		return nil, errors.New(".ps1: the TrustedKeys statement is missing or not closed")
	}
	return p, nil
}

// xmlComments parses data with encoding/xml in strict mode and returns its
// comments.
func xmlComments(data []byte) ([]string, error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = true
	var out []string
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("not well-formed XML: %w", err)
		}
		if c, ok := tok.(xml.Comment); ok {
			out = append(out, string(c))
		}
	}
}

var debField = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9-]*): (.*)$`)

// debControl reads a .deb as dpkg does — the ar archive, control.tar.gz,
// ./control — and parses the control file strictly (deb822): every line a
// "Field: value" or a continuation starting with a space; no field twice.
func debControl(deb []byte) (map[string]string, []string, error) {
	r := ar.NewReader(bytes.NewReader(deb))
	for {
		h, err := r.Next()
		if err != nil {
			return nil, nil, fmt.Errorf("deb: no control.tar.gz: %w", err)
		}
		if strings.TrimSuffix(h.Name, "/") != "control.tar.gz" {
			continue
		}
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, nil, err
		}
		tr := tar.NewReader(zr)
		for {
			th, err := tr.Next()
			if err != nil {
				return nil, nil, fmt.Errorf("deb: no ./control: %w", err)
			}
			if th.Name == "./control" {
				data, _ := io.ReadAll(tr)
				return parseDeb822(string(data))
			}
		}
	}
}

func parseDeb822(text string) (map[string]string, []string, error) {
	fields, order := map[string]string{}, []string(nil)
	last := ""
	for i, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		switch m := debField.FindStringSubmatch(l); {
		case strings.ContainsAny(l, "\r\x00"):
			return nil, nil, fmt.Errorf("control line %d: a CR or NUL", i+1)
		case m != nil:
			if _, dup := fields[m[1]]; dup {
				return nil, nil, fmt.Errorf("control line %d: field %s twice", i+1, m[1])
			}
			fields[m[1]], last = m[2], m[1]
			order = append(order, m[1])
		case strings.HasPrefix(l, " ") && last != "" && strings.TrimSpace(l) != "":
			fields[last] += "\n" + l[1:]
		default:
			return nil, nil, fmt.Errorf("control line %d: %q is neither a field nor a continuation", i+1, l)
		}
	}
	return fields, order, nil
}
