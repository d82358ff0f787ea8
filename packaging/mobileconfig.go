package packaging

import (
	"bytes"
	"fmt"

	"howett.net/plist"
)

// Profile file names and payload identifiers. The identifiers are stable,
// so an MDM that installs a new profile with the same identifier replaces
// the old one; the UUIDs change with the content.
const (
	PolicyProfile      = "oceancode-policy.mobileconfig"
	TrustedKeysProfile = "oceancode-trusted-keys.mobileconfig"
	policyIdentifier   = Domain + ".policy"
	keysIdentifier     = Domain + ".trusted-keys"
)

// mobileconfig writes two configuration profiles for preference domain
// dev.oceancode: the policy (the managed config as a string, the signed
// requirements as data so the envelope's bytes survive, the serial and
// payload hash), and, separately, the trusted keys (rotated on their own
// schedule and scoped more widely).
func mobileconfig(in Inputs) ([]Artefact, error) {
	policy := map[string]any{
		ValueRequirements: in.Requirements,
		"PolicySerial":    in.Policy.Serial,
		"PayloadSHA256":   in.Policy.PayloadSHA256,
	}
	if in.Managed != nil {
		policy[ValueManaged] = string(in.Managed)
	}
	keys := map[string]any{ValueTrustedKeys: string(in.TrustedKeys)}
	desc := in.banner() + "."
	pol, err := profile(in, policyIdentifier, fmt.Sprintf("OceanCode policy (serial %d)", in.Policy.Serial),
		desc+" Managed preferences for "+Domain+": the managed config and the signed requirements.", policy)
	if err != nil {
		return nil, err
	}
	key, err := profile(in, keysIdentifier, "OceanCode trusted keys",
		desc+" Managed preferences for "+Domain+": the public keys that verify the requirements.", keys)
	if err != nil {
		return nil, err
	}
	return []Artefact{{PolicyProfile, pol}, {TrustedKeysProfile, key}}, nil
}

// profile is one configuration profile holding one payload of type Domain
// (a custom-settings payload: the keys become forced managed preferences
// in /Library/Managed Preferences/dev.oceancode.plist). howett.net/plist
// writes it (XML, keys sorted, every string escaped with encoding/xml); the
// stamp goes in a comment before the plist element.
func profile(in Inputs, identifier, name, desc string, settings map[string]any) ([]byte, error) {
	body, err := plist.Marshal(settings, plist.XMLFormat)
	if err != nil {
		return nil, fmt.Errorf("package mobileconfig %s: %w", identifier, err)
	}
	payload := map[string]any{
		"PayloadType":        Domain,
		"PayloadIdentifier":  identifier + ".payload",
		"PayloadUUID":        contentUUID(identifier+".payload", string(body)),
		"PayloadVersion":     int64(1),
		"PayloadDisplayName": name,
		"PayloadDescription": desc,
	}
	for k, v := range settings {
		payload[k] = v
	}
	top := map[string]any{
		"PayloadType":              "Configuration",
		"PayloadVersion":           int64(1),
		"PayloadIdentifier":        identifier,
		"PayloadUUID":              contentUUID(identifier, string(body)),
		"PayloadDisplayName":       name,
		"PayloadDescription":       desc,
		"PayloadScope":             "System",
		"PayloadRemovalDisallowed": true,
		"PayloadContent":           []any{payload},
	}
	if in.Policy.Org != "" {
		top["PayloadOrganization"] = in.Policy.Org
	}
	out, err := plist.MarshalIndent(top, plist.XMLFormat, "\t")
	if err != nil {
		return nil, fmt.Errorf("package mobileconfig %s: %w", identifier, err)
	}
	// The stamp (checked: a number and 64 hex digits) as a comment before
	// the plist element, after the library's XML declaration and DOCTYPE.
	root := []byte(`<plist version="1.0">`)
	i := bytes.Index(out, root)
	if i < 0 {
		return nil, fmt.Errorf("package mobileconfig %s: no plist element in the library's output", identifier)
	}
	out = append(out[:i:i], append([]byte("<!-- "+in.stamp()+" -->\n"), out[i:]...)...)
	if !bytes.HasSuffix(out, []byte("\n")) {
		out = append(out, '\n')
	}
	return out, nil
}
