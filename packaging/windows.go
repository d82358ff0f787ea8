package packaging

import (
	"encoding/binary"
	"encoding/xml"
	"fmt"
	"strings"
	"unicode/utf16"
)

// Windows artefact names.
const (
	ADMXFile       = "OceanCode.admx"
	ADMLFile       = "en-US/OceanCode.adml"
	RegFile        = "OceanCode.reg"
	PowerShellFile = "OceanCode.ps1"
)

// admx writes the Group Policy templates for HKLM\SOFTWARE\Policies\OceanCode:
// one machine policy per value (Managed and Requirements as REG_SZ holding
// one line of JSON, TrustedKeys as REG_MULTI_SZ with one key per string).
// The ADML pre-fills the two text boxes with this policy's values, so an
// administrator who enables them in the Group Policy editor deploys exactly
// what was verified. encoding/xml writes and escapes both documents.
func admx(in Inputs) ([]Artefact, error) {
	x := admxDoc{gpAttrs: gpDocAttrs,
		Supported: admxNamed{"SUPPORTED_OceanCode", "$(string.SUPPORTED_OceanCode)"},
		Category:  admxNamed{"OceanCode", "$(string.OceanCode)"}}
	x.Target.Prefix, x.Target.Namespace = "oceancode", "OceanCode.Policies.OceanCode"
	x.Resources.MinRequiredRevision = "1.0"
	for _, v := range []struct{ name, element string }{
		{ValueManaged, "text"}, {ValueRequirements, "text"}, {ValueTrustedKeys, "multiText"},
	} {
		x.Policies = append(x.Policies, admxPolicy{Name: v.name, Class: "Machine", DisplayName: "$(string." + v.name + ")",
			ExplainText: "$(string." + v.name + "_Explain)", Presentation: "$(presentation." + v.name + ")", Key: RegistryKey,
			ParentCategory: admxRef{"OceanCode"}, SupportedOn: admxRef{"SUPPORTED_OceanCode"},
			Elements: admxElement{XMLName: xml.Name{Local: v.element}, ID: v.name, ValueName: v.name, MaxLength: "1000000", Required: "true"}})
	}
	managed := ""
	if in.Managed != nil {
		managed = compactJSON(in.Managed)
	}
	l := admlDoc{gpAttrs: gpDocAttrs, DisplayName: "OceanCode", Description: in.banner()}
	str := func(id, text string) { l.Strings = append(l.Strings, admlString{id, text}) }
	str("OceanCode", "OceanCode")
	str("SUPPORTED_OceanCode", "OceanCode (any version that reads HKLM policy)")
	str(ValueManaged, "Managed configuration (managed.json)")
	str(ValueManaged+"_Explain", "The managed configuration every oceancode on this machine applies, as one line of JSON (the content of managed.json). Check it with 'oceanadmin validate'. Packaged from "+in.banner()+".")
	str(ValueRequirements, "Signed requirements (requirements.json)")
	str(ValueRequirements+"_Explain", "The signed requirements envelope (requirements.json) as one line of JSON. oceancode refuses it unless it verifies against the trusted keys. Packaged from "+in.banner()+".")
	str(ValueTrustedKeys, "Trusted keys (trusted_keys)")
	str(ValueTrustedKeys+"_Explain", "The public keys that verify the requirements, one per line (the content of trusted_keys). Packaged from "+in.banner()+".")
	box := func(id, label, def string) {
		l.Presentations = append(l.Presentations, admlPresentation{ID: id, TextBox: &admlTextBox{RefID: id, Label: label, DefaultValue: def}})
	}
	box(ValueManaged, "managed.json (one line of JSON)", managed)
	box(ValueRequirements, "requirements.json (one line of JSON)", compactJSON(in.Requirements))
	keys := admlPresentation{ID: ValueTrustedKeys}
	keys.MultiTextBox = &struct {
		RefID string `xml:"refId,attr"`
		Label string `xml:",chardata"`
	}{ValueTrustedKeys, "Trusted public keys, one per line"}
	l.Presentations = append(l.Presentations, keys)

	admxData, err := gpXML(in, x)
	if err != nil {
		return nil, err
	}
	admlData, err := gpXML(in, l)
	if err != nil {
		return nil, err
	}
	return []Artefact{{ADMXFile, admxData}, {ADMLFile, admlData}}, nil
}

