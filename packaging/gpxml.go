package packaging

import (
	"bytes"
	"encoding/xml"
	"fmt"
)

// The Group Policy template documents (ADMX and ADML), as encoding/xml
// writes them; see admx.
const gpNamespace = "http://schemas.microsoft.com/GroupPolicy/2006/07/PolicyDefinitions"

type (
	gpAttrs struct {
		XSD           string `xml:"xmlns:xsd,attr"`
		XSI           string `xml:"xmlns:xsi,attr"`
		Revision      string `xml:"revision,attr"`
		SchemaVersion string `xml:"schemaVersion,attr"`
	}
	admxDoc struct {
		XMLName xml.Name `xml:"http://schemas.microsoft.com/GroupPolicy/2006/07/PolicyDefinitions policyDefinitions"`
		gpAttrs
		Target struct {
			Prefix    string `xml:"prefix,attr"`
			Namespace string `xml:"namespace,attr"`
		} `xml:"policyNamespaces>target"`
		Resources struct {
			MinRequiredRevision string `xml:"minRequiredRevision,attr"`
		} `xml:"resources"`
		Supported admxNamed    `xml:"supportedOn>definitions>definition"`
		Category  admxNamed    `xml:"categories>category"`
		Policies  []admxPolicy `xml:"policies>policy"`
	}
	admxNamed struct {
		Name        string `xml:"name,attr"`
		DisplayName string `xml:"displayName,attr"`
	}
	admxRef struct {
		Ref string `xml:"ref,attr"`
	}
	admxPolicy struct {
		Name           string      `xml:"name,attr"`
		Class          string      `xml:"class,attr"`
		DisplayName    string      `xml:"displayName,attr"`
		ExplainText    string      `xml:"explainText,attr"`
		Presentation   string      `xml:"presentation,attr"`
		Key            string      `xml:"key,attr"`
		ParentCategory admxRef     `xml:"parentCategory"`
		SupportedOn    admxRef     `xml:"supportedOn"`
		Elements       admxElement `xml:"elements>element"`
	}
	admxElement struct {
		XMLName   xml.Name // text or multiText
		ID        string   `xml:"id,attr"`
		ValueName string   `xml:"valueName,attr"`
		MaxLength string   `xml:"maxLength,attr"`
		Required  string   `xml:"required,attr"`
	}
	admlDoc struct {
		XMLName xml.Name `xml:"http://schemas.microsoft.com/GroupPolicy/2006/07/PolicyDefinitions policyDefinitionResources"`
		gpAttrs
		DisplayName   string             `xml:"displayName"`
		Description   string             `xml:"description"`
		Strings       []admlString       `xml:"resources>stringTable>string"`
		Presentations []admlPresentation `xml:"resources>presentationTable>presentation"`
	}
	admlString struct {
		ID   string `xml:"id,attr"`
		Text string `xml:",chardata"`
	}
	admlPresentation struct {
		ID           string `xml:"id,attr"`
		TextBox      *admlTextBox
		MultiTextBox *struct {
			RefID string `xml:"refId,attr"`
			Label string `xml:",chardata"`
		} `xml:"multiTextBox"`
	}
	admlTextBox struct {
		XMLName      xml.Name `xml:"textBox"`
		RefID        string   `xml:"refId,attr"`
		Label        string   `xml:"label"`
		DefaultValue string   `xml:"defaultValue,omitempty"`
	}
)

var gpDocAttrs = gpAttrs{XSD: "http://www.w3.org/2001/XMLSchema", XSI: "http://www.w3.org/2001/XMLSchema-instance", Revision: "1.0", SchemaVersion: "1.0"}

// gpXML writes doc with encoding/xml as a Windows tool would: the XML
// declaration, the stamp in a comment, two-space indentation, CRLF line
// ends (character data holds no raw line end: encoding/xml writes one as
// a character reference).
func gpXML(in Inputs, doc any) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="utf-8"?>` + "\n")
	enc := xml.NewEncoder(&b)
	enc.Indent("", "  ")
	if err := enc.EncodeToken(xml.Comment(" " + in.stamp() + ". Written by oceanadmin package. ")); err != nil {
		return nil, fmt.Errorf("package admx: %w", err)
	}
	if err := enc.Flush(); err != nil {
		return nil, fmt.Errorf("package admx: %w", err)
	}
	b.WriteString("\n")
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("package admx: %w", err)
	}
	b.WriteString("\n")
	return bytes.ReplaceAll(b.Bytes(), []byte("\n"), []byte("\r\n")), nil
}