// reg writes a .reg file as regedit exports one (UTF-16LE with a byte-order
// mark, CRLF line ends, "Windows Registry Editor Version 5.00") and a
// PowerShell script (UTF-8 with a byte-order mark, so Windows PowerShell 5.1
// reads it as UTF-8) that set the same values. Every value is escaped for
// its format (regString, psString); the comments hold only the stamp.
func reg(in Inputs) ([]Artefact, error) {
	keys := keyLines(in.TrustedKeys)
	values := []struct{ name, value string }{{ValueRequirements, compactJSON(in.Requirements)}}
	if in.Managed != nil {
		values = append([]struct{ name, value string }{{ValueManaged, compactJSON(in.Managed)}}, values...)
	}
	var r strings.Builder
	r.WriteString("Windows Registry Editor Version 5.00\r\n\r\n")
	r.WriteString("; " + in.stamp() + ".\r\n; Written by oceanadmin package: import with 'reg import " + RegFile + "' as an administrator.\r\n\r\n")
	r.WriteString("[HKEY_LOCAL_MACHINE\\" + RegistryKey + "]\r\n")
	for _, v := range values {
		line, err := regString(v.name, v.value)
		if err != nil {
			return nil, err
		}
		r.WriteString(line)
	}
	r.WriteString(regMulti(ValueTrustedKeys, keys))
	ps, err := powerShell(in, values, keys)
	if err != nil {
		return nil, err
	}
	return []Artefact{
		{RegFile, utf16LE(r.String())},
		{PowerShellFile, append([]byte("\ufeff"), ps...)},
	}, nil
}

// powerShell is the script setting the same values as the .reg file: one
// statement per line, every value a single-quoted string.
func powerShell(in Inputs, values []struct{ name, value string }, keys []string) (string, error) {
	var p strings.Builder
	p.WriteString("# " + in.stamp() + ".\r\n")
	p.WriteString("# Written by oceanadmin package. Run as an administrator (Intune: a platform script, 64-bit PowerShell).\r\n")
	p.WriteString("$ErrorActionPreference = 'Stop'\r\n")
	p.WriteString("$key = 'HKLM:\\" + RegistryKey + "'\r\n")
	p.WriteString("New-Item -Path $key -Force | Out-Null\r\n")
	for _, v := range values {
		q, err := psString(v.name, v.value)
		if err != nil {
			return "", err
		}
		p.WriteString("New-ItemProperty -Path $key -Name '" + v.name + "' -PropertyType String -Force -Value " + q + " | Out-Null\r\n")
	}
	p.WriteString("New-ItemProperty -Path $key -Name '" + ValueTrustedKeys + "' -PropertyType MultiString -Force -Value @(\r\n")
	for i, k := range keys {
		q, err := psString(fmt.Sprintf("trusted key line %d", i+1), k)
		if err != nil {
			return "", err
		}
		p.WriteString("  " + q + "\r\n")
	}
	p.WriteString(") | Out-Null\r\n")
	return p.String(), nil
}

// regMulti is a REG_MULTI_SZ as regedit writes it: hex(7) of the UTF-16LE
// strings, each ended by a NUL, then a final NUL.
func regMulti(name string, values []string) string {
	var raw []byte
	for _, v := range values {
		raw = append(raw, utf16LE(v)[2:]...)
		raw = append(raw, 0, 0)
	}
	raw = append(raw, 0, 0)
	hexes := make([]string, len(raw))
	for i, c := range raw {
		hexes[i] = fmt.Sprintf("%02x", c)
	}
	// regedit wraps the list at 80 columns with a trailing backslash.
	var b strings.Builder
	line := `"` + name + `"=hex(7):`
	for i, h := range hexes {
		item := h
		if i < len(hexes)-1 {
			item += ","
		}
		if len(line)+len(item) > 78 {
			b.WriteString(line + "\\\r\n")
			line = "  "
		}
		line += item
	}
	b.WriteString(line + "\r\n")
	return b.String()
}

// utf16LE encodes s as UTF-16 little endian with a byte-order mark.
func utf16LE(s string) []byte {
	u := utf16.Encode([]rune("\ufeff" + s))
	out := make([]byte, 2*len(u))
	for i, c := range u {
		binary.LittleEndian.PutUint16(out[2*i:], c)
	}
	return out
}
